// Package financeapi serves the finance API (invoices and their items,
// the default invoice configuration, balances and their sheets, finance
// documents, status changes and files) under /finance/sit/v1/ and the
// invoice file upload of the Invoice Docs domain under /invoice-docs/v2/,
// from a Backend holding the finance.Service. The Service holds every rule,
// the clock and the stores (of invoices, and those it was built with:
// balances, sheets, files, the documents export, the partners' tenants),
// and resolves what a caller sees (Service.ScopeFor); a handler turns the
// caller's privileges into a scope, reads the request, makes one Service
// call and writes its answer. Every route is in the one table of
// routes.go; Handler serves it through the HTTP kit
// (httpapi.FamilyHandler), and OpenAPI returns the family's document, which
// the handler tests hold every exchange to.
//
// Every route needs "Authorization: Bearer <token>" and one of the
// privileges of the finance interface: list, get, files, finance documents
// and the default invoice configuration need finance-invoices.view or
// finance-invoices-own.view; create, update, delete, upload and status
// changes one of the four manage privileges; balances and sheets
// finance-balance-view or finance-balance-own-view. The operator's
// reference data (below) needs finance-reference.manage, msgkit's own
// privilege, to read as to write. Errors have the finance body
// {"Code": <int32>, "Message"}.
//
// Choices where the interface is silent:
//
//   - The invoice create and the file upload take an optional
//     Idempotency-Key (the HTTP kit's Idempotent): a retry with the key
//     and the same request within 24 hours gets the first answer again
//     with Idempotent-Replayed: true, and creates no second invoice or
//     file; the key with another request is 422 {"Code": 422}, while the
//     first runs 409 with Retry-After. An upload's fingerprint covers its
//     multipart Content-Type, boundary included: a retry resends the
//     same bytes.
//   - What "own" covers: a business partner may be linked to the tenant
//     (serviceUuid) whose messaging account it is (finance.PartnerTenants,
//     finance.Options.Tenants).
//     A caller holding only finance-invoices-own.view or
//     finance-balance-own-view sees the documents, balances and sheets of
//     the partners linked to its tenants, and nothing of others: another
//     partner's invoice is not found (404 INVOICE_NOTFOUND), as an unknown
//     one is, and its sheet is empty.
//   - What the manage privileges change: finance-invoices.manage every
//     class; finance-cust-invoices.manage customer invoices, control
//     invoices and credit/debit notes; finance-supplier-invoices.manage
//     supplier invoices and supplier credit/debit notes;
//     finance-netting-invoices.manage netting statements. Creating another
//     class is 403; changing a document of another class is 404, as for a
//     document out of scope. A manage privilege never widens what the
//     caller sees: without finance-invoices.view every change, upload,
//     file listing and create is confined to the partners of the caller's
//     tenants, and another partner's invoice answers exactly as an unknown
//     one (404 INVOICE_NOTFOUND; a create for another partner 400 custID,
//     as for an unknown partner), changing nothing.
//   - Code is an integer: the error's code when that parses as a decimal
//     int32, else the HTTP status (400, 404, 501, ...). The interface's
//     named errors (INVOICE_NOTFOUND, UNKNOWN_STATUS, INVALID_VALUE) and
//     CONFIG_NOTFOUND begin Message ("INVOICE_NOTFOUND: invoice 7 not
//     found"). Field problems are folded into Message as "message; name:
//     problem; ...".
//   - Paths the interface does not show: get, update and delete at
//     /finance/sit/v1/invoices/{invoiceid}; finance documents at GET
//     /finance-documents; status changes PUT /invoices/{invoiceid}/sync-status,
//     PUT /invoices-list/{invoicesList}/sync-status (comma-separated ids, at
//     most 1,000; a path of its own because ServeMux cannot tell it from a
//     single id) and PUT /invoices/{invoiceid}/docs-delivery-status; invoice
//     files GET /invoices/{invoiceid}/files; upload POST
//     /invoice-docs/v2/invoices/{invoiceId}/files; netting membership PUT
//     and DELETE /invoices/{invoiceid}/netting (PUT's body
//     {"nettingInvoiceId": n}) and collection membership PUT and DELETE
//     /invoices/{invoiceid}/collection ({"collectionLeadId": n}). They are
//     marked "chosen" in routes.go.
//   - Membership (finance's "Membership" rules): the changes answer 200
//     with the member invoice. The group must be in the caller's change
//     scope as the member is: a statement or lead of another partner, of
//     a class the caller does not manage, unknown or deleted is 400 naming
//     nettingInvoiceId or collectionLeadId ("… not found"); a member out
//     of scope is 404 INVOICE_NOTFOUND. Joining while in another group,
//     or a closed statement, is 409; a body without the field, or with a
//     value that is no positive integer, is 400 naming it.
//   - Create takes the class from classCodeName, or from the body's
//     finDocClassCodeName when the query has none; both given must agree.
//     Classification may be sent as codes or ids (dataSourceId, domainId,
//     finDocClassId, dtsSelectorId: 1, 2, … in the order of
//     finance.DataSources, Domains and Classes; the one selector,
//     PART-PAYMENT, is 1). Body members are matched without regard to case
//     (templateID and templateId both work), but two members that differ
//     only in case are 400, as are bad bytes and the NUL character (the
//     HTTP kit's JSON rules, httpapi.CheckJSON); members that are not
//     fields of the body (an invoice's read-only fields sent back) are
//     ignored. An invoice's texts are at most finance.MaxTextLen (255)
//     characters, its comments finance.MaxCommentLen (1,000). Update answers the invoice; delete answers 200 without a
//     body.
//   - An invoice is answered as its finance.View: the values the finance
//     documents export computes come from the same computation (the
//     type's name and self-billing, the owner's names, the domestic
//     currency and amounts, the netting statement's and collection
//     lead's number, statuses and totals); overDueDate is the days an
//     open or on-hold invoice is past its due date, today
//     (finance.Service.Today, in the Service's zone). Fields the platform
//     does not keep (account managers, dispute successor, billing
//     balance, SMS count, industry) are written as null, never left out;
//     accountManagerId and accountManagerName appear (as null) only with
//     showAccountManager=yes. invNumber is invNumberFix. The create and
//     update bodies take, beside the interface's fields, ownerId and the
//     workflow values processingStatus, disputeStatus,
//     invoicingDatePolicy and syncMode (chosen; see finance's "Invoice
//     answers and the invoice listing").
//   - invUid is the invoice's UUID: a random version-4 UUID that
//     finance.Service picks when it creates the invoice (its id source,
//     finance.Options.NewUUID), unique and never changed by updates or
//     status changes; one sent in a body is ignored, as other read-only
//     fields are. The finance documents export shows it as documentUuid,
//     balance sheet records as documentUuId; the invoice listing filters
//     and sorts on it.
//   - Listings answer {"data": [...], "meta": {"pagination": {total,
//     count, perPage, currentPage, totalPages}}}. Invoices take up to 100 a
//     page, filter and sort by every attribute the interface lists for
//     either, and q searches custName, customerShortName, invUid,
//     ownerBpBriefName, ownerBpName and status, and ownerId by equality;
//     balances and sheets take the record fields as filters and sorts (see
//     finance.BalanceSpec, SheetSpec), balances also group (comma-separated,
//     any of the documents' 13 grouping attributes; see finance's
//     "Balances and sheets" for what each groups by, the OpenAPI
//     document's pattern lists them) and asOf (a date: the answer adds aging buckets of the unpaid totals:
//     current, days1To30, days31To60, days61To90, days91To120, over120).
//     An unknown query parameter is 400 naming it. A file listing is one
//     page with every file.
//   - Amounts are JSON numbers with the currency's decimals (1.50); a
//     balance written with more decimals than its currency has sums a
//     document that has them.
//   - Upload: the body is multipart/form-data with the file in the field
//     supplierInvoice; another form, a missing field or a field without a
//     filename is 400; a file the checks refuse (type other than its
//     extension says, an extension not accepted, empty, over 10 MB) is the
//     interface's 405 "validation exception"; a body over the route's limit
//     (the 10 MB file plus 64 KiB of multipart envelope) is 413. The other
//     routes take httpapi.DefaultMaxBodyBytes.
//   - The finance documents export takes the listing parameters of
//     finance.DocumentSpec (every operator of the listing engine on the 65
//     attributes of the interface, at most 50 a page), q over the text
//     attributes of finance.DocumentSearchAttrs and embed=trafficReports;
//     a document's classification codes are null when its invoice was made
//     without them. A part the Service was built without (finance.Options:
//     Balances, Sheets, Files and Blobs, Documents, Partners, Export,
//     ConfigStore; see Service.HasBalances
//     and the other Has methods) makes its routes answer 501.
//   - A change of sync status of many invoices answers 200 with a result
//     per id in order: opStatus OK, or ERROR with {Code, Message} as the
//     single change would have answered it (404 INVOICE_NOTFOUND, 400
//     UNKNOWN_STATUS or INVALID_VALUE: such a change may not set done or
//     invalid). A failure of the store fails the whole request (500).
//   - Reference data: the interface reads business partners, document
//     types, billing accounts and configurations but shows no way to keep
//     them, and a platform started without them cannot create an invoice.
//     They are the operator's, served under /finance/sit/v1/ (routes.go,
//     "chosen") to finance-reference.manage only, never to a tenant or an
//     -own privilege: GET /biz-partners (listing over
//     finance.PartnerSpec), GET and PUT /biz-partners/{bizPartnerId} (the
//     partner, its externalRefId and customAttributes, and serviceUuid, the
//     tenant it is linked to; absent or null unlinks), PUT
//     /billing-accounts/{billingAccountId}, PUT
//     /source-records/{billing|credit}/{recordId} ({"billingAccountId"}),
//     PUT /document-types/{typeId}, PUT
//     /invoice-configs/{typeId}/templates/{templateLang} (a default
//     configuration; stored ones win over the built-in ones, see finance's
//     "Default configuration"), and a document's PUT
//     /invoices/{invoiceid}/domestic-rate and
//     /invoices/{invoiceid}/traffic-reports (404 for an unknown or deleted
//     invoice). Every PUT creates or replaces, so a retry is harmless, and
//     answers the record as stored. Their bodies refuse members the
//     OpenAPI document does not name (400 naming it), unlike the invoice
//     bodies: a misspelt field of operator data would otherwise be
//     dropped unnoticed; the records' read-only fields sent back are
//     named, and ignored. Currencies are ISO 4217 numeric codes.
package financeapi
