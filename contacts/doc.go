// Package contacts is the customer data store's domain: contacts with
// their personal and business fields, custom field values, opt statuses
// per channel and subscription memberships, and (as it grows) lists,
// field definitions, segmentation sets and groups, subscriptions,
// touchpoints, interests and the batch import.
//
// So far it holds the contact record, the rules of a contact body, lists,
// the Store with its listing query and ParseContactQuery, which reads the
// list-contacts parameters; the HTTP family builds on it.
//
// # Listing contacts
//
// ParseContactQuery reads fields (lists, channels, show_deleted,
// count_only), list_uuids and uuids, member_status, opt_status,
// opt_status_webpush, gender, mobile (read as Fill reads it, so
// %2B386… and 00386… find the same contact), email, first_name,
// last_name, age, query, required, and the listing engine's paging, sort
// (birthday, created_dt, first_name, gender, last_name, mobile,
// updated_dt) and operator filters (gt(updated_dt)=…). age N selects the
// contacts born after today minus N+1 years and on or before today minus
// N years (29 February counts on 28 February in common years). The
// parameters that filter by subscriptions, interests, touchpoints, groups
// and channels are refused by name until those records are kept.
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
//     as sent. A contact's channels are its Telegram channel when it has
//     one.
//   - list_uuid is a UUID, required when a contact is created or imported
//     (every contact belongs to a list); a replace without it keeps the
//     contact's list. A replace clears every field its body leaves out,
//     and keeps opt_status_webpush (set by PATCH only) and memberships.
//   - Field names outside the standard fields and column_n are refused,
//     as are subscription_options_in and _out (memberships are not
//     fields of a body).
package contacts
