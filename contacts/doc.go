// Package contacts is the customer data store's domain: contacts with
// their personal and business fields, custom field values, opt statuses
// per channel and memberships of subscription options, touchpoints and
// interests; lists; the catalog (custom field definitions, segmentation
// sets and groups, subscriptions and options, groups with their lists and
// segmentation, touchpoints, interests) and the batch import. A list's
// status is active or inactive (FillList); a status change of a contact
// is ApplyPatch.
//
// # The service
//
// Service is the front door: a Go program that calls it gets exactly
// what the HTTP family (adapters/httpapi/cdsapi, a translation of its
// calls) answers. NewService takes the Stores (Store keeps lists and
// contacts, CatalogStore the catalog and the memberships, ImportStore
// runs imports; the last two may be nil), a clock and a UUID source.
// The service:
//   - gives what it creates a new UUID and the clock's time as created
//     and updated time, and what it changes or deletes the clock's time;
//   - applies bodies by the rules of Fill, ApplyPatch, FillList,
//     FillRecord and FillMember inside the store's atomic update;
//   - with a catalog, holds contact bodies to the tenant's custom fields
//     (CheckCustom: a column that is no custom field in use, or a
//     mandatory one without a value, is Invalid naming it) before the
//     store is asked, on create and on replace;
//   - resolves a listing's subscription_uuids and group_uuid through the
//     catalog before the store is asked (below), and embeds the
//     contacts' lists (Shown, fields=lists) with one store call for a
//     whole page (Store.ListNames), a deleted list by its uuid alone;
//   - runs imports (below).
//
// Without a catalog every custom column is taken, the subscription and
// group filters are refused by name, and the catalog's calls fail
// (Unavailable, code not_kept), as an import does without an
// ImportStore. The stores keep the checks that protect what they hold:
// a contact's list is the tenant's in use, a catalog record's relations
// hold, a listing's query is resolved.
//
// # Listing contacts
//
// ParseContactQuery reads fields (lists, channels, show_deleted,
// count_only), list_uuids and uuids, member_status, opt_status,
// opt_status_webpush, gender, mobile (read as Fill reads it, so
// %2B386… and 00386… find the same contact), email, first_name,
// last_name, age, query, required, and the listing engine's paging, sort
// (birthday, created_dt, first_name, gender, last_name, mobile,
// updated_dt) and operator filters (gt(updated_dt)=…). created_dt and
// updated_dt filters compare the times as the family shows them, in whole
// seconds (ShownTime): gt(updated_dt)=T leaves out a contact shown with
// updated_dt T whatever fraction of that second it keeps, eq(updated_dt)=T
// selects the contacts shown with T, and lists' filters do the same;
// sorting is by the time kept. age N selects the contacts born after
// today minus N+1 years and on or before today minus N years (29 February
// counts on 28 February in common years). query is a segmentation query
// (segmentation.Parse): each of its problems is one under query, naming
// its path.
//
// The membership, group and channel filters, where the interface is
// silent:
//   - list_uuids, uuids, subscription_uuids, touchpoint_uuids and
//     interest_uuids are comma-separated UUIDs, also repeated (their
//     values joined), each kept once, lower case; a value that is no UUID
//     is refused by name, and none at all (list_uuids=) is no filter.
//   - subscription_uuids select the members of any option of any of the
//     subscriptions, with subscription_status (subscribed or
//     unsubscribed) when given; subscription_status without
//     subscription_uuids is refused. A contact keeps option memberships
//     only, and only the catalog knows a subscription's options: the
//     query carries SubscriptionUUIDs as given, the Service resolves them
//     (ResolveSubscriptions) into Options, and a store refuses a query
//     left unresolved (Invalid, code unresolved_query, naming the
//     parameter). A subscription without options selects no contact.
//   - touchpoint_uuids and interest_uuids select the members of any of
//     them, of either status: subscription_status names subscriptions
//     and member_status the contact's list, so neither applies to them.
//   - group_uuid is resolved the same way (ResolveGroup) into the group's
//     lists and its segmentation query; a contact of the group is in one
//     of those lists (a group without lists has none) and matches that
//     query. Both hold beside list_uuids and query.
//   - channel_name is telegram, whatsapp or webpush (lower case);
//     channel_identifier and channel_opt_status (in or out) apply to the
//     same channel: a contact matches when one of its channels (those
//     fields=channels lists) holds every one given. A WhatsApp channel's
//     identifier is the mobile number in E.164 (%2B386…), a webpush
//     channel's the web push subscription, compared as given. The
//     interface also names facebook and instagram, but defines no field
//     that gives a contact such a channel, so no contact could match:
//     they are refused by name (400 naming channel_name) rather than
//     answering an empty listing that looks like a result.
//   - webpush_subscription is the contact's web push subscription, the
//     identifier of its webpush channel: the interface lists it among the
//     equality filters and has the contact's webpush opt status, but
//     shows no field holding it. A contact keeps one (WebpushSubscription:
//     what the customer's site registered for the browser, such as its
//     push subscription's endpoint URL, at most 2048 characters), set by a
//     status change (PATCH webpush_subscription, "" or null clearing it)
//     as opt_status_webpush is, ignored in create and replace bodies and
//     import items and kept by a replace. The filter selects the contacts
//     whose subscription equals the value (trimmed), so a site finds the
//     contact of a browser; isnotnull(webpush_subscription) those that
//     have one. Campaigns still address web push by the contact
//     (campaign.Address): the subscription identifies, it is not sent to.
//   - fields=lists and fields=channels are Embed flags (the contact's list
//     as {uuid, name}, which the Service embeds: Shown.Lists;
//     Contact.Channels); show_deleted and count_only are ContactQuery's.
//
// # Contacts
//
// A Contact keeps its standard text fields by segmentation.Field, so that
// a segmentation query reads them without a copy (a *Contact is a
// segmentation.Record), and custom values by column number (column_1 ..
// column_100). Fill applies a create or replace body (Input) and names
// every problem at once, in field-name order (code invalid_contact).
// Where the interface is silent:
//   - Every field is text of at most 255 characters, trimmed, valid UTF-8
//     without control characters; an empty value is no value.
//   - mobile and b_mobile are phone numbers in international form: a
//     leading + or 00, then digits, with spaces, dashes, dots, brackets or
//     slashes between them. They are stored in E.164 when libphonenumber's
//     metadata takes the number for a valid one of its country (a
//     national number, which names no country, is refused), and the input
//     is kept beside it (MobileRaw, BMobileRaw).
//   - gender is male or female (any case, stored lower case); birthday a
//     date YYYY-MM-DD; email and b_email have the shape local@domain.tld
//     (whether mail reaches it is the mail system's to say). phone and
//     b_phone are kept as written.
//   - opt_status, opt_status_webpush and channel_telegram_opt_status are
//     in or out (any case); channel_telegram_data is a JSON object, kept
//     as sent. A contact's channels (Channels) are its Telegram channel
//     when it has one, its WhatsApp channel when it has a WhatsApp opt
//     status, and its webpush channel when it has a web push
//     subscription.
//   - list_uuid is a UUID, required when a contact is created or imported
//     (every contact belongs to a list); a replace without it keeps the
//     contact's list. A replace clears every field its body leaves out,
//     and keeps opt_status_webpush and webpush_subscription (set by PATCH
//     only) and memberships.
//   - Field names outside the standard fields and column_n are refused,
//     as are subscription_options_in and _out (memberships are not
//     fields of a body).
//
// # The catalog
//
// Custom field definitions, segmentation sets and groups, subscriptions
// and their options, groups, group lists, group segmentation, touchpoints
// and interests share one record type, Record, told apart by its
// RecordKind, and one store contract, CatalogStore. FillRecord applies a
// create or replace body (RecordInput) for a kind and names every problem
// at once (code invalid_<kind>), in the order of the kind's fields, then
// any field the kind does not have. Records are listed over
// RecordSpec(kind) in store order created then uuid, their times filtered
// as shown (ShownTime); the deleted only with show_deleted. Where the
// interface is silent:
//   - Shapes: group, touchpoint and interest are {uuid, name,
//     description, status, created_dt, updated_dt}; group list {uuid,
//     group_uuid, list_uuid, created_dt, updated_dt}; group segmentation
//     {uuid, group_uuid, data, created_dt, updated_dt}; segmentation sets
//     and groups carry created_dt and updated_dt beside uuid, name, data.
//   - name and display_name are required text (Fill's text rules, at most
//     255 characters); description is optional, at most 1000 characters.
//     status (subscriptions, options, groups, touchpoints, interests) is
//     active or inactive, any case, active when not sent. Statuses change
//     only by a replace; a status changes nothing else.
//   - data (segmentation sets and groups, group segmentation) is required
//     and must be a segmentation query segmentation.Parse takes; each of
//     its problems is an item under field data, naming its path. It is
//     kept as sent.
//   - A custom field: field_type is one of date, email, number, phone,
//     select, text, url (any case; text when not sent); config a JSON
//     object (kept compact, at most 16 KiB); a select field's config
//     holds "options", a non-empty array of distinct non-empty strings.
//     mandatory and identifier are yes or no (no when not sent);
//     order_num an integer from 0 to 1 000 000 000 (0 when not sent; a
//     JSON number or a string holding one). field_name is column_N: the
//     store gives a new field the lowest N from 1 to 100 that no custom
//     field of the tenant has, deleted or not; a client may choose a free
//     one (a taken one, or none left, is Conflict naming field_name). A
//     replace keeps the column (another field_name is Invalid). Deleting
//     a custom field is soft and its column is never given again, as
//     contacts keep their values in it.
//   - An option's subscription_uuid must name a subscription of the
//     tenant in use (Invalid naming subscription_uuid, on create and on
//     replace). A subscription with options in use cannot be deleted
//     (Conflict, code subscription_in_use): delete its options first.
//   - A group list's group and list, and a group segmentation's group,
//     must be the tenant's and in use (Invalid naming group_uuid or
//     list_uuid); a group names a list once (Conflict naming list_uuid).
//     Group lists and group segmentation have no delete: the interface
//     gives them none. Deleting a group leaves them stored, unused.
//   - A group selects (GroupTarget) the contacts of its lists in use,
//     narrowed by every one of its group segmentation queries.
//   - The standard field definitions (StandardFields) are in form order,
//     in English, none mandatory, mobile and email identifiers; gender is
//     a select of male and female, birthday a date, e-mail fields email,
//     phone fields phone, the rest text.
//
// # Members
//
// Subscription (option), touchpoint and interest memberships are kept on
// the contact (Options, Touchpoints, Interests, by lower-case uuid).
// SetMember sets one, with the contact's updated time, atomically; the
// contact and the option, touchpoint or interest must be the tenant's and
// in use (Invalid naming contact_uuid or option_uuid, touchpoint_uuid,
// interest_uuid, code invalid_member). A member record is {contact_uuid,
// option_uuid | touchpoint_uuid | interest_uuid, status, updated_dt},
// status subscribed or unsubscribed, updated_dt the contact's updated
// time (a membership keeps no time of its own). Members lists those of
// contacts in use, in the contacts' store order then by target uuid;
// a membership of a deleted option, touchpoint or interest stays on the
// contact and is listed, as the contact still carries it.
//
// # Import
//
// An import (POST /cds/imports, Service.Import) runs in three steps:
// ParseImportQuery reads the parameters, the Service checks them against
// the catalog and ReadImport reads the body (a JSON array of contact
// objects) into ImportItems, and an ImportStore applies the ImportBatch
// (items, options, the service's time and UUID source) atomically,
// returning the ImportResult. Both stores run
// the batch through one ImportRun over the list's matching contacts, so
// the semantics are one.
//
// Memory: an import holds at most 4 times its body beyond the contacts a
// store keeps, and keeps nothing of itself when done (the store contract
// measures it, contactstest.Run's import memory suite: a 13 MB body of 100,000
// contacts holds about 1.7 times on PostgreSQL, 2.2 times on memstore).
// ReadImport reads the body as a stream, checks 256 items at a time and
// keeps them packed (ImportItems: about the body's size, where an
// ImportItem takes some 900 bytes however few fields it has); stores
// read them back ImportChunk (500) at a time. The body is read whole
// before a store locks or begins anything, so that no lock and no
// transaction (on PostgreSQL, a connection of a small pool) waits on a
// client sending slowly, and a store's retry reads the items again: the
// packed items are what that costs.
//
// A Service WithMetrics counts the items of the imports it stored in
// msgkit_cds_import_rows_total by outcome: created, updated, skipped,
// deleted, invalid, subscribed, unsubscribed, opted_in, opted_out (the
// counters of ImportResult; each item counts once). An import that
// failed stored nothing and counts nothing.
//
// Where the interface is silent:
//   - Parameters: list_uuid is required; the UUID lists take comma
//     separated values and repeated parameters; resolve_duplicate
//     defaults to update, identifier to mobile, insert_opt_channels and
//     update_opt_channels to sms (values sms and whatsapp, any case). An
//     unknown parameter is a problem. identifier is a standard text or
//     phone field (mobile, b_mobile, email, first_name, phone, …; not
//     gender or birthday) or column_N. With a catalog, the Service
//     checks, before it reads the body, that option_uuids,
//     touchpoint_uuids, interest_uuids and update_option_uuids name
//     records of the tenant in use and that a column_N identifier is a
//     custom field declared identifier (every problem named at once,
//     code invalid_query), and items may hold only the tenant's custom
//     fields (ImportOptions.Columns).
//   - Items are read as create bodies: the system fields (uuid,
//     created_dt, updated_dt, deleted_dt, channels, member_status, lists,
//     opt_status_webpush, webpush_subscription) and list_uuid are
//     ignored, the list being the import's. An item that is not an
//     object, has a member of the wrong type, breaks the JSON rules of
//     every body (package jsoncheck: invalid UTF-8, a lone surrogate
//     escape, the NUL character, a key given twice or in two cases) or
//     fails Fill is invalid: counted in invalid and listed in errors with
//     its problems, naming the member, and the item as sent, in body
//     order; an item with bad bytes, escapes or a string longer than
//     msgkit.MaxQuoted characters is shown as encoding/json reads it,
//     each long string cut (msgkit.Short), so no error echoes a long
//     value. When every failing field is in
//     unset_invalid_fields, those fields are taken as given null and the
//     item goes on. A body that is not one JSON array is refused whole
//     (Invalid, code invalid_import). Items are read in parallel, one
//     goroutine per core, keeping their order.
//   - Matching: a contact belongs to exactly one list, so an item
//     matches among the target list's contacts in use only (deleted
//     contacts and other lists' contacts are never matched). Values
//     compare as segmentation compares them: phone numbers in E.164
//     (+386 40 … and 0038640… match), text case- and accent-folded
//     (Ann@X.com matches ann@x.com). When several contacts of the list
//     share the value, the first in store order (created, then uuid) is
//     matched. An item without a value for the identifier matches
//     nothing: it is created (skipped under delete).
//   - Items apply in body order, so duplicates in one body resolve
//     deterministically: a later item matches the contact an earlier item
//     created (under update it updates it and counts updated; under skip
//     it is skipped), and matches nothing after an earlier item deleted
//     the contact (not even another contact of the list with its value).
//   - Modes, for an item matching a contact: update — every field the
//     item gives replaces the contact's (null clears it), the others are
//     kept, the item's opt_status (when given) goes to
//     update_opt_channels, and the contact joins option_uuids,
//     touchpoint_uuids and interest_uuids (subscribed), keeping its other
//     memberships: updated. skip — untouched: skipped. subscribe and
//     unsubscribe — the contact's status in the list and in each of
//     update_option_uuids is set: subscribed or unsubscribed (the item's
//     fields are not applied). delete — soft deleted: deleted. optin and
//     optout — the opt status of update_opt_channels is set in or out:
//     optedin or optedout.
//   - An item matching nothing is created (under delete: skipped),
//     subscribed to the list and to option_uuids, touchpoint_uuids and
//     interest_uuids; its opt_status goes to insert_opt_channels (under
//     optin and optout those channels are set in or out whatever the
//     item says), and channels not named keep no opt status.
//   - Every item counts in exactly one counter; changed contacts take the
//     import's time as updated_dt, created ones as created_dt too.
//   - WhatsApp: a contact's WhatsApp opt status (OptStatusWhatsApp) is
//     set by import only; its channel is listed in channels, with the
//     mobile number as identifier, when it has one.
//   - The list must be one of the tenant's lists in use, else the import
//     is Invalid naming list_uuid and nothing is written. An import is
//     whole or nothing, and what it does is seen all at once, chunks
//     notwithstanding: memstore works under its lock, deciding every
//     item (ImportRun.Decide) before it changes anything, so that the
//     one thing that can fail (a created contact's UUID taken) fails
//     first, and then makes the changes (Apply), which cannot fail;
//     pgstore runs one transaction (the list's row locked, so imports
//     into one list take turns) with statements per chunk, not per item:
//     the matching contacts' uuids found by key once (a query per 5,000
//     keys), each chunk's matched contacts read by uuid, planned
//     (ImportRun.Plan), its created rows copied into contacts with COPY,
//     its changed ones staged with COPY and written with one UPDATE.
//     The size of an import is not limited here (the handler may).
package contacts
