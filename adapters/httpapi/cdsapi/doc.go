// Package cdsapi serves the customer data storage and campaign API (the
// CDS interface) under /news/v1/services/{serviceUuid}/: contacts and their
// import, lists, fields and custom fields, segmentation sets and groups,
// subscriptions with their options and members, groups, group lists, group
// segmentation, touchpoints, interests, and campaigns. Every route is in
// the one table of routes.go; Handler serves it through the HTTP kit
// (httpapi.FamilyHandler).
//
// Every route needs "Authorization: Bearer <token>", a principal acting for
// the path's {serviceUuid} and the privilege news. A caller without a
// usable token gets 401, a malformed {serviceUuid} 400 naming serviceUuid,
// another tenant 403 forbidden_service, a principal without news 403
// insufficient_privilege. Errors have the CDS body
// {"code","message","description","items":[{"name","message","description"}]}.
//
// The Backend holds the domains' services, never a store: contacts
// (list, create, get, replace, status change, delete with gdpr), lists,
// the contact fields, custom fields, segmentation sets and groups,
// subscriptions and their options, groups, group lists, group
// segmentation, touchpoints, interests, the subscription, touchpoint and
// interest members and the import are served by Backend.Contacts (a
// contacts.Service, which picks ids and times and holds the rules);
// campaigns by Backend.Campaigns (a campaign.Service), their runs read
// through it (campaign.Service.WithRuns). A handler reads the path and query, decodes the body,
// calls one service method and encodes its answer. An operation whose
// service the Backend lacks, or whose records its contacts.Service does
// not keep (no catalog, no import), answers, once authentication, tenancy
// and privileges have been enforced, 501 with code not_implemented and a
// message naming the operation. OpenAPI returns the family's document.
//
// Choices where the interface is silent:
//
//   - description is the status text ("Bad Request"); items are the error's
//     fields and always an array, [] when there are none.
//   - An import body may hold 16 MiB, as the interface gives no maximum
//     import size; the other routes take httpapi.DefaultMaxBodyBytes.
//   - Success codes are the interface's: 201 with the record on create,
//     200 with the record on get, replace, update and status change (the
//     interface does not show the body of an update: it is the record), 204
//     on delete.
//   - A PUT or PATCH body that is malformed JSON or has a member of the
//     wrong type is 400 (code invalid_json, naming the members); one that
//     is well-formed but breaks a rule of its values is the interface's 405
//     "validation exception" (code invalid_contact or invalid_list, naming
//     every field). On create the same rules answer 400.
//   - Record ids in paths are UUIDs; a malformed one is 404, as no record
//     has it. Operations refuse query parameters they do not take (400).
//   - Contacts are answered with every standard field (null without a
//     value), their custom columns (column_n) with a value, member_status
//     (their status in their list), deleted_dt, the Telegram fields and
//     channels; fields=lists adds lists: [{uuid, name}]. Create and replace
//     bodies hold strings or null (channel_telegram_data an object); the
//     read-only members of an answer (uuid, created_dt, updated_dt,
//     deleted_dt, member_status, channels, lists) and opt_status_webpush
//     (PATCH only) are ignored, so a fetched contact can be sent back. A
//     PATCH takes opt_status, opt_status_webpush,
//     channel_telegram_identifier and channel_telegram_opt_status; null or
//     "" clears one, any other member is 400.
//   - Lists always carry their counts (subscribed, unsubscribed,
//     contacts_count), so fields totals, status and contacts_count change
//     nothing; show_deleted lists the deleted too.
//   - Collections answer {data, meta.pagination{total, count, perPage,
//     currentPage, totalPages, links{first, last, prev, next}}}: links are
//     the request's path and query with page_number set, prev and next
//     null where there is no such page.
//   - Catalog records are answered with uuid, created_dt, updated_dt,
//     deleted_dt and the fields of their kind (the package contacts
//     documents the shapes the interface does not show); an option's
//     order_num is a string, as every field of an option is, a custom
//     field's an integer; mandatory and identifier are "yes" or "no".
//     Bodies hold strings or null (order_num also a number, config an
//     object); uuid and the times are ignored, any other member is 400.
//   - With a catalog, a contact body may hold only the custom columns the
//     tenant defines (custom fields in use), and must give a value for
//     each mandatory one (contacts.Service.CheckCustom); the problems are
//     named like the body's others.
//   - GET /cds/fields answers, with include_all=1 and when include_all is
//     not given (its documented default), the definitions of the standard
//     fields and then the tenant's custom fields; with include_all=0 the
//     standard fields' names.
//   - POST to a members collection creates or updates the membership and
//     answers 200 with it: {contact_uuid, option_uuid | touchpoint_uuid |
//     interest_uuid, status, updated_dt}.
//   - Every POST (the creates, the import, the members) takes an optional
//     Idempotency-Key (the HTTP kit's Idempotent), whose scope is the
//     client or user and the serviceUuid: a retry with the key and the
//     same request within 24 hours gets the first answer again with
//     Idempotent-Replayed: true and creates nothing; the key with another
//     request is 422 idempotency_key_reused, while the first runs 409
//     idempotency_key_in_progress.
//   - Unknown paths under /news/v1/ answer 404 not_found and known paths
//     with another method 405 method_not_allowed with Allow, in the CDS
//     body, after authentication.
//
// # Campaigns
//
// The rules of a campaign, its clones, statuses and schedules are package
// campaign's (see its documentation); this adapter reads the bodies and
// answers as follows.
//
//   - Create (POST, 201) and replace (PUT) take the same body: the
//     campaign's members as strings, null being a member not sent, and
//     template_vars an object of strings (a value of another type, null
//     included, is 400 naming template_vars). clone_uuid and template_vars
//     are for creates; a replace leaves nothing of the old content that
//     the body does not give. A member of the wrong type, or one the body
//     cannot have, is 400 (code invalid_json) naming every such member;
//     the read-only members of an answer (uuid, template_parts, created_dt,
//     updated_dt, next_dt, last_dt, tasks, messages) are ignored, so a
//     fetched campaign can be sent back. Names match exactly ("Name" is
//     not name).
//   - The rules of the values (campaign.Fill, the status moves, lists the
//     tenant does not have, clone_uuid naming no campaign of the tenant)
//     answer 400 (code invalid_campaign or invalid_status_change, every
//     field named) on create and, as for contacts, lists and the catalog,
//     the interface's 405 "validation exception" on PUT and PATCH. As the
//     rules are checked before the campaign is looked up, a PUT that
//     breaks one answers 405 even for a campaign that does not exist.
//   - PATCH takes {"status": "active" | "stopped"} and answers 200 with the
//     campaign (the interface does not show the body). Any other member
//     is 400 invalid_json naming it, a body without status 400
//     invalid_campaign naming status, a status the campaign cannot take
//     405 naming status (or schedule_rrule for a once campaign whose time
//     has passed). Asking for the status a campaign has changes nothing,
//     updated_dt included.
//   - DELETE answers 204 without a body. An unknown campaign, a malformed
//     campaignUuid, and another tenant's campaign are 404
//     campaign_not_found.
//   - A campaign is answered with every member of the interface, in its
//     order: strings without a value are "" (as catalog records answer
//     them: schedule_rrule of a now campaign, query of query_type all,
//     the webpush members of other channels), times RFC 3339 in UTC and
//     null without a value (next_dt of a campaign that is not active,
//     last_dt before its first run). schedule_rrule is the once time
//     "Y-m-d H:i:s" (UTC) or the rule in its normal form (a DTSTART line,
//     then RRULE with UNTIL in UTC), recipient_lists the list UUIDs joined
//     by commas without spaces, query the segmentation JSON as sent.
//     template_parts, an extension, is how many SMS parts one message of
//     an sms template takes (before placeholders are filled), 0 for the
//     other channels.
//   - fields (comma separated, or repeated, as contacts read it) takes
//     tasks and messages on the listing and on a campaign; an unknown
//     value is 400 naming fields. Each adds an array: tasks {id,
//     scheduled_dt, status, recipients, sent, failed, created_dt,
//     finished_dt}, messages {task_id, contact_uuid, address, status,
//     msg_id, error, updated_dt}, up to 1000 messages for a campaign and
//     100 for each campaign of a listing's page. When the campaign service
//     reads no runs these fields are refused (400), rather than answered empty.
//   - The listing takes the listing engine's parameters over
//     campaign.ListSpec(): filters on sending_type, status, schedule_type, name,
//     created_dt, updated_dt, next_dt and last_dt (attribute=value or
//     operator(attribute)=value), sort, page_number, page_size, paging,
//     and q, searching name.
//   - Bodies pass the HTTP kit's JSON rules (httpapi.CheckJSON): bad
//     bytes, the NUL character, a key given twice or in two cases, and a
//     string over 1,000 characters are 400 invalid_json naming the member;
//     a campaign's template (campaign.MaxTemplateLen bytes), its
//     recipient_lists and web push addresses, segmentation queries
//     (query, data: segmentation.MaxQueryBytes) and a contact's
//     webpush_subscription (contacts.MaxSubscriptionLen) may be longer,
//     and contact values are at most contacts.MaxValueLen characters.
package cdsapi
