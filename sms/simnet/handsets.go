package simnet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// DefaultMaxReceipts is how many receipts a handset keeps unless
// Handsets.SetMaxReceipts says otherwise.
const DefaultMaxReceipts = 10000

// Handsets is a set of simulated test handsets, the probe of a route test
// system: a Network with Options.Handsets records there, as SMS-DELIVER
// PDUs, the parts it delivers to their numbers. One Handsets may serve
// several Networks (one per simulated route). It is safe for concurrent
// use.
type Handsets struct {
	clock msgkit.Clock

	mu        sync.Mutex // guards the fields below and every handset's receipts
	max       int
	seq       uint64 // receipts recorded, to order equal ones
	byNumber  map[sms.MSISDN]*handset
	byNetwork map[string]sms.MSISDN // the first handset added on each network
}

// handset is one test handset. network and homeSMSC never change after
// Add, so they are read without the lock.
type handset struct {
	network  string
	homeSMSC string
	receipts []receipt // in arrival order (see receipt.before); guarded by Handsets.mu
}

// receipt is a received part with what orders it and recognises it again.
type receipt struct {
	rv      sms.Received
	msgID   sms.MessageID
	partNum int
	seq     uint64
}

// before orders receipts by arrival time, then message id and part number,
// as the network orders its events, so that the order depends neither on
// the order of Send calls nor on goroutine scheduling; then by recording.
func (r *receipt) before(o *receipt) int {
	if c := r.rv.At.Compare(o.rv.At); c != 0 {
		return c
	}
	if c := strings.Compare(string(r.msgID), string(o.msgID)); c != 0 {
		return c
	}
	if c := cmp.Compare(r.partNum, o.partNum); c != 0 {
		return c
	}
	return cmp.Compare(r.seq, o.seq)
}

// NewHandsets returns an empty set of handsets whose Received sees the
// receipts due at clock's time; nil reads the system clock. Give it the
// clock of the Networks that deliver to it.
func NewHandsets(clock msgkit.Clock) *Handsets {
	return &Handsets{
		clock:     clock,
		max:       DefaultMaxReceipts,
		byNumber:  make(map[sms.MSISDN]*handset),
		byNetwork: make(map[string]sms.MSISDN),
	}
}

// SetMaxReceipts sets how many receipts each handset keeps, counting those
// planned for later: beyond it the earliest are dropped, at once for the
// handsets over the new limit. n below 1 restores DefaultMaxReceipts.
func (h *Handsets) SetMaxReceipts(n int) {
	if n < 1 {
		n = DefaultMaxReceipts
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.max = n
	for _, hs := range h.byNumber {
		hs.trim(n)
	}
}

// Add adds the handset number on network (MCC and MNC, 5 or 6 digits)
// whose own service centre is homeSMSC ('+' and 4 to 15 digits). The number
// is E.164 with its '+' (3 to 15 digits), as parts name their receivers.
// Bad fields are an Invalid error naming each; a number added before is a
// Conflict.
func (h *Handsets) Add(number sms.MSISDN, network, homeSMSC string) error {
	var bad *msgkit.Error
	field := func(name, msg string) {
		if bad == nil {
			bad = msgkit.New(msgkit.Invalid, "handset_invalid", "invalid handset")
		}
		bad.WithField(name, msg, "")
	}
	if d, ok := strings.CutPrefix(string(number), "+"); !ok || !allDigits(d) || len(d) < 3 || len(d) > 15 {
		field("number", fmt.Sprintf("%q must be '+' and 3 to 15 digits", number))
	}
	if !allDigits(network) || len(network) < 5 || len(network) > 6 {
		field("network", fmt.Sprintf("%q must be MCC and MNC, 5 or 6 digits", network))
	}
	if !isSMSC(homeSMSC) {
		field("homeSMSC", fmt.Sprintf("%q must be '+' and 4 to 15 digits", homeSMSC))
	}
	if bad != nil {
		return bad
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.byNumber[number]; ok {
		return msgkit.Errorf(msgkit.Conflict, "handset_exists", "handset %s was added before", number)
	}
	h.byNumber[number] = &handset{network: network, homeSMSC: homeSMSC}
	if _, ok := h.byNetwork[network]; !ok {
		h.byNetwork[network] = number
	}
	return nil
}

// Handset is the number of the test handset on network mccmnc ("22601"):
// the first added there. ok is false when there is none.
func (h *Handsets) Handset(ctx context.Context, mccmnc string) (number sms.MSISDN, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	number, ok = h.byNetwork[mccmnc]
	return number, ok, nil
}

// Received returns what handset received at or after since and at or
// before the clock's time, in the order it arrived: receipts are planned
// when the network takes a part, for the time the part is delivered, and
// show only once the clock gets there. The PDUs are copies. A number that
// is no handset is a NotFound error.
func (h *Handsets) Received(ctx context.Context, handset sms.MSISDN, since time.Time) ([]sms.Received, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := h.clock.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	hs := h.byNumber[handset]
	if hs == nil {
		return nil, msgkit.Errorf(msgkit.NotFound, "handset_not_found", "%s is not a test handset", handset)
	}
	rs := hs.receipts
	lo, _ := slices.BinarySearchFunc(rs, since, func(r receipt, t time.Time) int {
		if r.rv.At.Before(t) {
			return -1
		}
		return 1
	})
	hi, _ := slices.BinarySearchFunc(rs, now, func(r receipt, t time.Time) int {
		if r.rv.At.After(t) {
			return 1
		}
		return -1
	})
	if lo >= hi {
		return nil, nil
	}
	size := 0
	for _, r := range rs[lo:hi] {
		size += len(r.rv.PDU)
	}
	buf := make([]byte, 0, size) // one allocation for every copy
	out := make([]sms.Received, 0, hi-lo)
	for _, r := range rs[lo:hi] {
		rv := r.rv
		start := len(buf)
		buf = append(buf, rv.PDU...)
		rv.PDU = buf[start:len(buf):len(buf)]
		out = append(out, rv)
	}
	return out, nil
}

// lookup is the handset of number, nil when it is none.
func (h *Handsets) lookup(number sms.MSISDN) *handset {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byNumber[number]
}

// record adds the receipts of arrivals that have a PDU. When once is set,
// a part the handset has a receipt of already is not recorded again.
func (h *Handsets) record(arrivals []arrival, once bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range arrivals {
		if a.pdu == nil || once && a.hs.has(a.msgID, a.partNum) {
			continue
		}
		h.seq++
		a.hs.insert(receipt{
			rv:    sms.Received{At: a.at, Network: a.hs.network, PDU: a.pdu},
			msgID: a.msgID, partNum: a.partNum, seq: h.seq,
		}, h.max)
	}
}

// insert puts r in arrival order and drops the earliest receipts beyond
// limit. Receipts mostly come in order, so the search ends near the end.
func (hs *handset) insert(r receipt, limit int) {
	rs := hs.receipts
	if k := len(rs); k == 0 || rs[k-1].before(&r) <= 0 {
		rs = append(rs, r)
	} else {
		i := sort.Search(len(rs), func(j int) bool { return rs[j].before(&r) > 0 })
		rs = slices.Insert(rs, i, r)
	}
	hs.receipts = rs
	hs.trim(limit)
}

// trim drops the earliest receipts beyond limit, clearing them so their
// PDUs can be collected; append reallocates when the front is used up.
func (hs *handset) trim(limit int) {
	if over := len(hs.receipts) - limit; over > 0 {
		clear(hs.receipts[:over])
		hs.receipts = hs.receipts[over:]
	}
}

// has tells whether the handset has a receipt of the part.
func (hs *handset) has(id sms.MessageID, partNum int) bool {
	for i := range hs.receipts {
		if r := &hs.receipts[i]; r.msgID == id && r.partNum == partNum {
			return true
		}
	}
	return false
}

// Route is how the simulated route treats what it carries: the zero Route
// is honest. It applies to the parts the network delivers to Handsets.
type Route struct {
	// SMSC, when set, is the service centre every part reaches handsets
	// through (a foreign SMSC) instead of the handset's home SMSC: '+' and
	// 4 to 15 digits.
	SMSC string
	// FakeDLR: the network reports DELIVERED (as the outcome says) but the
	// handset never receives the part.
	FakeDLR bool
	// Sender, when set, replaces every part's sender (a route that
	// overwrites alphanumeric senders); digits only make a numeric sender.
	// It must pass sms.ParseSender.
	Sender string
	// Transcode: UCS-2 text arrives as GSM 7-bit, characters outside the
	// GSM alphabet folded (see FoldGSM); the parts' UDH is kept.
	Transcode bool
}

func (r Route) validate() error {
	if r.SMSC != "" && !isSMSC(r.SMSC) {
		return fmt.Errorf("route SMSC %q must be '+' and 4 to 15 digits", r.SMSC)
	}
	if r.Sender != "" {
		if _, err := sms.ParseSender(r.Sender); err != nil {
			return fmt.Errorf("route sender: %w", err)
		}
	}
	return nil
}

// arrival is a part the network plans to deliver to a handset: the index
// of the part in its call, when it arrives, the handset, and once encoded
// the PDU.
type arrival struct {
	part    int
	at      time.Time
	hs      *handset
	msgID   sms.MessageID
	partNum int
	pdu     []byte
}

// delivering is what a Send or a page of Restore delivers to handsets:
// their arrivals, and the events of those parts, held back until the
// handsets have them.
type delivering struct {
	parts    int // in the call
	arrivals []arrival
	held     []item
}

// reserve makes room, at the first arrival (the i-th part of the call,
// with events events), for every later part to arrive with as many: one
// allocation each rather than a doubling series.
func (d *delivering) reserve(i, events int) {
	if d.arrivals == nil {
		d.arrivals = make([]arrival, 0, d.parts-i)
		d.held = make([]item, 0, (d.parts-i)*events)
	}
}

// receiving tells whether delivered parts reach handsets at all.
func (n *Network) receiving() bool { return n.opts.Handsets != nil && !n.opts.Route.FakeDLR }

// handOver gives the handsets among the receivers of parts what d says
// they receive, then queues the events d held back: so a handset has a
// part before the network's report of its delivery can reach the sink.
// once is Restore's: a part a handset has already is not recorded again.
// A part whose SMS-DELIVER cannot be encoded is logged and not received.
// Called without mu held: encoding is the expensive part of delivering.
func (n *Network) handOver(ctx context.Context, parts []sms.OutboundPart, d *delivering, once bool) {
	if len(d.arrivals) == 0 {
		return
	}
	for i := range d.arrivals {
		a := &d.arrivals[i]
		p := &parts[a.part]
		a.msgID, a.partNum = p.MsgID, p.PartNum
		pdu, err := gsm.EncodeDeliver(n.deliverOf(p, a.hs, a.at))
		if err != nil {
			n.log.WarnContext(ctx, "simnet: a handset cannot receive a part: its SMS-DELIVER does not encode",
				"msgId", p.MsgID, "partNum", p.PartNum, "receiver", p.Receiver, "err", err)
			continue
		}
		a.pdu = pdu
	}
	n.opts.Handsets.record(d.arrivals, once)
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, it := range d.held {
		n.push(it)
	}
}

// deliverOf is the SMS-DELIVER handset hs receives of p at at, as the
// route changes it.
func (n *Network) deliverOf(p *sms.OutboundPart, hs *handset, at time.Time) gsm.Deliver {
	d := gsm.Deliver{
		SMSC:    cmp.Or(n.opts.Route.SMSC, hs.homeSMSC),
		Sender:  gsm.Address(p.Sender),
		DCS:     p.DCS,
		Class0:  p.Flash,
		SCTS:    at.UTC().Truncate(time.Second), // TP-SCTS holds whole seconds
		DstPort: p.UDH.DstPort,
		SrcPort: p.UDH.SrcPort,
		Text:    p.Text,
		Data:    p.Data,
	}
	if p.UDH.Total != 0 {
		d.Concat = gsm.Concat{Ref: uint16(p.UDH.Ref), Total: p.UDH.Total, Seq: p.UDH.Seq}
	}
	if n.routeSender != nil {
		d.Sender = gsm.Address(*n.routeSender)
	}
	if n.opts.Route.Transcode && d.DCS == gsm.DCSUCS {
		d.DCS, d.Text = gsm.DCSGSM, FoldGSM(d.Text)
	}
	return d
}

// FoldGSM is text as a transcoding route sends it in the GSM 7-bit
// alphabet: characters of the alphabet (or its extension table) stay; a
// Latin letter with a diacritic that the alphabet lacks becomes its base
// letter (ę→e, Ą→A, ç→c, ł→l); anything else becomes '?', one for each
// character.
func FoldGSM(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case gsm.InAlphabet(r):
			b.WriteRune(r)
		case foldBase[r] != 0:
			b.WriteRune(foldBase[r])
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// foldBase maps the letters of Latin-1 and Latin Extended-A (and the
// Romanian comma-below letters) that the GSM alphabet lacks to their base
// letter. An immutable table.
var foldBase = func() map[rune]rune {
	groups := [...]struct {
		base     rune
		variants string
	}{
		{'A', "ÀÁÂÃĀĂĄ"}, {'a', "áâãāăą"},
		{'C', "ĆĈĊČ"}, {'c', "çćĉċč"},
		{'D', "ĎĐÐ"}, {'d', "ďđð"},
		{'E', "ÈÊËĒĔĖĘĚ"}, {'e', "êëēĕėęě"},
		{'G', "ĜĞĠĢ"}, {'g', "ĝğġģ"},
		{'H', "ĤĦ"}, {'h', "ĥħ"},
		{'I', "ÌÍÎÏĨĪĬĮİ"}, {'i', "íîïĩīĭįı"},
		{'J', "Ĵ"}, {'j', "ĵ"},
		{'K', "Ķ"}, {'k', "ķ"},
		{'L', "ĹĻĽĿŁ"}, {'l', "ĺļľŀł"},
		{'N', "ŃŅŇ"}, {'n', "ńņňŉ"},
		{'O', "ÒÓÔÕŌŎŐ"}, {'o', "óôõōŏő"},
		{'R', "ŔŖŘ"}, {'r', "ŕŗř"},
		{'S', "ŚŜŞŠȘ"}, {'s', "śŝşšșſ"},
		{'T', "ŢŤŦȚ"}, {'t', "ţťŧț"},
		{'U', "ÙÚÛŨŪŬŮŰŲ"}, {'u', "úûũūŭůűų"},
		{'W', "Ŵ"}, {'w', "ŵ"},
		{'Y', "ÝŸŶ"}, {'y', "ýÿŷ"},
		{'Z', "ŹŻŽ"}, {'z', "źżž"},
	}
	m := make(map[rune]rune)
	for _, g := range groups {
		for _, r := range g.variants {
			m[r] = g.base
		}
	}
	return m
}()

// isSMSC tells whether s is a service centre address: '+' and 4 to 15
// digits.
func isSMSC(s string) bool {
	d, ok := strings.CutPrefix(s, "+")
	return ok && allDigits(d) && len(d) >= 4 && len(d) <= 15
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
