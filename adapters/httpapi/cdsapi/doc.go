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
// The CDS domain is not released yet: every route answers, once
// authentication, tenancy and privileges have been enforced, 501 with code
// not_implemented and a message naming the operation and saying that it
// arrives in a later release. So only an entitled caller learns that the
// operation is not there yet.
//
// Choices where the interface is silent:
//
//   - description is the status text ("Bad Request"); items are the error's
//     fields and always an array, [] when there are none.
//   - An import body may hold 16 MiB, as the interface gives no maximum
//     import size; the other routes take httpapi.DefaultMaxBodyBytes.
//   - Unknown paths under /news/v1/ answer 404 not_found and known paths
//     with another method 405 method_not_allowed with Allow, in the CDS
//     body, after authentication.
package cdsapi
