// Package finance holds the money rules of the finance family: currencies
// and their rounding, the totals of an invoice or note from its items,
// VAT as EN 16931 computes it, amounts in the domestic currency, the
// consistency of amounts a supplier states, and due dates. Amounts are
// shopspring/decimal throughout; nothing passes through a float, and no
// division is made without its precision.
//
// The package holds these rules, the invoice record with its create,
// update, delete and status-change rules, the Service and its stores,
// balances and sheets, default configurations, the file pipeline, the
// finance documents export, and the tenants of business partners that the
// -own privileges see (PartnerTenants, Scope).
//
// Service is the front door: invoices over a Store, and the parts it is
// built with (Options: balances, sheets, files and their blobs, the
// documents export, the partners' tenants, and the operator's reference
// data: partner records, the export's data, stored configurations), each
// a store of its own. An
// operation of a part the Service lacks is Unavailable (CodeNotServed);
// HasBalances and the other Has methods tell which parts it has.
// adapters/httpapi/financeapi serves the Service over HTTP, and a Go
// program calling it gets the same answers.
//
// # Rounding
//
// Every amount is in its currency's minor unit (ISO 4217: EUR 2 decimals,
// JPY 0, KWD 3). Halves round away from zero, the same for negative
// amounts as for positive ones (-20.825 EUR is -20.83), so a credit note
// is the exact negative of the invoice it reverses.
//
// # Totals (EN 16931, BR-CO-17)
//
// Each item's amount, quantity times price, is rounded first. VAT is then
// computed once per document and rate, from the sum of that rate's
// rounded amounts, never per item (six nets of 1.99, 0.38, 5.68, 0.45,
// 1.05 and 2.87 at 10 % give VAT 1.24, where rounding per item would give
// 1.26):
//   - net prices (vatInPrice 0): vat = round(net * rate);
//   - gross prices (vatInPrice 1): net = round(gross / (1 + rate)), the
//     division rounded exactly on its remainder, and vat = gross - net
//     (24.99 at 20 % is 20.83 + 4.16).
//
// amountNoVat and vat are the sums over the rates, amountVat = amountNoVat
// + vat, and total = amountVat unless the document asks for cash
// rounding: then total is amountVat rounded to the currency's cash step
// (CHF 0.05: 1149.99 becomes 1150.00) and rounding = total - amountVat
// (0.01). vat = amountVat - amountNoVat and rounding = total - amountVat
// always hold.
//
// Domestic-currency amounts convert the net, gross and total each at the
// rate and round them to the domestic currency's minor unit; the domestic
// rounding is the difference of the converted total and gross.
//
// # Supplier invoices' stated amounts
//
// A supplier invoice states amountNoVat, amountVat and total. CheckGiven
// refuses, naming the fields: more decimals than the currency has; amounts
// of opposite signs; a VAT of the other sign than the amounts; a total
// that differs from amountVat by more than half the currency's cash step
// (any difference in a currency without one); and, when items come with
// the invoice, amounts other than the items' totals. The VAT itself is
// not recomputed from a rate: suppliers' own rounding is theirs to state.
//
// # Due dates
//
// invDate and deliveryDate default to today. invDueDate wins over
// invDueDateDays, which counts calendar days from invDate (2025-01-31 + 30
// days is 2025-03-02); creating an invoice without either is an error. An
// update without either sets invDueDate and deliveryDate to invDate, as the
// documents say, and is the one case where the due date may equal the
// delivery date: a due date that the request gives or counts must fall
// after the delivery date.
//
// # Invoices
//
// Create, Update and Delete apply the documents' rules to an Invoice and
// return the record to store (see each for the list). Where the documents
// are silent: status may be draft or approved on create (supplier
// invoices approved by default, others draft), and an update may move a
// draft to approved, nothing else (the other moves are not shown); items
// sent with an update replace the invoice's items; vatPercent is accepted
// on create as the rate of items that give none, and an update's
// vatPercent applies to the items it sends without a rate; a change of
// vatInPrice without items converts the stored prices between net and
// gross at their rates (4 decimals), so the invoice bills the same;
// classification and payment are create-only, and an update that sends
// other values is refused naming them; the business partner does not
// change. A payment marked fullyPaid closes the invoice (totalPaid =
// total); an approved invoice is otherwise open and a draft none.
//
// A deleted invoice is not found (INVOICE_NOTFOUND) by updates, deletes
// and status changes. SetSyncStatus takes the sync statuses none, waiting,
// syncing, done, error, misc, invalid and exported for one invoice, and
// all but done and invalid in a change of many; a value that is no sync
// status is UNKNOWN_STATUS, one this change may not set INVALID_VALUE.
// SetDeliveryStatus takes none, waiting, sending, sent, error and misc.
//
// invUid, which the documents leave unspecified, is a random version-4
// UUID that the Service picks for each invoice it creates
// (Options.NewUUID, so tests can inject their own). Updates, deletes and
// status changes never alter it, and stores keep the one they were given
// (a Store refuses an invoice without one as Invalid and a second invoice
// with the same one as Conflict). It is also the finance documents'
// documentUuid and the balance sheet records' documentUuId; the invoice
// listing filters and sorts on it, and q searches it.
//
// # Invoice answers and the invoice listing
//
// An invoice is answered and listed as its View: the invoice and what
// ViewOf computes beside it from the operator data the finance documents
// export reads (the store's InvoiceData, or the listing itself), so that
// an invoice answer and its document never disagree: invTypeName and
// selfBilling from the type (PutDocumentType), ownerBpName and
// ownerBpBriefName from the stored partner whose id is ownerId,
// externalRefId from the partner's export data, the domestic currency and
// amounts from the document's domestic rate, overDueDate (the days an
// open or on-hold invoice is past its due date, today in the Service's
// zone; 0 otherwise), and the netting statement's and collection lead's
// number, statuses and totals for a member.
//
// The listing (InvoiceSpec) filters and sorts by every attribute the
// documents list for either, each with every operator of the listing
// convention; a value the invoice does not have (no statement, no owner,
// an empty text) is null, which isnull finds. dtsSelectorId is 1 for
// PART-PAYMENT, 0 for a POSTPAID invoice without a selector (the value
// the documents give for postpaid invoices paid in one), null otherwise.
// q searches custName, customerShortName, invUid, ownerBpBriefName,
// ownerBpName and status (contains, case-insensitively) and ownerId
// (equal, when q is a number).
//
// The workflow values the documents filter by but leave open are kept
// as requests set them, each from a list of this package's choosing (a
// value outside it is Invalid, naming the field; an empty string clears
// it): processingStatus (ProcessingStatuses: none, scheduled, running,
// done, error; none on a new invoice), disputeStatus (DisputeStatuses,
// dated in disputeStatusDate when it changes), invoicingDatePolicy
// (InvoicingDatePolicies) and syncMode (SyncModes; disabled on a new
// invoice). ownerId, on create and update, names a stored partner (0:
// the operator itself).
//
// # Membership: netting statements and collections
//
// The invoice record names the groups an invoice is in (nettingInvoiceId,
// collectionLeadId, collectionMode) and the listing filters on them;
// Service.SetGroup is the one operation that changes them, a Group kind
// at a time, in one atomic step of the Store (Store.SetMembership reads
// and writes the member, the group it leaves and the group it joins
// together). Where the documents are silent:
//   - netting: any invoice but a statement joins a netting statement (an
//     invoice of class NETTING_INVOICE) of its own business partner
//     (custID) and currency, since netting sets what one partner owes
//     against what it is owed in one currency;
//   - collection: a credit or debit note joins a lead invoice of its side
//     (a CREDIT_DEBIT_NOTE a CUSTOMER_INVOICE, a SUPPLIER_CR_DB_NOTE a
//     SUPPLIER_INVOICE) of its partner and currency; it becomes
//     collectionMode member, and the lead collectionMode lead while it has
//     members, none again when its last leaves. A lead's amounts are its
//     own;
//   - an invoice is in one group of each kind at most: joining another
//     while in one is Conflict (already_member), not a move; it leaves
//     first. Joining the group it is in, or leaving when it is in none,
//     changes nothing and succeeds, so a retried request does no harm;
//   - a netting statement's amounts (amountNoVat, amountVat, vat,
//     rounding, total, totalPaid, totalUnpaid) are the sum of its
//     members', customer-side documents (ClassDomain) as they are and
//     supplier-side ones negated: the net the partner owes, negative when
//     it is owed. They are set again at every join and leave, so a
//     statement is created with no items nor amounts (zero, the sum of
//     none), and an update sends it none;
//   - a statement is closed when its paymentStatus is closed or its status
//     is anything but draft (StatementClosed): no member joins or leaves
//     it (Conflict, statement_closed). Its status moves on only through an
//     update, which waits for a move in progress, so its amounts are those
//     of the members it is closed with;
//   - a member, of either kind, is neither updated nor deleted
//     (invoice_not_editable): its amounts are in its statement's. A
//     deleted invoice is no member and no group: a deleted statement or
//     lead takes no member, and its members may leave it (its amounts and
//     mode are then left as they were);
//   - the member must be in the caller's scope (else INVOICE_NOTFOUND),
//     and so must the group, its partner and its class: a group out of
//     scope, unknown or deleted is Invalid (invalid_membership) naming
//     nettingInvoiceId or collectionLeadId, as an unknown custID is. A
//     member that may not join is Invalid naming invoiceid.
//
// # Default configuration
//
// DefaultConfig picks, from operator data (SeedConfigs to start with),
// the invoice type and template for a domain, data source and class, a
// collection code (default none), a selector and a co-owner (0: the
// operator's own), all of which must match. The template is the one in
// the asked language (default en); without one, the English template,
// else the first by language code, and templateLang says which. Supplier
// invoices have no template.
//
// Configurations come from two places: the built-in ones
// (Options.Configs, SeedConfigs when nil), fixed at start, and those an
// operator puts at run time (Service.PutConfig into a ConfigStore, one per
// type and template language). Service.DefaultConfig asks the stored ones
// first: when any of them answers the query, it is the answer, so an
// operator's configuration of a domain, data source and class wins over
// the seed's; only a query none of them answers falls back to the
// built-in ones. Putting a configuration also records its type's name and
// self-billing as the export's document type, in the same atomic step, so
// the export's documentTypeName and the balances' type groupings agree
// with it.
//
// # Reference data
//
// What invoices and the export read about the operator's world is
// operator data, put through the Service and checked there: business
// partners (Service.PutPartner: the data an invoice copies when it names
// the partner, as custID or as ownerId, the partner's export data and the
// tenant it is linked to, stored as one record by a PartnerStore,
// CheckPartnerRecord), billing accounts and the source records that belong
// to them, document types, a document's domestic rate and its traffic
// reports (through an ExportStore; the last two only for an invoice that
// exists and is not deleted). Every put creates or replaces, so it may be
// repeated. Reference data is no tenant's: the HTTP layer serves it to the
// operator's privilege only.
//
// # Balances and sheets
//
// Balances sum, per partner and currency (never mixing currencies) and
// the grouping attributes asked for, the documents that count: approved,
// archived and imported ones (drafts, rejected, canceled and deleted
// documents do not). Customers' balances sum the customer classes,
// suppliers' the supplier invoices and notes. All 13 of the documents'
// grouping attributes group, each by what the invoice keeps:
//   - domainId/domainCodeName, docClassId/docClassCodeName and
//     dataSourceId/dataSourceCodeName are the invoice's codes (ids 1, 2, …
//     in the documents' order of the codes; null for another code);
//   - docClassDomain (customer or supplier) and docClassArea (invoice,
//     note, netting or control) are those of its class, as the finance
//     documents export names them (null for another class); a side's
//     balances have one docClassDomain, so it adds the attribute and
//     splits nothing;
//   - documentTypeId is its invType; documentTypeName and
//     documentTypeSelfBilling (yes or no) are of that type as the store
//     keeps it for the export (PutDocumentType). Types of the same name
//     group together; a type the store does not know has a null name,
//     and all such documents group together, and is not self-billing (no);
//   - documentTypeDtsSelectorCodeName and documentTypeDtsSelectorId are
//     the invoice's data source selector: PART-PAYMENT and 1, the one
//     selector, or null for none.
//
// A group's values are those of its first document. Grouping attributes
// filter and sort only balances grouped by them.
// With asOf, unpaid totals are also split into aging buckets by due date
// (not yet due, 1-30, 31-60, 61-90, 91-120 and more than 120 days late).
// A balance names its partner as its most recent document does. Amounts
// are exact sums, with as many decimals as the document with most.
// Filters and sorts use the record's fields, amounts spelled amountNovat
// as the documents do, and equality (eq, in) is refused on amounts.
// Sheets list a partner's counted documents of one side by document date
// (startDate..endDate, both included) then id, descending with dir=desc.
//
// # Files
//
// An invoice file (the multipart field supplierInvoice) is .pdf, .doc,
// .docx, .xls, .xlsx, .jpg, .jpeg or .png, in any case, and at most
// MaxFileSize bytes: 10 MB read as 10 × 2^20 = 10,485,760. Receive streams
// it into a BlobStore; it never holds a whole file in memory, and it
// stops reading at byte MaxFileSize+1. It refuses (Invalid, invalid_file,
// naming supplierInvoice) an empty file and content that is not what its
// extension says:
//   - .pdf begins with %PDF-; .jpg and .jpeg with FF D8 FF; .png with the
//     PNG signature;
//   - .docx and .xlsx are ZIP files whose central directory lists
//     word/document.xml or xl/workbook.xml (part names in any case). The
//     directory is read from the last 128 KiB, kept as the file streams
//     by: no second read, no temporary file. A directory larger than that
//     (over about 1,500 entries; Office writes a few dozen) is refused;
//   - .doc and .xls are OLE2 compound files holding, at the root,
//     WordDocument (Word) or Workbook or Book (Excel 97-2003, 5/95). Word
//     and Excel are told apart, and other compound files (installers,
//     Outlook messages, PowerPoint) are refused. A stream of an embedded
//     object is not at the root, so a Word file with an Excel chart is a
//     Word file. The FAT and the directory are read back from the store in
//     file order (at most three passes). RTF or HTML saved as .doc or
//     .xls is refused.
//
// Package finance/officefile checks the structures; this package keeps
// the rules of the upload (formats, size, refusals) and the store.
//
// The signature is checked before anything is stored. A file refused
// after storing is deleted; a failed Put stores nothing (the BlobStore
// contract). The record keeps the client's base name (filename, without
// the path some browsers send); storage uses a cleaned name (fsFilename):
// control and invisible formatting characters and <>:"/\|?* become _,
// leading and trailing dots and spaces go, Windows device names get a _
// before them, the extension is in lower case, and the whole fits in 255
// bytes. Blob keys are the caller's (CheckBlobKey): lower-case ASCII
// letters, digits, - _ . and / between segments. adapters/blobfs keeps
// blobs in a directory, adapters/pgstore in PostgreSQL.
//
// # JSON
//
// Amount writes an amount as a JSON number with exactly its currency's
// decimals (1.50, not 1.5 nor "1.50") and reads one exactly.
//
// # Finance documents
//
// The export shows each invoice that is not
// deleted, of the partners in scope, as a Document, made by DocumentOf
// from the invoice and the operator data an ExportStore keeps (billing
// accounts, which account each billing and credit record belongs to,
// traffic reports, partners' export data, invoice types, domestic
// rates). Where the documents are silent:
//   - documentNumber is invNumberFix; its last run of ASCII digits is
//     documentNumberNum (leading zeros dropped; null when there are no
//     digits or more than 18 significant ones) and documentNumberMask is
//     the number with those digits replaced by # (INV-2026/000123:
//     INV-2026/###### and 123). documentUuid is invUid, note the
//     comment, documentDate invDate, dueDate invDueDate, periodStart and
//     periodEnd invPeriodStart and invPeriodEnd;
//   - documentTypeName and selfBilling (yes or no; no for a type the
//     store does not know) come from the invoice type (PutDocumentType,
//     as InvoiceConfig names types); ownerBpName and ownerBpBriefName
//     from the stored partner whose id is ownerId; bizPartnerExternalRefId
//     and the partner's customAttributes from PutPartnerExport; the rest
//     of bizPartner is the invoice's partner data;
//   - documentClassDomain is customer or supplier (Class.Side);
//     documentClassArea is invoice, note, netting or control;
//     domainId and dataSourceId are the codes' ids (1, 2, … as balances
//     number them), null for other codes;
//   - the domestic amounts exist when the document has a domestic rate
//     (PutDomestic): net, gross and total converted and rounded to the
//     domestic currency as ToDomestic does, from the invoice's current
//     amounts; without one, every domestic attribute is null;
//   - paymentStatusDate is 00:00 UTC of the payment date recorded with
//     the invoice, null without one: no time of other payment status
//     changes is kept. disputeStatus filters and sorts by the invoice's
//     (no field of the document shows it);
//   - dataSource follows the data source rules (RecordKindOf): a billing record for
//     POSTPAID without a selector and POSTPAID-CONTROL, a credit record
//     for POSTPAID with PART-PAYMENT and PREPAID, with the invoice's
//     source record of that kind (none: null), and billingTotalBalance
//     the record's billing account without connections (null when the
//     record's account is not known). Billing and credit records number
//     apart;
//   - items have no id of their own: an item's id is its ordNum (1, 2, …),
//     unique within its document. Its dataSourceId is its own, else the
//     document's; its selector the document's. Its dataSource is the
//     record its dataSourceForeignKey names, when the key is a record id
//     (a positive integer in canonical decimal) and its data source names
//     a kind of record by the rule above; billingAccount shows the
//     smsConnections of a BULK document, the mnpConnections of a BULK-MNP
//     one, and none in another domain; a POSTPAID-CONTROL document's
//     connections, the supplier's, show only id and name (and instanceId
//     for MNP);
//   - embed=trafficReports embeds the document's rows (PutTrafficReports,
//     in the order put) into customer invoices of POSTPAID and control
//     invoices of POSTPAID-CONTROL, an empty list when there are none;
//     other documents never carry them. Any other embed is Invalid,
//     naming embed; an empty embed embeds nothing;
//   - custom attributes' values are a JSON string or a JSON object, kept
//     byte for byte; anything else is refused (invalid_export_data). Lists
//     of a document (items, custom attributes, the connections of its
//     domain) are empty, never null;
//   - q searches, case-insensitively as the contains operator,
//     bizPartnerBriefName, bizPartnerExternalRefId, bizPartnerName,
//     bizPartnerVatNumber, documentNumber, documentUuid,
//     ownerBpBriefName, ownerBpName and status;
//   - every attribute of the export's listing filters with every operator its type takes
//     and sorts (then by id); page_size defaults to 10 and above 50 is
//     refused, not cut.
package finance
