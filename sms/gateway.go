package sms

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/secret"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sync/singleflight"
)

// Message types of a submission.
const (
	TypeText = "text"
	TypeWSI  = "wsi"
)

// Limits of a submission the interface leaves open.
const (
	MaxCustomBytes = 4 << 10 // the custom object, echoed in every report
	MaxDLRURLBytes = 2048
)

// Submission is a bulk SMS request as the gateway
// takes it, whatever its transport.
type Submission struct {
	Type     string
	Username string
	Password string
	Sender   string
	Receiver string
	DCS      string
	Text     string
	URL      string
	Title    string
	// DLRMask is the requested mask; nil means 19 when DLRURL is given,
	// else 0 (no reports).
	DLRMask *int64
	DLRURL  string
	// DLRToBinds sends the reports the mask asks for to the account's
	// SMPP binds (BindURL) as delivery receipts, rather than to DLRURL,
	// which must then be empty: the SMPP server sets it for an ESME's
	// registered_delivery; the HTTP interface never does.
	DLRToBinds bool
	Flash      bool
	Custom     json.RawMessage // a JSON object or nothing
	// ClientIP is the address the request came from, for the account's
	// network allowlist.
	ClientIP netip.Addr
	// IdempotencyKey, when set, makes a retry of the submission act once
	// (see Submit); "" is no key, today's submission.
	IdempotencyKey idempotency.Key
	// ValidUntil, when set, ends the message's validity if it comes before
	// the account's (SMPP's validity_period); one not after the
	// submission is 112 (field validUntil). Zero: the account's validity.
	// The bulk SMS interface has no such field.
	ValidUntil time.Time
}

// Accepted is the answer to an accepted submission.
type Accepted struct {
	MsgID    MessageID
	NumParts int
	// Replayed: the submission's idempotency key was accepted before;
	// this is that acceptance, and nothing was accepted or charged now.
	Replayed bool
}

// IdempotencyKeeper keeps idempotency keys for the gateway;
// *idempotency.Service satisfies it.
type IdempotencyKeeper interface {
	Begin(ctx context.Context, req idempotency.Request) (idempotency.Claim, error)
	Finish(ctx context.Context, c idempotency.Claim, a idempotency.Answer) error
	Abandon(ctx context.Context, c idempotency.Claim) error
}

// GatewayOptions configure a Gateway. Zero values choose the defaults.
type GatewayOptions struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
	// BcryptCost hashes account passwords given to CreateAccount.
	BcryptCost int
	// RefWidth is the width of the concatenation reference the network
	// gives a long message's parts: gsm.Ref16 when it ties them by a
	// 16-bit reference (smpp.Config.RefWidth says), whose header is an
	// octet longer, so parts hold 152 septets or 66 UCS-2 units instead of
	// 153 or 67 and a message may need one part more. Default gsm.Ref8.
	RefWidth gsm.RefWidth
	// CredentialTTL is how long a verified password is remembered, so that
	// a busy account does not pay a bcrypt comparison per message, and how
	// long an account SubmitFor or Throughput read is, so that a campaign
	// does not read it per message; default one minute. Changed accounts
	// are seen after at most this long.
	CredentialTTL time.Duration
	// NewID makes the id of an accepted message; default a time-ordered
	// random UUID (NewMessageID). It is called by concurrent submissions
	// and must never repeat an id.
	// Tests inject a sequence so that answers and reports are golden.
	NewID func() MessageID
	// Transmitter, when set, is a transmitter of this process sending from
	// the same store: Submit leases the parts it queues to it, in the same
	// Accept, and hands them over in memory, so that they go out without a
	// claim from the store. They are rows of the queue all the same: if
	// the process dies, their lease runs out and any transmitter takes
	// them. When its buffer is full, parts are queued for a claim only.
	Transmitter *Transmitter
	// Dispatcher, when set, is a dispatcher of this process delivering
	// reports from the same store, which must be a ReportLeasingStore:
	// HandleStatuses leases the reports it queues to it, in the same
	// UpdateParts, and hands them over in memory, so that they go out
	// without a claim. They are pending reports of the outbox all the
	// same: if the process dies, their lease runs out and any dispatcher
	// claims them. While the dispatcher holds all it may (MaxHeld) or its
	// Run is not running, reports are queued for a claim only.
	Dispatcher *Dispatcher
	// Tenants tells which tenants are suspended: their accounts are
	// refused as disabled ones (103). Nil: accounts' tenants are not
	// looked at.
	Tenants TenantStatus
	// Keys keeps the idempotency keys of submissions that carry one; a
	// gateway without it refuses them (Internal), rather than accepting
	// them without the promise.
	Keys IdempotencyKeeper
	// Metrics, when set, is where the gateway registers its metrics
	// (msgkit_sms_submissions_total and the accepted and queued parts of
	// msgkit_sms_parts_total, which it shares with a Transmitter of the
	// same registry); nil: none, at no cost. Two gateways on one registry
	// are a wiring mistake: NewGateway panics.
	Metrics prometheus.Registerer
}

// Gateway accepts bulk SMS submissions, charges them and queues their
// parts for the network; a Transmitter hands them over.
type Gateway struct {
	store   Store
	opts    GatewayOptions
	leasing ReportLeasingStore // store, when it leases reports to opts.Dispatcher
	metrics *gatewayMetrics    // nil: none

	secrets *secret.Checker
	credKey [32]byte // keys the remembered password digests
	credMu  sync.RWMutex
	creds   map[string]credential
	// accounts are the accounts SubmitFor and Throughput read, by
	// username (digest unused), under credMu.
	accounts map[string]credential
	// checking runs one bcrypt comparison for concurrent submissions with
	// the same credentials, so a burst at start-up costs one comparison,
	// not one per request.
	checking singleflight.Group
}

// credential is a verified account remembered for a while.
type credential struct {
	digest  [32]byte // SHA-256 of credKey and the password
	account Account
	until   time.Time
}

// NewGateway returns a gateway over store.
func NewGateway(store Store, opts GatewayOptions) *Gateway {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.BcryptCost == 0 {
		opts.BcryptCost = bcrypt.DefaultCost
	}
	if opts.CredentialTTL <= 0 {
		opts.CredentialTTL = time.Minute
	}
	if opts.NewID == nil {
		opts.NewID = func() MessageID { return NewMessageID(opts.Clock.Now()) }
	}
	g := &Gateway{store: store, opts: opts, creds: map[string]credential{}, accounts: map[string]credential{}, secrets: secret.NewChecker(opts.BcryptCost),
		metrics: newGatewayMetrics(opts.Metrics)}
	if ls, ok := store.(ReportLeasingStore); ok && opts.Dispatcher != nil {
		g.leasing = ls
	}
	rand.Read(g.credKey[:])
	return g
}

// AccountSpec describes an account to create; give Password or
// PasswordHash (bcrypt).
type AccountSpec struct {
	Account
	Password string
}

// CreateAccount registers a bulk SMS account: a username of 1 to 200
// characters, a password (or its bcrypt hash), a balance not below
// -CreditLimit, and settings as checkSettings has them.
func (g *Gateway) CreateAccount(ctx context.Context, spec AccountSpec) (Account, error) {
	a, err := prepareAccount(spec, g.secrets, g.opts.Clock)
	if err != nil {
		return Account{}, err
	}
	if err := g.store.CreateAccount(ctx, a); err != nil {
		return Account{}, err
	}
	return a, nil
}

// prepareAccount checks an account to create and hashes its password.
func prepareAccount(spec AccountSpec, secrets *secret.Checker, clock msgkit.Clock) (Account, error) {
	a := spec.Account
	e := msgkit.New(msgkit.Invalid, CodeAccountInvalid, "invalid account")
	if a.Username == "" || len(a.Username) > MaxUsernameBytes || !utf8.ValidString(a.Username) || strings.ContainsAny(a.Username, "\x00\r\n") {
		e.WithField("username", "a username has 1 to 200 characters of UTF-8 without line breaks", "")
	}
	switch {
	case spec.Password != "" && a.PasswordHash != "":
		e.WithField("password", "give the password or its hash, not both", "")
	case spec.Password != "":
		if len(spec.Password) > MaxPasswordBytes {
			e.WithField("password", "a password has at most 72 bytes", "")
		}
	case a.PasswordHash == "":
		e.WithField("password", "an account needs a password", "")
	default:
		if _, err := bcrypt.Cost([]byte(a.PasswordHash)); err != nil {
			e.WithField("passwordHash", "not a bcrypt hash", "")
		}
	}
	if !a.CreditLimit.IsNegative() && a.Balance.LessThan(a.CreditLimit.Neg()) {
		e.WithField("balance", "a balance is not below -creditLimit", "")
	}
	if err := checkSettings(a); err != nil {
		for _, f := range err.(*msgkit.Error).Fields {
			if f.Name != "creditLimit" || a.CreditLimit.IsNegative() {
				e.WithField(f.Name, f.Message, "")
			}
		}
	}
	if len(e.Fields) > 0 {
		e.Message = e.Fields[0].Message
		return Account{}, e
	}
	if spec.Password != "" {
		h, err := secrets.Hash(spec.Password)
		if err != nil {
			return Account{}, err
		}
		a.PasswordHash = h
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = clock.Now().UTC()
	}
	return a, nil
}

// Submit validates a submission, splits it, charges the account for every
// physical SMS and stores the message with its parts queued for sending,
// in one Store call, and answers: it never waits for the network, which a
// Transmitter feeds from the queue (handed the parts in memory when
// GatewayOptions.Transmitter is set). Rejections carry the submission error
// codes (see the package doc for the order of the checks).
//
// A submission with an IdempotencyKey is accepted once per account and
// key for 24 hours (see the package doc): a retry gets the first
// acceptance, Replayed, and is neither sent nor charged again, also when
// the first try's process died after accepting it.
func (g *Gateway) Submit(ctx context.Context, sub Submission) (Accepted, error) {
	acc, err := g.submit(ctx, sub)
	g.metrics.answered(acc, err)
	return acc, err
}

// submit is Submit, uncounted.
func (g *Gateway) submit(ctx context.Context, sub Submission) (Accepted, error) {
	acct, err := g.authenticate(ctx, sub)
	if err != nil {
		return Accepted{}, err
	}
	if sub.IdempotencyKey != "" {
		return g.submitOnce(ctx, acct, sub)
	}
	return g.accept(ctx, acct, sub, g.opts.NewID())
}

// Refused counts a submission its transport refused before handing it to
// the gateway (a body that does not decode: err carries its code), so
// that the gateway's metrics count every submission answered. bulksmsapi
// calls it.
func (g *Gateway) Refused(err error) {
	g.metrics.answered(Accepted{}, err)
}

// submitOnce accepts sub of the authenticated account acct once per
// idempotency key. The message's id is the key's record's Ref, which
// stays the same for every try of the key, so that whichever try accepts
// it, the store's unique message id lets one acceptance through, and a
// try that finds the key's record pending (its first try died, or runs)
// can tell from the store whether the message was accepted.
func (g *Gateway) submitOnce(ctx context.Context, acct Account, sub Submission) (Accepted, error) {
	if g.opts.Keys == nil {
		return Accepted{}, msgkit.New(msgkit.Internal, "no_idempotency_keeper", "sms: a submission with an idempotency key to a gateway without GatewayOptions.Keys")
	}
	c, err := g.opts.Keys.Begin(ctx, idempotency.Request{Scope: "sms:" + acct.Username, Key: sub.IdempotencyKey, Fingerprint: fingerprint(sub)})
	switch {
	case msgkit.CodeOf(err) == idempotency.CodeInProgress:
		// The first try holds the key: it may have died after accepting.
		if acc, ok, lookErr := g.acceptedAs(ctx, acct, c.Record.Ref); lookErr == nil && ok {
			return acc, nil
		}
		return Accepted{}, err
	case err != nil:
		return Accepted{}, err
	case c.Replay:
		return replayedAcceptance(c.Record)
	}
	// The key's record outlives a client that goes away: the submission
	// is accepted or refused all the same.
	keep := context.WithoutCancel(ctx)
	id := MessageID(c.Record.Ref)
	if c.TakenOver() {
		acc, ok, err := g.acceptedAs(ctx, acct, c.Record.Ref)
		if err != nil {
			return Accepted{}, err
		}
		if ok {
			g.finish(keep, c, acc)
			return acc, nil
		}
	}
	acc, err := g.accept(ctx, acct, sub, id)
	switch {
	case msgkit.CodeOf(err) == "message_exists":
		// A try that took the key over accepted it meanwhile.
		acc, ok, lookErr := g.acceptedAs(ctx, acct, c.Record.Ref)
		if lookErr != nil || !ok {
			return Accepted{}, cmp.Or(lookErr, err)
		}
		g.finish(keep, c, acc)
		return acc, nil
	case err != nil:
		switch msgkit.KindOf(err) {
		case msgkit.Internal, msgkit.Unavailable:
			// The store failed: the message may have been accepted all
			// the same. The record stays pending; a try after its lease
			// finds the message, or accepts it under the same id.
		default:
			// Refused by a rule: nothing was accepted, and the key is
			// free for the same or a corrected submission.
			if aerr := g.opts.Keys.Abandon(keep, c); aerr != nil {
				g.opts.Logger.WarnContext(ctx, "sms: an idempotency key could not be forgotten; it is free when its lease ends", "err", aerr)
			}
		}
		return Accepted{}, err
	}
	g.finish(keep, c, acc)
	return acc, nil
}

// acceptedJSON is how an acceptance is kept as the answer of its key.
type acceptedJSON struct {
	MsgID    MessageID `json:"msgId"`
	NumParts int       `json:"numParts"`
}

// finish records acc as the answer of c's key. A failure is logged: the
// record stays pending, and a retry finds the message by its id.
func (g *Gateway) finish(ctx context.Context, c idempotency.Claim, acc Accepted) {
	body, _ := json.Marshal(acceptedJSON{MsgID: acc.MsgID, NumParts: acc.NumParts}) // cannot fail
	if err := g.opts.Keys.Finish(ctx, c, idempotency.Answer{Status: 202, Body: body}); err != nil && msgkit.CodeOf(err) != idempotency.CodeClaimLost {
		g.opts.Logger.WarnContext(ctx, "sms: the acceptance of an idempotency key could not be recorded; its retries find the message", "err", err, "msg_id", acc.MsgID)
	}
}

// replayedAcceptance is the acceptance rec recorded.
func replayedAcceptance(rec idempotency.Record) (Accepted, error) {
	var a acceptedJSON
	if err := json.Unmarshal(rec.Answer.Body, &a); err != nil || a.MsgID == "" {
		return Accepted{}, msgkit.Wrap(err, msgkit.Internal, "idempotency_answer_invalid", "sms: the recorded acceptance of an idempotency key is not one")
	}
	return Accepted{MsgID: a.MsgID, NumParts: a.NumParts, Replayed: true}, nil
}

// acceptedAs looks for the message a key's tries accept as ref: ok with
// its acceptance, Replayed, when it was accepted for acct.
func (g *Gateway) acceptedAs(ctx context.Context, acct Account, ref string) (Accepted, bool, error) {
	m, err := g.store.Message(ctx, MessageID(ref))
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Accepted{}, false, nil
	}
	if err != nil {
		return Accepted{}, false, err
	}
	if m.Account != acct.Username {
		return Accepted{}, false, nil
	}
	return Accepted{MsgID: m.ID, NumParts: len(m.Parts), Replayed: true}, true, nil
}

// fingerprint identifies a submission's content after decoding, so that
// a client that encodes its retry otherwise (another key order, other
// escapes) still sends the same submission. The password is left out:
// no digest of it is stored, and changing it is no new submission.
func fingerprint(sub Submission) idempotency.Fingerprint {
	mask := ""
	if sub.DLRMask != nil {
		mask = strconv.FormatInt(*sub.DLRMask, 10)
	}
	flash := "0"
	if sub.Flash {
		flash = "1"
	}
	return idempotency.FingerprintOf([]byte("sms submission"), []byte(sub.Type), []byte(sub.Username), []byte(sub.Sender),
		[]byte(sub.Receiver), []byte(sub.DCS), []byte(sub.Text), []byte(sub.URL), []byte(sub.Title), []byte(mask),
		[]byte(sub.DLRURL), []byte(flash), sub.Custom)
}

// Throughput returns how many submissions a second the account may make
// (0: unlimited), for the platform's own senders that pace themselves to
// it (campaigns), so that they are not throttled; NotFound when there is
// no such account.
func (g *Gateway) Throughput(ctx context.Context, account string) (int, error) {
	acct, err := g.account(ctx, account)
	if err != nil {
		return 0, err
	}
	return acct.Throughput, nil
}

// SubmitFor submits sub on behalf of the account named account, for the
// platform's own senders (campaigns) that hold no password: the
// credentials and client address of sub are not looked at, every other
// rule of Submit applies, and the account is charged. id is the message's
// id, chosen by the caller so that a submission tried again after a crash
// is recognised: an id already accepted is Conflict (code
// message_exists) and nothing is charged twice. A disabled or unknown
// account is 103.
func (g *Gateway) SubmitFor(ctx context.Context, account string, id MessageID, sub Submission) (Accepted, error) {
	acc, err := g.submitFor(ctx, account, id, sub)
	g.metrics.answered(acc, err)
	return acc, err
}

// submitFor is SubmitFor, uncounted.
func (g *Gateway) submitFor(ctx context.Context, account string, id MessageID, sub Submission) (Accepted, error) {
	if id == "" || len(id) > 64 {
		return Accepted{}, msgkit.Errorf(msgkit.Internal, "bad_message_id", "sms: SubmitFor needs a message id of 1 to 64 bytes, got %q", id)
	}
	acct, err := g.account(ctx, account)
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Accepted{}, CodeNoAccount.Errorf("the account %s does not exist", account)
	}
	if err != nil {
		return Accepted{}, err
	}
	if !acct.Enabled {
		return Accepted{}, CodeNoAccount.Errorf("the account is disabled")
	}
	return g.accept(ctx, acct, sub, id)
}

// account is the account named username as the store had it within
// CredentialTTL, as a verified password's account is: a campaign's
// messages would otherwise each read (and decode) it. An account not
// found is not remembered.
func (g *Gateway) account(ctx context.Context, username string) (Account, error) {
	now := g.opts.Clock.Now()
	g.credMu.RLock()
	c, ok := g.accounts[username]
	g.credMu.RUnlock()
	if ok && now.Before(c.until) {
		return c.account, nil
	}
	acct, err := g.store.Account(ctx, username)
	if err == nil {
		acct, err = g.loaded(ctx, acct)
	}
	if err != nil {
		return Account{}, err
	}
	g.credMu.Lock()
	defer g.credMu.Unlock()
	if len(g.accounts) > 100_000 {
		clear(g.accounts) // bounded, as the credentials are
	}
	g.accounts[username] = credential{account: acct, until: now.Add(g.opts.CredentialTTL)}
	return acct, nil
}

// accept runs the rules of a submission of the authenticated account acct
// and stores it as message id.
func (g *Gateway) accept(ctx context.Context, acct Account, sub Submission, id MessageID) (Accepted, error) {
	now := g.opts.Clock.Now().UTC()
	if ok, err := g.store.TakeThroughput(ctx, acct.Username, now, acct.Throughput); err != nil {
		return Accepted{}, err
	} else if !ok {
		return Accepted{}, CodeThrottling.Errorf("more than %d submissions a second; wait one second, then resend", acct.Throughput)
	}
	m, region, err := g.prepare(sub)
	if err != nil {
		return Accepted{}, err
	}
	if !sub.ValidUntil.IsZero() && !sub.ValidUntil.After(now) {
		return Accepted{}, CodeBadParameterValue.FieldErrorf("validUntil", "the message's validity ended at %s, before its submission", sub.ValidUntil.UTC().Format(time.RFC3339))
	}
	if sub.DLRToBinds && m.DLRMask != 0 {
		m.DLRURL = BindURL(acct.Username)
	}
	var room [8]gsm.Part // the parts of most messages, on the stack
	split, err := splitContent(room[:0], m.Type, sub, g.opts.RefWidth)
	if err != nil {
		return Accepted{}, err
	}
	if n := split.NumParts(); n > acct.maxParts() {
		return Accepted{}, CodeMessageTooLong.FieldErrorf("text", "the message needs %d parts; the account allows %d", n, acct.maxParts())
	}
	price, ok := acct.PriceFor(m.Receiver, msgkit.DateOf(now))
	if !ok {
		return Accepted{}, CodeNoRoute.FieldErrorf("receiver", "no route to %s for this account", m.Receiver)
	}
	if w, bad := acct.blacklistedWord(region, m.Sender.Value); bad {
		return Accepted{}, CodeBlacklistedSender.FieldErrorf("sender", "the sender holds %q, which is not allowed in %s", w, region)
	}

	m.ID = id
	m.Account = acct.Username
	m.DCS = split.DCS
	m.PartPrice = price
	m.Charged = price.Mul(decimal.NewFromInt(int64(split.NumParts())))
	m.Currency = acct.Currency
	m.SubmittedAt = now
	m.ExpiresAt = now.Add(acct.validity())
	if !sub.ValidUntil.IsZero() && sub.ValidUntil.Before(m.ExpiresAt) {
		m.ExpiresAt = sub.ValidUntil.UTC()
	}
	m.Parts = make([]PartRecord, len(split.Parts))
	for i, p := range split.Parts {
		m.Parts[i] = PartRecord{Num: i, Text: p.Text, Data: p.Data, Units: p.Units, UDH: p.UDH, State: StateSubmitted, UpdatedAt: now, SendAt: now}
	}
	tx := g.opts.Transmitter
	held := tx != nil && tx.reserve(len(m.Parts))
	var lease time.Time
	if held {
		// Queued at the lease's end: any transmitter may take the parts
		// then, if this one has not sent them.
		lease = tx.leaseFrom(now)
		for i := range m.Parts {
			m.Parts[i].SendAt = lease
		}
	}
	if err := g.store.Accept(ctx, m); err != nil {
		if held {
			tx.release(len(m.Parts))
		}
		return Accepted{}, err
	}
	if held {
		tx.handOver(m, lease)
	}
	g.metrics.acceptedParts(len(m.Parts), !held)
	return Accepted{MsgID: m.ID, NumParts: len(m.Parts)}, nil
}

// Authenticate checks credentials and the client's address by the rules
// of Submit (110, 103, 104) without submitting, for transports that
// authenticate once per session and then submit with SubmitFor: an SMPP
// bind. A verified password is remembered as Submit's is.
func (g *Gateway) Authenticate(ctx context.Context, username, password string, client netip.Addr) error {
	_, err := g.authenticate(ctx, Submission{Username: username, Password: password, ClientIP: client})
	return err
}

// authenticate finds the account of the request's credentials: 110 when
// they are missing, 103 when they match no enabled account, 104 when the
// client address is not allowed.
func (g *Gateway) authenticate(ctx context.Context, sub Submission) (Account, error) {
	if sub.Username == "" {
		return Account{}, CodeMissingMandatoryParam.FieldErrorf("auth.username", "auth.username is missing")
	}
	if sub.Password == "" {
		return Account{}, CodeMissingMandatoryParam.FieldErrorf("auth.password", "auth.password is missing")
	}
	acct, err := g.checkPassword(ctx, sub.Username, sub.Password)
	if err != nil {
		return Account{}, err
	}
	if !acct.Enabled {
		return Account{}, CodeNoAccount.Errorf("the account is disabled")
	}
	ip := sub.ClientIP.Unmap()
	for _, n := range acct.Networks {
		if n.Contains(ip) {
			return acct, nil
		}
	}
	return Account{}, CodeIPNotAllowed.Errorf("client address %s is not allowed for this account", ip)
}

// checkPassword verifies credentials: once with bcrypt, then for
// CredentialTTL against a keyed digest in memory, compared in constant time.
// Unknown accounts cost a bcrypt comparison too, so timing tells nothing.
func (g *Gateway) checkPassword(ctx context.Context, username, password string) (Account, error) {
	now := g.opts.Clock.Now()
	digest := sha256.Sum256(append(g.credKey[:len(g.credKey):len(g.credKey)], password...))
	if acct, ok := g.remembered(username, digest, now); ok {
		return acct, nil
	}
	// The flight's key is a digest of both, so it says nothing of the
	// password and two accounts never share a comparison.
	key := sha256.Sum256(append(digest[:], username...))
	// The comparison outlives a caller that gives up: others may wait for
	// it, and its result is remembered.
	verifyCtx := context.WithoutCancel(ctx)
	ch := g.checking.DoChan(string(key[:]), func() (any, error) {
		if acct, ok := g.remembered(username, digest, now); ok {
			return acct, nil // verified by a flight that ended just before
		}
		acct, err := secret.Check(verifyCtx, g.secrets, g.store.Account, username, password,
			func(a Account) string { return a.PasswordHash }, CodeNoAccount.Errorf("credentials match no account"))
		if err != nil {
			return Account{}, err
		}
		if acct, err = g.loaded(verifyCtx, acct); err != nil {
			return Account{}, err
		}
		g.credMu.Lock()
		if len(g.creds) > 100_000 {
			clear(g.creds) // bounded: a flood of accounts only costs bcrypt again
		}
		g.creds[username] = credential{digest: digest, account: acct, until: now.Add(g.opts.CredentialTTL)}
		g.credMu.Unlock()
		return acct, nil
	})
	select {
	case r := <-ch:
		acct, _ := r.Val.(Account)
		return acct, r.Err
	case <-ctx.Done():
		return Account{}, ctx.Err()
	}
}

// TenantStatus tells whether a tenant is suspended; *auth.Service
// satisfies it.
type TenantStatus interface {
	TenantSuspended(ctx context.Context, tenant msgkit.ServiceUUID) (bool, error)
}

// loaded is acct as the gateway keeps it for CredentialTTL: disabled
// while its tenant is suspended, so that a suspension refuses the
// tenant's accounts (103) within that time, at one look-up per account
// and TTL.
func (g *Gateway) loaded(ctx context.Context, acct Account) (Account, error) {
	if acct.Tenant == "" || g.opts.Tenants == nil {
		return acct, nil
	}
	suspended, err := g.opts.Tenants.TenantSuspended(ctx, acct.Tenant)
	if err != nil {
		return Account{}, err
	}
	if suspended {
		acct.Enabled = false
	}
	return acct, nil
}

// remembered returns the account whose password was verified with this
// digest within CredentialTTL, comparing digests in constant time.
func (g *Gateway) remembered(username string, digest [32]byte, now time.Time) (Account, bool) {
	g.credMu.RLock()
	c, ok := g.creds[username]
	g.credMu.RUnlock()
	if ok && now.Before(c.until) && subtle.ConstantTimeCompare(c.digest[:], digest[:]) == 1 {
		return c.account, true
	}
	return Account{}, false
}

// prepare checks everything but the content and builds the record.
func (g *Gateway) prepare(sub Submission) (MessageRecord, string, error) {
	var m MessageRecord
	switch sub.Type {
	case "":
		return m, "", CodeMissingMandatoryParam.FieldErrorf("type", "type is missing")
	case TypeText, TypeWSI:
		m.Type = sub.Type
	default:
		return m, "", CodeUnknownMessageType.FieldErrorf("type", "type %q is unknown; use text or wsi", sub.Type)
	}
	var err error
	if m.Sender, err = ParseSender(sub.Sender); err != nil {
		return m, "", err
	}
	var region string
	if m.Receiver, region, err = parseReceiver(sub.Receiver); err != nil {
		return m, "", err
	}
	if sub.DLRToBinds {
		if sub.DLRURL != "" {
			return m, "", CodeBadParameterValue.FieldErrorf("dlrUrl", "reports go to the account's binds or to dlrUrl, not both")
		}
		if sub.DLRMask != nil {
			if m.DLRMask, err = ParseDLRMask(*sub.DLRMask); err != nil {
				return m, "", err
			}
		}
	} else if m.DLRMask, m.DLRURL, err = parseDLR(sub.DLRMask, sub.DLRURL); err != nil {
		return m, "", err
	}
	if len(sub.Custom) > 0 {
		c := bytes.TrimSpace(sub.Custom)
		if len(c) > MaxCustomBytes || len(c) == 0 || c[0] != '{' || !json.Valid(c) {
			return m, "", CodeBadParameterValue.FieldErrorf("custom", "custom must be a JSON object of at most %d bytes", MaxCustomBytes)
		}
		m.Custom = bytes.Clone(c)
	}
	m.Flash = sub.Flash
	return m, region, nil
}

// CheckReportURL reports whether rawURL may receive what the outbox
// posts (a dlrUrl, an account's InboundURL): an absolute http or https URL
// of at most MaxDLRURLBytes of UTF-8, without blanks. Which addresses it
// may reach is the egress policy's, judged when it is dialled.
func CheckReportURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && len(rawURL) <= MaxDLRURLBytes && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(rawURL, " \t\r\n") && utf8.ValidString(rawURL)
}

func parseDLR(mask *int64, rawURL string) (DLRMask, string, error) {
	if rawURL != "" && !CheckReportURL(rawURL) {
		return 0, "", CodeBadParameterValue.FieldErrorf("dlrUrl", "dlrUrl must be an absolute http or https URL")
	}
	if mask == nil {
		if rawURL == "" {
			return 0, "", nil
		}
		return RecommendedDLRMask, rawURL, nil
	}
	m, err := ParseDLRMask(*mask)
	if err != nil {
		return 0, "", err
	}
	if m != 0 && rawURL == "" {
		return 0, "", CodeMissingMandatoryParam.FieldErrorf("dlrUrl", "dlrUrl is needed when dlrMask asks for reports")
	}
	return m, rawURL, nil
}

// splitContent turns a submission's content of type typ (already
// checked) into parts, with a fresh concatenation reference; the parts of
// a text are written into parts (see gsm.SplitTextRef), sized for
// references of width w.
func splitContent(parts []gsm.Part, typ string, sub Submission, w gsm.RefWidth) (gsm.Message, error) {
	var ref [1]byte
	rand.Read(ref[:])
	if typ == TypeWSI {
		if sub.URL == "" {
			return gsm.Message{}, CodeMissingMandatoryParam.FieldErrorf("url", "url is missing")
		}
		return gsm.SplitWSIRef(sub.URL, sub.Title, ref[0], w)
	}
	dcs, err := ParseDCS(sub.DCS)
	if err != nil {
		return gsm.Message{}, err
	}
	if strings.IndexByte(sub.Text, 0) >= 0 {
		// U+0000 is not in the GSM alphabet, no handset shows it in UCS-2,
		// and a store may not be able to keep it: one answer for every
		// coding and store.
		return gsm.Message{}, CodeBadContentFormat.FieldErrorf("text", "text holds a NUL character (U+0000)")
	}
	return gsm.SplitTextRef(parts, sub.Text, dcs, ref[0], w)
}
