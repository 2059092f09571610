package finance

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
)

// Options configure a Service.
type Options struct {
	Clock msgkit.Clock // time.Now when nil
	// NewUUID makes the invUid of each invoice created; nil draws random
	// (version 4) UUIDs.
	NewUUID  func() string
	Location *time.Location // the zone of "today" for default dates; UTC when nil
	Logger   *slog.Logger
	// Configs are the built-in default invoice configurations;
	// SeedConfigs when nil. ConfigStore's, when there, are asked first
	// (see DefaultConfig).
	Configs []InvoiceConfig

	// The parts a Service may be built without: each nil leaves its
	// operations answering Unavailable (CodeNotServed), and the Has
	// methods tell which are there.

	// Balances sums balances (Service.Balances).
	Balances BalanceStore
	// Sheets lists balance sheets (Service.Sheet).
	Sheets SheetStore
	// Files keeps the records of invoice files, Blobs their bytes
	// (Service.Upload, Service.Files); files are served with both.
	Files FileStore
	Blobs BlobStore
	// Documents lists the finance documents export (Service.Documents).
	Documents DocumentStore
	// Tenants links partners to tenants, which a caller with an -own
	// privilege sees (Service.ScopeFor); nil: such a caller sees no
	// partner's documents.
	Tenants PartnerTenants
	// Partners keeps business partners as operator data, with their
	// export data and tenant (Service.PutPartner, Partner, Partners).
	Partners PartnerStore
	// Export keeps the rest of the export's operator data: billing
	// accounts, source records, document types, domestic rates and
	// traffic reports (Service.PutBillingAccount and the like).
	Export ExportStore
	// ConfigStore keeps the configurations an operator adds at run time
	// (Service.PutConfig).
	ConfigStore ConfigStore
}

// Service runs the invoice operations over a Store: each reads what it
// needs, applies the rules of this package and stores the result in one
// atomic step.
type Service struct {
	store     Store
	balances  BalanceStore
	sheets    SheetStore
	files     FileStore
	blobs     BlobStore
	documents DocumentStore
	tenants   PartnerTenants
	partners  PartnerStore
	export    ExportStore
	stored    ConfigStore
	configs   []InvoiceConfig
	now       msgkit.Clock
	newUUID   func() string
	loc       *time.Location
	log       *slog.Logger
}

// NewService returns a Service over store.
func NewService(store Store, o Options) *Service {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NewUUID == nil {
		o.NewUUID = uuid.NewString
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Configs == nil {
		o.Configs = SeedConfigs()
	}
	return &Service{store: store, balances: o.Balances, sheets: o.Sheets, files: o.Files, blobs: o.Blobs,
		documents: o.Documents, tenants: o.Tenants, partners: o.Partners, export: o.Export, stored: o.ConfigStore, configs: slices.Clone(o.Configs), now: o.Clock, newUUID: o.NewUUID, loc: o.Location, log: o.Logger}
}

func (s *Service) clock() (msgkit.Date, time.Time) {
	now := s.now().UTC()
	return msgkit.DateOf(now.In(s.loc)), now
}

// Today is the date now in the Service's zone (Options.Location): the
// day default dates start from and invoices fall overdue after.
func (s *Service) Today() msgkit.Date {
	today, _ := s.clock()
	return today
}

// CodeNotServed is the code of an operation whose part the Service was
// built without (Unavailable): see Options.
const CodeNotServed = "not_served"

func notServed(what string) error {
	return msgkit.Errorf(msgkit.Unavailable, CodeNotServed, "this finance service was built without %s", what)
}

// HasBalances reports whether the Service sums balances (Options.Balances).
func (s *Service) HasBalances() bool { return s != nil && s.balances != nil }

// HasSheets reports whether the Service lists balance sheets
// (Options.Sheets).
func (s *Service) HasSheets() bool { return s != nil && s.sheets != nil }

// HasFiles reports whether the Service keeps invoice files
// (Options.Files and Options.Blobs).
func (s *Service) HasFiles() bool { return s != nil && s.files != nil && s.blobs != nil }

// HasDocuments reports whether the Service lists the finance documents
// export (Options.Documents).
func (s *Service) HasDocuments() bool { return s != nil && s.documents != nil }

// ScopeFor is the scope of a caller: every partner's documents when all
// (it holds an all privilege), else those of the partners linked to
// services, the caller's tenants (none without Options.Tenants).
func (s *Service) ScopeFor(ctx context.Context, all bool, services []msgkit.ServiceUUID) (Scope, error) {
	if all {
		return Scope{All: true}, nil
	}
	if s.tenants == nil || len(services) == 0 {
		return Scope{}, nil
	}
	return OwnScope(ctx, s.tenants, services)
}

// Balances lists the balances of the partners in scope as o says,
// filtered, sorted and paged by q over BalanceSpec; o's group and q are
// checked first (CheckGroup, CheckBalanceQuery).
func (s *Service) Balances(ctx context.Context, scope Scope, o BalanceOptions, q msgkit.ListQuery) (msgkit.Page[Balance], error) {
	if s.balances == nil {
		return msgkit.Page[Balance]{}, notServed("balances")
	}
	if err := CheckGroup(o.Group); err != nil {
		return msgkit.Page[Balance]{}, err
	}
	if err := CheckBalanceQuery(q, o.Group); err != nil {
		return msgkit.Page[Balance]{}, err
	}
	return s.balances.Balances(ctx, scope, o, q)
}

// Sheet lists a partner's balance sheet as o says (nothing for a partner
// out of scope), filtered, sorted and paged by q over SheetSpec. An end
// before the start is Invalid.
func (s *Service) Sheet(ctx context.Context, scope Scope, o SheetOptions, q msgkit.ListQuery) (msgkit.Page[SheetRow], error) {
	if s.sheets == nil {
		return msgkit.Page[SheetRow]{}, notServed("balance sheets")
	}
	if err := o.Check(); err != nil {
		return msgkit.Page[SheetRow]{}, err
	}
	if err := CheckBalanceQuery(q, nil); err != nil {
		return msgkit.Page[SheetRow]{}, err
	}
	return s.sheets.Sheet(ctx, scope, o, q)
}

// Documents lists the finance documents of the partners in scope as q
// says (see DocumentStore).
func (s *Service) Documents(ctx context.Context, scope Scope, q DocumentQuery) (msgkit.Page[Document], error) {
	if s.documents == nil {
		return msgkit.Page[Document]{}, notServed("the finance documents export")
	}
	return s.documents.Documents(ctx, scope, q)
}

// CodeClassNotManaged is the code of a create of a class the caller's
// privileges do not manage (Forbidden). Changes to an existing document
// of such a class are not found instead, as documents out of scope are.
const CodeClassNotManaged = "class_not_managed"

// notFound is the error of an invoice that is unknown, deleted or out of
// the caller's scope: all three look alike, so no caller learns that
// another's invoice exists.
func notFound(id InvoiceID) error {
	return msgkit.Errorf(msgkit.NotFound, CodeInvoiceNotFound, "invoice %d not found", id)
}

// Create creates an invoice of class for a partner in scope, its invUid
// a new UUID from Options.NewUUID that no update or status change alters.
func (s *Service) Create(ctx context.Context, scope Scope, class Class, in Input) (Invoice, error) {
	if len(scope.Classes) > 0 && !slices.Contains(scope.Classes, class) {
		return Invoice{}, msgkit.Errorf(msgkit.Forbidden, CodeClassNotManaged, "the caller's privileges do not manage %s documents", class)
	}
	var partner Partner
	if in.CustID != nil {
		if !scope.Sees(*in.CustID) {
			return Invoice{}, msgkit.Invalidf(CodeInvalidInvoice, "custID", "business partner %d not found", *in.CustID)
		}
		p, err := s.store.Partner(ctx, *in.CustID)
		if err != nil {
			if msgkit.KindOf(err) == msgkit.NotFound {
				return Invoice{}, msgkit.Invalidf(CodeInvalidInvoice, "custID", "business partner %d not found", *in.CustID)
			}
			return Invoice{}, err
		}
		partner = p
	}
	if err := s.checkOwner(ctx, in.OwnerID); err != nil {
		return Invoice{}, err
	}
	today, now := s.clock()
	inv, err := Create(in, class, partner, today, now)
	if err != nil {
		return Invoice{}, err
	}
	inv.UID = s.newUUID()
	return s.store.CreateInvoice(ctx, inv)
}

// Get returns an invoice in scope that is not deleted.
func (s *Service) Get(ctx context.Context, scope Scope, id InvoiceID) (Invoice, error) {
	inv, err := s.store.Invoice(ctx, id)
	switch {
	case msgkit.KindOf(err) == msgkit.NotFound:
		return Invoice{}, notFound(id)
	case err != nil:
		return Invoice{}, err
	case inv.Status == Deleted || !scope.Covers(&inv):
		return Invoice{}, notFound(id)
	}
	return inv, nil
}

// change runs rule on an invoice in scope, atomically.
func (s *Service) change(ctx context.Context, scope Scope, id InvoiceID, rule func(Invoice) (Invoice, error)) (Invoice, error) {
	inv, err := s.store.UpdateInvoice(ctx, id, func(stored Invoice) (Invoice, error) {
		if stored.Status == Deleted || !scope.Covers(&stored) {
			return stored, notFound(id)
		}
		return rule(stored)
	})
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Invoice{}, notFound(id)
	}
	return inv, err
}

// Update applies an update request (see Update).
func (s *Service) Update(ctx context.Context, scope Scope, id InvoiceID, in Input) (Invoice, error) {
	if err := s.checkOwner(ctx, in.OwnerID); err != nil {
		return Invoice{}, err
	}
	today, now := s.clock()
	return s.change(ctx, scope, id, func(stored Invoice) (Invoice, error) { return Update(stored, in, today, now) })
}

// Delete deletes an invoice logically (see Delete).
func (s *Service) Delete(ctx context.Context, scope Scope, id InvoiceID) error {
	_, now := s.clock()
	_, err := s.change(ctx, scope, id, func(stored Invoice) (Invoice, error) { return Delete(stored, now) })
	return err
}

// SetSyncStatus changes one invoice's sync status.
func (s *Service) SetSyncStatus(ctx context.Context, scope Scope, id InvoiceID, c SyncChange) (Invoice, error) {
	_, now := s.clock()
	return s.change(ctx, scope, id, func(stored Invoice) (Invoice, error) { return SetSyncStatus(stored, c, false, now) })
}

// SyncResult is the outcome for one invoice of a change of many: OK, or
// the error.
type SyncResult struct {
	ID       string
	OpStatus string // "OK" or "ERROR"
	Err      error
}

// SetSyncStatusMany changes the sync status of each invoice, one by one:
// one that fails does not stop the others, and each gets its result.
func (s *Service) SetSyncStatusMany(ctx context.Context, scope Scope, ids []InvoiceID, c SyncChange) []SyncResult {
	_, now := s.clock()
	out := make([]SyncResult, 0, len(ids))
	for _, id := range ids {
		_, err := s.change(ctx, scope, id, func(stored Invoice) (Invoice, error) { return SetSyncStatus(stored, c, true, now) })
		r := SyncResult{ID: strconv.FormatInt(int64(id), 10), OpStatus: "OK", Err: err}
		if err != nil {
			r.OpStatus = "ERROR"
		}
		out = append(out, r)
	}
	return out
}

// SetDeliveryStatus changes an invoice's docs delivery status.
func (s *Service) SetDeliveryStatus(ctx context.Context, scope Scope, id InvoiceID, status string) (Invoice, error) {
	_, now := s.clock()
	return s.change(ctx, scope, id, func(stored Invoice) (Invoice, error) { return SetDeliveryStatus(stored, status, now) })
}

// List lists the invoices in scope (see Store.ListInvoices).
func (s *Service) List(ctx context.Context, scope Scope, q msgkit.ListQuery) (msgkit.Page[View], error) {
	return s.store.ListInvoices(ctx, q, scope, s.Today())
}

// Views are the views of invs (ViewOf) today, in their order, for the
// answers of the operations that return invoices.
func (s *Service) Views(ctx context.Context, invs ...Invoice) ([]View, error) {
	data, err := s.store.InvoiceData(ctx, invs)
	if err != nil {
		return nil, err
	}
	today := s.Today()
	out := make([]View, len(invs))
	for i := range invs {
		out[i] = ViewOf(&invs[i], data[i], today)
	}
	return out, nil
}

// checkOwner refuses an owner (ownerId) that is no stored partner; 0 is
// the operator itself.
func (s *Service) checkOwner(ctx context.Context, owner *int64) error {
	if owner == nil || *owner == 0 {
		return nil
	}
	if *owner < 0 {
		return msgkit.Invalidf(CodeInvalidInvoice, "ownerId", "a business partner id, not %d", *owner)
	}
	_, err := s.store.Partner(ctx, *owner)
	if msgkit.KindOf(err) == msgkit.NotFound {
		return msgkit.Invalidf(CodeInvalidInvoice, "ownerId", "business partner %d not found", *owner)
	}
	return err
}

// DefaultConfig answers a default configuration query (see
// DefaultConfig): from the stored configurations (Options.ConfigStore)
// when one of them answers it, else from the built-in ones
// (Options.Configs), so an operator's configuration of a domain, data
// source and class wins over the seed's.
func (s *Service) DefaultConfig(ctx context.Context, q ConfigQuery) (InvoiceConfig, error) {
	if s.stored != nil {
		stored, err := s.stored.Configs(ctx)
		if err != nil {
			return InvoiceConfig{}, err
		}
		c, err := DefaultConfig(stored, q)
		if msgkit.KindOf(err) != msgkit.NotFound {
			return c, err
		}
	}
	return DefaultConfig(s.configs, q)
}
