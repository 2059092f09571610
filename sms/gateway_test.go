package sms_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// recorder is an Upstream that keeps what it was given.
type recorder struct {
	mu    sync.Mutex
	parts []sms.OutboundPart
}

func (r *recorder) Send(ctx context.Context, parts []sms.OutboundPart) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.parts = append(r.parts, parts...)
	return nil
}

type fixture struct {
	gw    *sms.Gateway
	tx    *sms.Transmitter // hands the queued parts to up
	store *memstore.SMSStore
	up    *recorder
	clock *msgkittest.Clock
}

var office = netip.MustParseAddr("192.0.2.10")

func newFixture(t testing.TB) *fixture {
	f := &fixture{store: memstore.New().SMS(), up: &recorder{}, clock: msgkittest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))}
	f.gw = sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence()})
	f.tx = sms.NewTransmitter(f.store, f.up, sms.TransmitterOptions{Clock: f.clock.Now})
	f.account(t, "shop", func(a *sms.Account) {})
	return f
}

// sequence is an id source for golden answers: UUIDs numbered from 1.
func sequence() func() sms.MessageID {
	var n atomic.Int64
	return func() sms.MessageID {
		return sms.MessageID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n.Add(1)))
	}
}

// account creates an account with password "pw" and the given changes.
func (f *fixture) account(t testing.TB, name string, change func(*sms.Account)) {
	a := sms.Account{
		Username: name, Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, Enabled: true,
		Balance: decimal.RequireFromString("10"), Currency: "EUR", MaxParts: 5,
		BlacklistedSenderWords: map[string][]string{"SI": {"bank"}},
		Prices: []sms.Price{
			{Prefix: "386", Price: decimal.RequireFromString("0.05")},
			{Prefix: "38640", Price: decimal.RequireFromString("0.04")},
			{Prefix: "49", Price: decimal.RequireFromString("0.07")},
		},
	}
	change(&a)
	if _, err := f.gw.CreateAccount(t.Context(), sms.AccountSpec{Account: a, Password: "pw"}); err != nil {
		t.Fatal(err)
	}
}

func valid() sms.Submission {
	return sms.Submission{
		Type: "text", Username: "shop", Password: "pw", Sender: "MyShop", Receiver: "38640123456",
		DCS: "gsm", Text: "Your order has shipped", DLRURL: "https://example.com/dlr", ClientIP: office,
	}
}

func TestSubmitAccepted(t *testing.T) {
	f := newFixture(t)
	sub := valid()
	sub.Text = strings.Repeat("a", 200)
	sub.Custom = []byte(` {"order": 42} `)
	sub.Flash = true
	acc, err := f.gw.Submit(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if acc.NumParts != 2 || acc.MsgID == "" {
		t.Fatalf("accepted %+v", acc)
	}
	m, err := f.store.Message(t.Context(), acc.MsgID)
	if err != nil {
		t.Fatalf("the message is not stored before the answer: %v", err)
	}
	if !m.PartPrice.Equal(decimal.RequireFromString("0.04")) || !m.Charged.Equal(decimal.RequireFromString("0.08")) {
		t.Errorf("price %s charged %s; the longest prefix 38640 costs 0.04 a part", m.PartPrice, m.Charged)
	}
	if m.DLRMask != sms.RecommendedDLRMask || string(m.Custom) != `{"order": 42}` || !m.Flash || m.Receiver != "+38640123456" {
		t.Errorf("record %+v", m)
	}
	if !m.ExpiresAt.Equal(m.SubmittedAt.Add(24 * time.Hour)) {
		t.Errorf("validity %v, want the default 24 h", m.ExpiresAt.Sub(m.SubmittedAt))
	}
	for i, p := range m.Parts {
		if p.State != sms.StateSubmitted || p.Num != i || p.UDH.Total != 2 || int(p.UDH.Seq) != i+1 || !p.SendAt.Equal(m.SubmittedAt) {
			t.Errorf("part %d: %+v; want submitted and queued for sending at once", i, p)
		}
	}
	a, _ := f.store.Account(t.Context(), "shop")
	if !a.Balance.Equal(decimal.RequireFromString("9.92")) {
		t.Errorf("balance %s, want 9.92", a.Balance)
	}
	if len(f.up.parts) != 0 {
		t.Errorf("Submit handed %d parts to the network itself", len(f.up.parts))
	}
	if n, err := f.tx.RunOnce(t.Context()); err != nil || n != 2 {
		t.Fatalf("a transmitter round handed over %d parts, %v; want the 2 queued", n, err)
	}
	want := []sms.OutboundPart{
		{MsgID: acc.MsgID, PartNum: 0, NumParts: 2, Sender: m.Sender, Receiver: m.Receiver, DCS: gsm.DCSGSM, Flash: true, Text: m.Parts[0].Text, UDH: m.Parts[0].UDH, ExpiresAt: m.ExpiresAt},
		{MsgID: acc.MsgID, PartNum: 1, NumParts: 2, Sender: m.Sender, Receiver: m.Receiver, DCS: gsm.DCSGSM, Flash: true, Text: m.Parts[1].Text, UDH: m.Parts[1].UDH, ExpiresAt: m.ExpiresAt},
	}
	if diff := cmp.Diff(want, f.up.parts); diff != "" {
		t.Errorf("upstream got (-want +got):\n%s", diff)
	}

	push := valid()
	push.Type, push.URL, push.Title, push.Receiver = "wsi", "https://example.com/offer", "Offer", "4915112345678"
	acc, err = f.gw.Submit(t.Context(), push)
	if err != nil || acc.NumParts != 1 {
		t.Fatalf("wsi: %+v, %v", acc, err)
	}
	if m, _ := f.store.Message(t.Context(), acc.MsgID); m.DCS != gsm.DCSBinary || m.Parts[0].UDH.DstPort != 2948 || !m.PartPrice.Equal(decimal.RequireFromString("0.07")) {
		t.Errorf("wsi record %+v", m)
	}
}

func TestSubmitRejections(t *testing.T) {
	mask := func(n int64) *int64 { return &n }
	tests := []struct {
		name   string
		change func(*sms.Submission)
		code   sms.Code
		field  string
	}{
		{"missing username", func(s *sms.Submission) { s.Username = "" }, sms.CodeMissingMandatoryParam, "auth.username"},
		{"missing password", func(s *sms.Submission) { s.Password = "" }, sms.CodeMissingMandatoryParam, "auth.password"},
		{"wrong password", func(s *sms.Submission) { s.Password = "PW" }, sms.CodeNoAccount, ""},
		{"unknown account", func(s *sms.Submission) { s.Username = "nobody" }, sms.CodeNoAccount, ""},
		{"disabled account", func(s *sms.Submission) { s.Username = "disabled" }, sms.CodeNoAccount, ""},
		{"foreign address", func(s *sms.Submission) { s.ClientIP = netip.MustParseAddr("198.51.100.1") }, sms.CodeIPNotAllowed, ""},
		{"missing type", func(s *sms.Submission) { s.Type = "" }, sms.CodeMissingMandatoryParam, "type"},
		{"unknown type", func(s *sms.Submission) { s.Type = "mms" }, sms.CodeUnknownMessageType, "type"},
		{"missing sender", func(s *sms.Submission) { s.Sender = "" }, sms.CodeMissingMandatoryParam, "sender"},
		{"invalid sender", func(s *sms.Submission) { s.Sender = "My_Shop" }, sms.CodeInvalidSender, "sender"},
		{"missing receiver", func(s *sms.Submission) { s.Receiver = "" }, sms.CodeMissingMandatoryParam, "receiver"},
		{"bad receiver", func(s *sms.Submission) { s.Receiver = "0038640123456" }, sms.CodeBadParameterValue, "receiver"},
		{"bad dcs", func(s *sms.Submission) { s.DCS = "latin1" }, sms.CodeBadParameterValue, "dcs"},
		{"bad dlrMask", func(s *sms.Submission) { s.DLRMask = mask(32) }, sms.CodeBadParameterValue, "dlrMask"},
		{"dlrMask without dlrUrl", func(s *sms.Submission) { s.DLRMask, s.DLRURL = mask(19), "" }, sms.CodeMissingMandatoryParam, "dlrUrl"},
		{"bad dlrUrl", func(s *sms.Submission) { s.DLRURL = "ftp://example.com/x" }, sms.CodeBadParameterValue, "dlrUrl"},
		{"dlrUrl not UTF-8", func(s *sms.Submission) { s.DLRURL = "https://example.com/\xff" }, sms.CodeBadParameterValue, "dlrUrl"},
		{"custom not an object", func(s *sms.Submission) { s.Custom = []byte(`[1,2]`) }, sms.CodeBadParameterValue, "custom"},
		{"custom too large", func(s *sms.Submission) { s.Custom = []byte(`{"x":"` + strings.Repeat("y", 5000) + `"}`) }, sms.CodeBadParameterValue, "custom"},
		{"empty text", func(s *sms.Submission) { s.Text = "" }, sms.CodeMissingMandatoryParam, "text"},
		{"encoding", func(s *sms.Submission) { s.Text = "hi 😀" }, sms.CodeEncodingError, "text"},
		{"bad content", func(s *sms.Submission) { s.Text = "a\xffb" }, sms.CodeBadContentFormat, "text"},
		{"NUL in UCS text", func(s *sms.Submission) { s.Text, s.DCS = "a\x00b", "UCS" }, sms.CodeBadContentFormat, "text"},
		{"NUL in GSM text", func(s *sms.Submission) { s.Text, s.DCS = "a\x00b", "GSM" }, sms.CodeBadContentFormat, "text"},
		{"NUL in auto text", func(s *sms.Submission) { s.Text, s.DCS = "a\x00b", "" }, sms.CodeBadContentFormat, "text"},
		{"more parts than the account allows", func(s *sms.Submission) { s.Text = strings.Repeat("a", 6*153) }, sms.CodeMessageTooLong, "text"},
		{"too many parts", func(s *sms.Submission) { s.Username, s.Text = "big", strings.Repeat("a", 39016) }, sms.CodeConcatError, "text"},
		{"wsi without url", func(s *sms.Submission) { s.Type = "wsi" }, sms.CodeMissingMandatoryParam, "url"},
		{"wsi with a bad url", func(s *sms.Submission) { s.Type, s.URL, s.Title = "wsi", "javascript:x", "t" }, sms.CodeBadParameterValue, "url"},
		{"no route", func(s *sms.Submission) { s.Receiver = "12025550123" }, sms.CodeNoRoute, "receiver"},
		{"blacklisted sender word", func(s *sms.Submission) { s.Sender = "MyBANK" }, sms.CodeBlacklistedSender, "sender"},
		{"no credit", func(s *sms.Submission) { s.Username = "poor" }, sms.CodeNoCredit, ""},
	}
	f := newFixture(t)
	f.account(t, "disabled", func(a *sms.Account) { a.Enabled = false })
	f.account(t, "big", func(a *sms.Account) { a.MaxParts = 0 })
	f.account(t, "poor", func(a *sms.Account) { a.Balance = decimal.RequireFromString("0.039") })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := valid()
			tc.change(&sub)
			_, err := f.gw.Submit(t.Context(), sub)
			if got := sms.CodeOf(err); err == nil || got != tc.code {
				t.Fatalf("error %v (code %d), want %d", err, got, tc.code)
			}
			if tc.field != "" {
				e, _ := errors.AsType[*msgkit.Error](err)
				if len(e.Fields) == 0 || e.Fields[0].Name != tc.field {
					t.Errorf("error %v does not name %s", err, tc.field)
				}
			}
		})
	}
	// Nothing rejected was stored or charged.
	for _, name := range []string{"shop", "poor"} {
		a, _ := f.store.Account(t.Context(), name)
		if want := map[string]string{"shop": "10", "poor": "0.039"}[name]; !a.Balance.Equal(decimal.RequireFromString(want)) {
			t.Errorf("%s balance %s after rejections, want %s", name, a.Balance, want)
		}
	}
	if n, err := f.tx.RunOnce(t.Context()); err != nil || n != 0 || len(f.up.parts) != 0 {
		t.Errorf("rejected submissions were queued: %d parts reached the network, %v", len(f.up.parts), err)
	}
}

func TestSubmitThrottling(t *testing.T) {
	f := newFixture(t)
	f.account(t, "slow", func(a *sms.Account) { a.Throughput = 2 })
	sub := valid()
	sub.Username = "slow"
	for i := range 2 {
		if _, err := f.gw.Submit(t.Context(), sub); err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	_, err := f.gw.Submit(t.Context(), sub)
	if sms.CodeOf(err) != sms.CodeThrottling || !sms.CodeOf(err).Retryable() {
		t.Fatalf("third submission in a second: %v, want 105", err)
	}
	f.clock.Advance(time.Second)
	if _, err := f.gw.Submit(t.Context(), sub); err != nil {
		t.Fatalf("after a second: %v", err)
	}
}

// Passwords are remembered for a while, and a changed password is not.
func TestCredentialCache(t *testing.T) {
	f := newFixture(t)
	if _, err := f.gw.Submit(t.Context(), valid()); err != nil {
		t.Fatal(err)
	}
	wrong := valid()
	wrong.Password = "pw2"
	if _, err := f.gw.Submit(t.Context(), wrong); sms.CodeOf(err) != sms.CodeNoAccount {
		t.Fatalf("a wrong password passes once the right one was remembered: %v", err)
	}
}

// N submissions against credit for N/2 parts: exactly N/2 accepted, the
// balance exactly zero, the rest 113.
func TestSubmitConcurrentCredit(t *testing.T) {
	f := newFixture(t)
	const n = 40
	f.account(t, "tight", func(a *sms.Account) { a.Balance = decimal.RequireFromString("0.80") }) // 20 parts at 0.04
	var wg sync.WaitGroup
	codes := make([]sms.Code, n)
	for i := range n {
		wg.Go(func() {
			sub := valid()
			sub.Username = "tight"
			if _, err := f.gw.Submit(context.Background(), sub); err != nil {
				codes[i] = sms.CodeOf(err)
			}
		})
	}
	wg.Wait()
	accepted := 0
	for _, c := range codes {
		switch c {
		case 0:
			accepted++
		case sms.CodeNoCredit:
		default:
			t.Errorf("code %d", c)
		}
	}
	a, _ := f.store.Account(t.Context(), "tight")
	if accepted != n/2 || !a.Balance.IsZero() {
		t.Errorf("%d accepted, balance %s; want %d and 0", accepted, a.Balance, n/2)
	}
}

// BenchmarkSubmit accepts two-part messages from parallel callers,
// without metrics and with them (GatewayOptions.Metrics), side by side,
// each on a store of its own.
func BenchmarkSubmit(b *testing.B) {
	for _, metrics := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%t", metrics), func(b *testing.B) {
			f := newFixture(b)
			f.account(b, "bench", func(a *sms.Account) { a.Balance = decimal.RequireFromString("1000000000") })
			opts := sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost}
			if metrics {
				opts.Metrics = prometheus.NewRegistry()
			}
			gw := sms.NewGateway(f.store, opts)
			sub := valid()
			sub.Username = "bench"
			sub.Text = strings.Repeat("Your order 12345 has shipped. ", 8) // 240 characters: 2 parts
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := gw.Submit(context.Background(), sub); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkSubmitMetrics compares Submit without and with metrics in one
// run, as BenchmarkSubmit's pair does, on a loaded machine more evenly:
// two gateways, each on a store of its own, accept b.N/32 two-part
// messages a phase from GOMAXPROCS callers, in phases without, with,
// with, without, eight times over, so that load drifting on the machine (and
// stores that slow as they grow) burden both alike. It reports each
// one's submissions a second and their ratio (with / without).
func BenchmarkSubmitMetrics(b *testing.B) {
	gateway := func(reg prometheus.Registerer) *sms.Gateway {
		f := newFixture(b)
		f.account(b, "bench", func(a *sms.Account) { a.Balance = decimal.RequireFromString("1000000000") })
		return sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, Metrics: reg})
	}
	plain, metered := gateway(nil), gateway(prometheus.NewRegistry())
	sub := valid()
	sub.Username = "bench"
	sub.Text = strings.Repeat("Your order 12345 has shipped. ", 8) // 240 characters: 2 parts
	phase := func(gw *sms.Gateway, n int) time.Duration {
		runtime.GC() // untimed: no phase pays for the garbage of the one before
		var left atomic.Int64
		left.Store(int64(n))
		var wg sync.WaitGroup
		start := time.Now()
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if _, err := gw.Submit(context.Background(), sub); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	const rounds = 8
	n := max(1, b.N/(4*rounds))
	var without, with time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for range rounds {
		without += phase(plain, n)
		with += phase(metered, n) + phase(metered, n)
		without += phase(plain, n)
	}
	b.StopTimer()
	off, on := float64(2*rounds*n)/without.Seconds(), float64(2*rounds*n)/with.Seconds()
	b.ReportMetric(off, "subs/s")
	b.ReportMetric(on, "metrics-subs/s")
	b.ReportMetric(on/off, "ratio")
}

// failingStore fails Accept as a broken database would.
type failingStore struct{ sms.Store }

func (failingStore) Accept(context.Context, sms.MessageRecord) error {
	return msgkit.Wrap(errors.New("connection reset"), msgkit.Internal, "storage_error", "storage error")
}

// An internal failure is 101 (RC_APPLICATION_ERROR), never a business code.
func TestSubmitInternalFailure(t *testing.T) {
	f := newFixture(t)
	gw := sms.NewGateway(failingStore{f.store}, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost})
	_, err := gw.Submit(t.Context(), valid())
	if sms.CodeOf(err) != sms.CodeApplicationError || msgkit.KindOf(err) != msgkit.Internal {
		t.Fatalf("error %v, want 101 and kind internal", err)
	}
}

// countingStore counts account lookups, which happen once per bcrypt check
// and once per CredentialTTL for SubmitFor.
type countingStore struct {
	sms.Store
	mu      sync.Mutex
	lookups int
}

func (s *countingStore) Account(ctx context.Context, username string) (sms.Account, error) {
	s.mu.Lock()
	s.lookups++
	s.mu.Unlock()
	return s.Store.Account(ctx, username)
}

// A burst of submissions with new credentials costs one bcrypt comparison.
func TestCredentialCheckOnceForABurst(t *testing.T) {
	f := newFixture(t)
	cs := &countingStore{Store: f.store}
	gw := sms.NewGateway(cs, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost + 4})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := gw.Submit(context.Background(), valid()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if cs.lookups != 1 {
		t.Errorf("%d password checks for one burst, want 1", cs.lookups)
	}
}

// SubmitFor and Throughput read an account once within CredentialTTL, as
// a verified password's is, so a campaign does not read it per message;
// after it, the account as stored now.
func TestSubmitForRemembersTheAccount(t *testing.T) {
	f := newFixture(t)
	f.account(t, "paced", func(a *sms.Account) { a.Throughput = 7 })
	st := &countingStore{Store: f.store}
	gw := sms.NewGateway(st, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost})
	sub := valid()
	sub.Username, sub.Password = "", ""
	for i := range 3 {
		if _, err := gw.SubmitFor(t.Context(), "paced", sms.MessageID(fmt.Sprintf("c-%d", i)), sub); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := gw.Throughput(t.Context(), "paced"); err != nil || n != 7 {
		t.Errorf("Throughput = %d, %v; want 7", n, err)
	}
	if st.lookups != 1 {
		t.Errorf("%d reads of the account for 3 submissions and its throughput, want 1", st.lookups)
	}
	f.clock.Advance(time.Minute)
	if _, err := gw.SubmitFor(t.Context(), "paced", "c-3", sub); err != nil {
		t.Fatal(err)
	}
	if st.lookups != 2 {
		t.Errorf("%d reads once CredentialTTL has passed, want 2", st.lookups)
	}
	if _, err := gw.Throughput(t.Context(), "nobody"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("Throughput of no account: %v, want NotFound", err)
	}
}

// SubmitFor: the platform's own senders submit for an account without its
// password, from anywhere, with ids of their choosing that make a retry
// harmless.
func TestSubmitFor(t *testing.T) {
	f := newFixture(t)
	sub := valid()
	sub.Username, sub.Password, sub.ClientIP = "", "", netip.MustParseAddr("203.0.113.9")
	acc, err := f.gw.SubmitFor(t.Context(), "shop", "campaign-1", sub)
	if err != nil || acc.MsgID != "campaign-1" || acc.NumParts != 1 {
		t.Fatalf("SubmitFor = %+v, %v", acc, err)
	}
	_, err = f.gw.SubmitFor(t.Context(), "shop", "campaign-1", sub)
	if msgkit.KindOf(err) != msgkit.Conflict || msgkit.CodeOf(err) != "message_exists" {
		t.Errorf("the same id again: %v", err)
	}
	if a, _ := f.store.Account(t.Context(), "shop"); !a.Balance.Equal(decimal.RequireFromString("9.96")) {
		t.Errorf("balance %s, want 9.96: charged once", a.Balance)
	}
	bad := sub
	bad.Receiver = "12"
	if _, err := f.gw.SubmitFor(t.Context(), "shop", "campaign-2", bad); msgkit.CodeOf(err) == "" || msgkit.KindOf(err) == msgkit.Conflict {
		t.Errorf("the rules still apply: %v", err)
	}
	f.account(t, "closed", func(a *sms.Account) { a.Enabled = false })
	for _, name := range []string{"nobody", "closed"} {
		if _, err := f.gw.SubmitFor(t.Context(), name, "campaign-3", sub); msgkit.CodeOf(err) != sms.CodeNoAccount.String() {
			t.Errorf("account %s: %v, want 103", name, err)
		}
	}
	if _, err := f.gw.SubmitFor(t.Context(), "shop", "", sub); msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("an empty id: %v", err)
	}
}

// A submission's ValidUntil ends its message's validity when it comes
// before the account's; one that ended is 112 validUntil and charges
// nothing; without it, the account's validity applies, as over HTTP.
func TestSubmissionValidUntil(t *testing.T) {
	f := newFixture(t)
	f.account(t, "week", func(a *sms.Account) { a.Validity = 7 * 24 * time.Hour })
	now := f.clock.Now()
	sub := valid()
	sub.Username, sub.Password = "", ""
	for i, c := range []struct {
		account    string
		validUntil time.Time
		want       time.Time // zero: refused 112 validUntil
	}{
		{"shop", time.Time{}, now.Add(sms.DefaultValidity)},
		{"shop", now.Add(time.Hour), now.Add(time.Hour)},
		{"shop", now.Add(time.Hour).In(time.FixedZone("", 3600)), now.Add(time.Hour)},
		{"shop", now.Add(48 * time.Hour), now.Add(sms.DefaultValidity)},
		{"week", now.Add(48 * time.Hour), now.Add(48 * time.Hour)},
		{"week", time.Time{}, now.Add(7 * 24 * time.Hour)},
		{"shop", now, time.Time{}},
		{"shop", now.Add(-time.Second), time.Time{}},
	} {
		sub.ValidUntil = c.validUntil
		id := sms.MessageID(fmt.Sprintf("v-%d", i))
		before, _ := f.store.Account(t.Context(), c.account)
		_, err := f.gw.SubmitFor(t.Context(), c.account, id, sub)
		if c.want.IsZero() {
			after, _ := f.store.Account(t.Context(), c.account)
			var e *msgkit.Error
			if !errors.As(err, &e) || sms.CodeOf(err) != sms.CodeBadParameterValue || len(e.Fields) == 0 || e.Fields[0].Name != "validUntil" || !after.Balance.Equal(before.Balance) {
				t.Errorf("%s until %v: %v, balance %s then %s; want 112 validUntil, nothing charged", c.account, c.validUntil, err, before.Balance, after.Balance)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s until %v: %v", c.account, c.validUntil, err)
		}
		m, err := f.store.Message(t.Context(), id)
		if err != nil || !m.ExpiresAt.Equal(c.want) {
			t.Errorf("%s until %v: expires %v, %v; want %v", c.account, c.validUntil, m.ExpiresAt, err, c.want)
		}
	}
}

// Authenticate answers as Submit does, without submitting.
func TestAuthenticate(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name, user, pw string
		ip             netip.Addr
		want           sms.Code
	}{
		{"ok", "shop", "pw", office, 0},
		{"no username", "", "pw", office, sms.CodeMissingMandatoryParam},
		{"no password", "shop", "", office, sms.CodeMissingMandatoryParam},
		{"wrong password", "shop", "pw2", office, sms.CodeNoAccount},
		{"unknown", "nobody", "pw", office, sms.CodeNoAccount},
		{"network", "shop", "pw", netip.MustParseAddr("198.51.100.1"), sms.CodeIPNotAllowed},
	} {
		err := f.gw.Authenticate(t.Context(), c.user, c.pw, c.ip)
		if got := sms.Code(0); err != nil {
			got = sms.CodeOf(err)
			if got != c.want {
				t.Errorf("%s: %v, want %d", c.name, err, c.want)
			}
		} else if c.want != 0 {
			t.Errorf("%s: accepted, want %d", c.name, c.want)
		}
	}
	if a, err := f.store.Account(t.Context(), "shop"); err != nil || !a.Balance.Equal(decimal.RequireFromString("10")) {
		t.Fatalf("Authenticate charged: %v, %v", a.Balance, err)
	}
}

// A gateway whose network ties parts by 16-bit references splits for
// their longer header: 306 septets are three parts of at most 152, and
// charged as three.
func TestSubmitSplitsForRef16(t *testing.T) {
	for _, tc := range []struct {
		width gsm.RefWidth
		parts int
	}{{gsm.Ref8, 2}, {gsm.Ref16, 3}} {
		f := newFixture(t)
		f.gw = sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence(), RefWidth: tc.width})
		sub := valid()
		sub.Text = strings.Repeat("a", 306)
		acc, err := f.gw.Submit(t.Context(), sub)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.store.Message(t.Context(), acc.MsgID)
		if err != nil {
			t.Fatal(err)
		}
		if acc.NumParts != tc.parts || len(m.Parts) != tc.parts || m.Parts[0].Units > 153-int(tc.width) {
			t.Errorf("width %d: %d parts, the first of %d septets", tc.width, acc.NumParts, m.Parts[0].Units)
		}
	}
}
