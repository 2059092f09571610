package adminapi

import (
	"encoding/csv"
	"iter"
	"net/http"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/sms"
)

// priceJSON is a price line: money as a decimal string, never a float;
// days as YYYY-MM-DD, null for an open end.
type priceJSON struct {
	Prefix    string          `json:"prefix"`
	Price     decimal.Decimal `json:"price"`
	ValidFrom *msgkit.Date    `json:"validFrom"`
	ValidTo   *msgkit.Date    `json:"validTo"`
}

// accountJSON is a bulk SMS account as the administration shows it:
// never its password hash.
type accountJSON struct {
	Username               string              `json:"username"`
	Tenant                 string              `json:"tenant"`
	Enabled                bool                `json:"enabled"`
	Networks               []string            `json:"networks"`
	Balance                decimal.Decimal     `json:"balance"`
	CreditLimit            decimal.Decimal     `json:"creditLimit"`
	Currency               string              `json:"currency"`
	Validity               string              `json:"validity"`
	Throughput             int                 `json:"throughput"`
	MaxParts               int                 `json:"maxParts"`
	BlacklistedSenderWords map[string][]string `json:"blacklistedSenderWords"`
	Prices                 []priceJSON         `json:"prices"`
	InboundURL             string              `json:"inboundUrl"`
	CreatedAt              time.Time           `json:"createdAt"`
}

func accountOf(a sms.Account) accountJSON {
	out := accountJSON{Username: a.Username, Tenant: string(a.Tenant), Enabled: a.Enabled, Networks: make([]string, len(a.Networks)),
		Balance: a.Balance, CreditLimit: a.CreditLimit, Currency: a.Currency, Throughput: a.Throughput, MaxParts: a.MaxParts,
		BlacklistedSenderWords: a.BlacklistedSenderWords, Prices: make([]priceJSON, len(a.Prices)), InboundURL: a.InboundURL, CreatedAt: a.CreatedAt}
	for i, n := range a.Networks {
		out.Networks[i] = n.String()
	}
	if a.Validity > 0 {
		out.Validity = a.Validity.String()
	}
	if out.BlacklistedSenderWords == nil {
		out.BlacklistedSenderWords = map[string][]string{}
	}
	for i, p := range a.Prices {
		out.Prices[i] = priceJSON{Prefix: p.Prefix, Price: p.Price}
		if !p.ValidFrom.IsZero() {
			out.Prices[i].ValidFrom = &p.ValidFrom
		}
		if !p.ValidTo.IsZero() {
			out.Prices[i].ValidTo = &p.ValidTo
		}
	}
	return out
}

// pricesOf reads price lines; their rules are sms.CheckPrices'.
func pricesOf(in []priceJSON) []sms.Price {
	out := make([]sms.Price, len(in))
	for i, p := range in {
		out[i] = sms.Price{Prefix: p.Prefix, Price: p.Price}
		if p.ValidFrom != nil {
			out[i].ValidFrom = *p.ValidFrom
		}
		if p.ValidTo != nil {
			out[i].ValidTo = *p.ValidTo
		}
	}
	return out
}

// validityOf reads a validity: a Go duration ("24h"); "" the default.
func validityOf(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, msgkit.Invalidf(sms.CodeAccountInvalid, "validity", "validity %s is not a duration such as 24h", msgkit.QuoteValue(s))
	}
	return d, nil
}

// accountInput is a create body.
type accountInput struct {
	Username               string              `json:"username"`
	Password               string              `json:"password"`
	Tenant                 string              `json:"tenant"`
	Enabled                *bool               `json:"enabled"`
	Networks               []string            `json:"networks"`
	CreditLimit            decimal.Decimal     `json:"creditLimit"`
	Currency               string              `json:"currency"`
	Validity               string              `json:"validity"`
	Throughput             int                 `json:"throughput"`
	MaxParts               int                 `json:"maxParts"`
	BlacklistedSenderWords map[string][]string `json:"blacklistedSenderWords"`
	Prices                 []priceJSON         `json:"prices"`
	InboundURL             string              `json:"inboundUrl"`
}

func (a *api) createAccount(w http.ResponseWriter, r *http.Request) error {
	var in accountInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	nets, err := auth.ParseNetworks("networks", in.Networks)
	if err != nil {
		return err
	}
	validity, err := validityOf(in.Validity)
	if err != nil {
		return err
	}
	if len(in.Currency) != 3 {
		return msgkit.Invalidf(sms.CodeAccountInvalid, "currency", "currency is an ISO 4217 code such as EUR")
	}
	enabled := in.Enabled == nil || *in.Enabled
	acct, err := a.b.Accounts.Create(a.ctx(r), sms.AccountSpec{Password: in.Password, Account: sms.Account{
		Username: in.Username, Tenant: msgkit.ServiceUUID(in.Tenant), Enabled: enabled, Networks: nets, CreditLimit: in.CreditLimit,
		Currency: in.Currency, Validity: validity, Throughput: in.Throughput, MaxParts: in.MaxParts,
		BlacklistedSenderWords: in.BlacklistedSenderWords, Prices: pricesOf(in.Prices), InboundURL: in.InboundURL,
	}})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, accountOf(acct))
}

func (a *api) listAccounts(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, sms.AccountListSpec, func(q msgkit.ListQuery) (msgkit.Page[sms.Account], error) {
		return a.b.Accounts.List(r.Context(), q)
	}, accountOf)
}

func (a *api) getAccount(w http.ResponseWriter, r *http.Request) error {
	return one(w, r, "username", a.b.Accounts.Get, accountOf)
}

func (a *api) updateAccount(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Password               *string              `json:"password"`
		Tenant                 *string              `json:"tenant"`
		Enabled                *bool                `json:"enabled"`
		Networks               *[]string            `json:"networks"`
		CreditLimit            *decimal.Decimal     `json:"creditLimit"`
		Validity               *string              `json:"validity"`
		Throughput             *int                 `json:"throughput"`
		MaxParts               *int                 `json:"maxParts"`
		BlacklistedSenderWords *map[string][]string `json:"blacklistedSenderWords"`
		Prices                 *[]priceJSON         `json:"prices"`
		InboundURL             *string              `json:"inboundUrl"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ch := sms.AccountChange{Password: in.Password, Enabled: in.Enabled, CreditLimit: in.CreditLimit, Throughput: in.Throughput,
		MaxParts: in.MaxParts, BlacklistedSenderWords: in.BlacklistedSenderWords, InboundURL: in.InboundURL}
	if in.Tenant != nil {
		t := msgkit.ServiceUUID(*in.Tenant)
		ch.Tenant = &t
	}
	if in.Networks != nil {
		nets, err := auth.ParseNetworks("networks", *in.Networks)
		if err != nil {
			return err
		}
		ch.Networks = &nets
	}
	if in.Validity != nil {
		v, err := validityOf(*in.Validity)
		if err != nil {
			return err
		}
		ch.Validity = &v
	}
	if in.Prices != nil {
		p := pricesOf(*in.Prices)
		ch.Prices = &p
	}
	acct, err := a.b.Accounts.Update(a.ctx(r), r.PathValue("username"), ch)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, accountOf(acct))
}

// entryJSON is an entry of an account's credit ledger.
type ledgerEntryJSON struct {
	ID           int64            `json:"id"`
	Kind         sms.LedgerKind   `json:"kind"`
	Amount       decimal.Decimal  `json:"amount"`
	Currency     string           `json:"currency"`
	BalanceAfter *decimal.Decimal `json:"balanceAfter"`
	At           time.Time        `json:"at"`
	Actor        string           `json:"actor"`
	Note         string           `json:"note"`
	MessageID    string           `json:"messageId"`
}

func ledgerEntryOf(e sms.LedgerEntry) ledgerEntryJSON {
	out := ledgerEntryJSON{ID: e.ID, Kind: e.Kind, Amount: e.Amount, Currency: e.Currency, At: e.At, Actor: e.Actor, Note: e.Note, MessageID: string(e.MessageID)}
	if e.BalanceAfter.Valid {
		out.BalanceAfter = &e.BalanceAfter.Decimal
	}
	return out
}

// actorOf names the caller in ledger entries: "client:<id>" or
// "user:<name>".
func actorOf(r *http.Request) string {
	p, ok := httpapi.PrincipalFrom(r.Context())
	if !ok {
		return "system"
	}
	if p.Kind == auth.SubjectUser {
		return "user:" + p.Subject
	}
	return "client:" + p.Subject
}

func (a *api) addLedgerEntry(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Kind     sms.LedgerKind   `json:"kind"`
		Amount   *decimal.Decimal `json:"amount"`
		Currency string           `json:"currency"`
		Note     string           `json:"note"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if in.Amount == nil {
		return msgkit.Invalidf(sms.CodeLedgerInvalid, "amount", "amount is required")
	}
	ch := sms.Change{Account: r.PathValue("username"), Amount: *in.Amount, Currency: in.Currency, Actor: actorOf(r), Note: in.Note}
	var (
		e   sms.LedgerEntry
		err error
	)
	switch in.Kind {
	case sms.LedgerTopUp:
		e, err = a.b.Credit.TopUp(a.ctx(r), ch)
	case sms.LedgerAdjustment:
		e, err = a.b.Credit.Adjust(a.ctx(r), ch)
	default:
		return msgkit.Invalidf(sms.CodeLedgerInvalid, "kind", "kind is top_up or adjustment")
	}
	if err != nil {
		return ledgerError(err, ch.Account)
	}
	return httpapi.WriteJSON(w, http.StatusCreated, ledgerEntryOf(e))
}

// ledgerError words a ledger refusal for the administration: an unknown
// account as such, no credit as a conflict with the account's floor.
func ledgerError(err error, account string) error {
	switch {
	case msgkit.KindOf(err) == msgkit.NotFound:
		return sms.AccountNotFound(account)
	case sms.CodeOf(err) == sms.CodeNoCredit:
		return msgkit.Errorf(msgkit.Conflict, "below_credit_floor", "%s", msgkit.MessageOf(err))
	}
	return err
}

func (a *api) listLedger(w http.ResponseWriter, r *http.Request) error {
	account := r.PathValue("username")
	if _, err := a.b.Accounts.Get(r.Context(), account); err != nil {
		return err
	}
	return list(w, r, sms.LedgerListSpec(), func(q msgkit.ListQuery) (msgkit.Page[sms.LedgerEntry], error) {
		return a.b.Credit.Entries(r.Context(), account, q)
	}, ledgerEntryOf)
}

// exportLedger writes an account's entries with at in [from, to) as CSV
// (RFC 4180), streamed a page at a time: from and to are RFC 3339 times,
// from the first entry and to now when left out.
func (a *api) exportLedger(w http.ResponseWriter, r *http.Request) error {
	account := r.PathValue("username")
	q := r.URL.Query()
	from, to := time.Time{}, time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	for key := range q {
		if key != "from" && key != "to" {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes from and to", key)
		}
	}
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return msgkit.Invalidf(msgkit.CodeInvalidQuery, p.name, "%s must be an RFC 3339 time such as 2026-11-01T00:00:00Z", p.name)
			}
			*p.to = t
		}
	}
	if _, err := a.b.Accounts.Get(r.Context(), account); err != nil {
		return err
	}
	next, stop := iter.Pull2(a.b.Credit.Export(r.Context(), account, from, to))
	defer stop()
	first, err, ok := next()
	if ok && err != nil {
		return err // nothing written yet: the family's error body
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="ledger.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "at", "kind", "amount", "currency", "balance_after", "actor", "note", "message_id"})
	for e := first; ok; e, err, ok = next() {
		if err != nil {
			httpapi.LoggerFrom(r.Context()).ErrorContext(r.Context(), "ledger export cut short", "account", account, "err", err)
			break // the status is sent: the export ends early, and the log says why
		}
		after := ""
		if e.BalanceAfter.Valid {
			after = e.BalanceAfter.Decimal.String()
		}
		_ = cw.Write([]string{strconv.FormatInt(e.ID, 10), e.At.UTC().Format(time.RFC3339Nano), string(e.Kind), e.Amount.String(),
			e.Currency, after, e.Actor, e.Note, string(e.MessageID)})
	}
	cw.Flush()
	return nil
}

// discrepancyJSON is an account whose balance is not its ledger's sum.
type discrepancyJSON struct {
	Account    string          `json:"account"`
	Currency   string          `json:"currency"`
	Expected   decimal.Decimal `json:"expected"`
	Actual     decimal.Decimal `json:"actual"`
	Difference decimal.Decimal `json:"difference"`
}

// reconcile reports the accounts (one with ?account=, else all) whose
// balance differs from the sum of their ledger: {"data": [...]}, [] when
// every account reconciles.
func (a *api) reconcile(w http.ResponseWriter, r *http.Request) error {
	account := ""
	for key, vals := range r.URL.Query() {
		if key != "account" || len(vals) != 1 {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "this operation takes one account parameter at most")
		}
		account = vals[0]
	}
	ds, err := a.b.Credit.Reconcile(r.Context(), account)
	if err != nil {
		return err
	}
	out := struct {
		Data []discrepancyJSON `json:"data"`
	}{Data: make([]discrepancyJSON, len(ds))}
	for i, d := range ds {
		out.Data[i] = discrepancyJSON{Account: d.Account, Currency: d.Currency, Expected: d.Expected, Actual: d.Actual, Difference: d.Difference}
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}
