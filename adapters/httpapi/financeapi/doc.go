// Package financeapi serves the finance API (invoices and their items,
// the default invoice configuration, balances and their sheets, finance
// documents, status changes and files) under /finance/sit/v1/ and the
// invoice file upload of the Invoice Docs domain under /invoice-docs/v2/.
// Every route is in the one table of routes.go; Handler serves it through
// the HTTP kit (httpapi.FamilyHandler).
//
// Every route needs "Authorization: Bearer <token>" and one of the
// privileges of the finance interface: list, get, files, finance documents
// and the default invoice configuration need finance-invoices.view or
// finance-invoices-own.view; create, update, delete, upload and status
// changes one of the four manage privileges; balances finance-balance-view
// or finance-balance-own-view. Restricting the "own" privileges to the
// caller's records is the finance domain's work. Errors have the finance
// body {"Code": <int32>, "Message"}.
//
// The finance domain is not released yet: every route answers, once
// authentication and privileges have been enforced, 501 with a message
// naming the operation and saying that it arrives in a later release.
//
// Choices where the interface is silent:
//
//   - Code is an integer: the error's code when that parses as a decimal
//     int32, else the HTTP status (400, 404, 501, ...). A textual code such
//     as INVOICE_NOTFOUND is therefore not shown in Code; the finance
//     handlers say it in Message. Field problems are folded into Message
//     as "message; name: problem; ...".
//   - Paths the interface does not show: get, update and delete at
//     /finance/sit/v1/invoices/{invoiceid}; finance documents at GET
//     /finance-documents; status changes PUT /invoices/{invoiceid}/sync-status,
//     PUT /invoices-list/{invoicesList}/sync-status (comma-separated ids; a
//     path of its own because ServeMux cannot tell it from a single id) and
//     PUT /invoices/{invoiceid}/docs-delivery-status; invoice files GET
//     /invoices/{invoiceid}/files; upload POST
//     /invoice-docs/v2/invoices/{invoiceId}/files. They are marked "chosen"
//     in routes.go.
//   - An upload may hold the interface's 10 MB file plus 64 KiB of
//     multipart envelope; the other routes take httpapi.DefaultMaxBodyBytes.
package financeapi
