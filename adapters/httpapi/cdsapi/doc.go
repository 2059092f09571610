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
// Contacts (list, create, get, replace, status change, delete with gdpr)
// and lists are served from Backend.Contacts; the contact fields, custom
// fields, segmentation sets and groups, subscriptions and their options,
// groups, group lists, group segmentation, touchpoints, interests and the
// subscription, touchpoint and interest members from Backend.Catalog.
// Campaigns answer, once authentication, tenancy and privileges have been
// enforced, 501 with code not_implemented and a message naming the
// operation; so does every operation whose store the Backend lacks.
// OpenAPI returns the family's document.
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
//   - With a Catalog, a contact body may hold only the custom columns the
//     tenant defines (custom fields in use), and must give a value for
//     each mandatory one; the problems are named like the body's others.
//   - GET /cds/fields answers, with include_all=1 and when include_all is
//     not given (its documented default), the definitions of the standard
//     fields and then the tenant's custom fields; with include_all=0 the
//     standard fields' names.
//   - POST to a members collection creates or updates the membership and
//     answers 200 with it: {contact_uuid, option_uuid | touchpoint_uuid |
//     interest_uuid, status, updated_dt}.
//   - Unknown paths under /news/v1/ answer 404 not_found and known paths
//     with another method 405 method_not_allowed with Allow, in the CDS
//     body, after authentication.
package cdsapi
