package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/testsystem"
)

// TestSystemStore keeps the test system's reference lists, sessions and
// results. Completed sessions queue their callbacks in the SMS store's
// delivery report outbox, so the report dispatcher posts them.
type TestSystemStore struct {
	sms *SMSStore

	mu          sync.RWMutex
	operators   map[int64]testsystem.Operator
	named       map[testsystem.Kind]map[int64]testsystem.Named
	gates       map[int64]testsystem.Gate // price and currency of gates; names live in named
	routes      map[int64]testsystem.Route
	smscs       map[string]testsystem.SMSC
	sessions    map[int64]testsystem.Session
	bySession   map[int64][]sms.MessageID // by Seq
	results     map[sms.MessageID]*testsystem.Result
	pending     map[sms.MessageID]bool
	quota       map[quotaKey]int
	limits      map[string]int // users' own daily limits
	lastSess    int64
	lastParam   int64
	lastNamedID map[testsystem.Kind]int64
}

type quotaKey struct {
	user string
	day  msgkit.Date
}

var (
	_ testsystem.Catalog  = (*TestSystemStore)(nil)
	_ testsystem.Sessions = (*TestSystemStore)(nil)
)

func newTestSystemStore(smsStore *SMSStore) *TestSystemStore {
	return &TestSystemStore{
		sms: smsStore, operators: map[int64]testsystem.Operator{},
		named: map[testsystem.Kind]map[int64]testsystem.Named{testsystem.Categories: {}, testsystem.Suppliers: {}, testsystem.Gates: {}},
		gates: map[int64]testsystem.Gate{}, routes: map[int64]testsystem.Route{}, smscs: map[string]testsystem.SMSC{},
		sessions: map[int64]testsystem.Session{}, bySession: map[int64][]sms.MessageID{},
		results: map[sms.MessageID]*testsystem.Result{}, pending: map[sms.MessageID]bool{},
		quota: map[quotaKey]int{}, limits: map[string]int{}, lastNamedID: map[testsystem.Kind]int64{},
	}
}

// Operators lists owner's operators.
func (s *TestSystemStore) Operators(_ context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[testsystem.Operator], error) {
	s.mu.RLock()
	var ops []testsystem.Operator
	for _, id := range slices.Sorted(maps.Keys(s.operators)) {
		if o := s.operators[id]; o.Owner == owner {
			ops = append(ops, o)
		}
	}
	s.mu.RUnlock()
	return msgkit.Apply(ops, q, func(o testsystem.Operator, attr string) (msgkit.Value, bool) {
		switch attr {
		case "name":
			return msgkit.StringValue(o.Name), true
		case "country":
			return msgkit.StringValue(o.Country), true
		case "mcc":
			return msgkit.StringValue(o.MCC), true
		case "mcc_mnc":
			return msgkit.StringValue(o.MCCMNC()), true
		}
		return msgkit.Value{}, false
	})
}

// Countries lists the countries of owner's operators, by name.
func (s *TestSystemStore) Countries(_ context.Context, owner string, q msgkit.ListQuery) (msgkit.Page[testsystem.Country], error) {
	s.mu.RLock()
	seen := map[testsystem.Country]bool{}
	for _, o := range s.operators {
		if o.Owner == owner {
			seen[testsystem.Country{Name: o.Country, MCC: o.MCC}] = true
		}
	}
	s.mu.RUnlock()
	cs := slices.SortedFunc(maps.Keys(seen), func(a, b testsystem.Country) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.MCC, b.MCC))
	})
	return msgkit.Apply(cs, q, func(c testsystem.Country, attr string) (msgkit.Value, bool) {
		switch attr {
		case "name":
			return msgkit.StringValue(c.Name), true
		case "mcc":
			return msgkit.StringValue(c.MCC), true
		}
		return msgkit.Value{}, false
	})
}

// sees reports whether viewer sees a record of owner: the platform's and
// its own.
func sees(viewer, owner string) bool { return owner == "" || owner == viewer }

// Routes lists the routes of the gates viewer sees, by parameter id.
func (s *TestSystemStore) Routes(_ context.Context, viewer string, q msgkit.ListQuery) (msgkit.Page[testsystem.Route], error) {
	s.mu.RLock()
	rs := make([]testsystem.Route, 0, len(s.routes))
	for _, id := range slices.Sorted(maps.Keys(s.routes)) {
		if r := s.routes[id]; sees(viewer, s.named[testsystem.Gates][r.GateID].Owner) {
			rs = append(rs, s.namedRouteLocked(r))
		}
	}
	s.mu.RUnlock()
	return msgkit.Apply(rs, q, func(r testsystem.Route, attr string) (msgkit.Value, bool) {
		switch attr {
		case "gate_name":
			return msgkit.StringValue(r.Gate), true
		case "category_name":
			return msgkit.StringValue(r.Category), true
		case "supplier_name":
			return msgkit.StringValue(r.Supplier), true
		case "param_name":
			return msgkit.StringValue(r.ParamName), true
		case "param_id":
			return msgkit.IntValue(r.ParamID), true
		}
		return msgkit.Value{}, false
	})
}

// namedRouteLocked fills the names of r's gate, category and supplier.
func (s *TestSystemStore) namedRouteLocked(r testsystem.Route) testsystem.Route {
	r.Gate = s.named[testsystem.Gates][r.GateID].Name
	r.Category = s.named[testsystem.Categories][r.CategoryID].Name
	r.Supplier = s.named[testsystem.Suppliers][r.SupplierID].Name
	return r
}

// Named lists the categories, suppliers or gates viewer sees, by id.
func (s *TestSystemStore) Named(_ context.Context, k testsystem.Kind, viewer string, q msgkit.ListQuery) (msgkit.Page[testsystem.Named], error) {
	s.mu.RLock()
	m := s.named[k]
	ns := make([]testsystem.Named, 0, len(m))
	for _, id := range slices.Sorted(maps.Keys(m)) {
		if sees(viewer, m[id].Owner) {
			ns = append(ns, m[id])
		}
	}
	s.mu.RUnlock()
	return msgkit.Apply(ns, q, func(n testsystem.Named, attr string) (msgkit.Value, bool) {
		switch attr {
		case "name":
			return msgkit.StringValue(n.Name), true
		case "id":
			return msgkit.IntValue(n.ID), true
		}
		return msgkit.Value{}, false
	})
}

// NamedByID returns a category, supplier or gate, whoever owns it.
func (s *TestSystemStore) NamedByID(_ context.Context, k testsystem.Kind, id int64) (testsystem.Named, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.named[k][id]
	if !ok {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	return n, nil
}

// DeleteNamed deletes owner's category, supplier or gate and its routes.
func (s *TestSystemStore) DeleteNamed(_ context.Context, k testsystem.Kind, owner string, id int64) (testsystem.Named, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.named[k][id]
	if !ok || n.Owner != owner {
		return testsystem.Named{}, testsystem.NamedNotFound(k, id)
	}
	delete(s.named[k], id)
	if k == testsystem.Gates {
		delete(s.gates, id)
	}
	for pid, r := range s.routes {
		if routeUses(r, k, id) {
			delete(s.routes, pid)
		}
	}
	return n, nil
}

func routeUses(r testsystem.Route, k testsystem.Kind, id int64) bool {
	switch k {
	case testsystem.Categories:
		return r.CategoryID == id
	case testsystem.Suppliers:
		return r.SupplierID == id
	}
	return r.GateID == id
}

// AddRoute stores the parameters of r for owner, making its records by
// name.
func (s *TestSystemStore) AddRoute(_ context.Context, owner string, r testsystem.NewRoute) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gate, gateNew, err := s.gateForLocked(owner, r)
	if err != nil {
		return false, err
	}
	if gateNew {
		s.named[testsystem.Gates][gate] = testsystem.Named{ID: gate, Name: r.Gate, Owner: owner}
		s.gates[gate] = testsystem.Gate{ID: gate, Name: r.Gate, Owner: owner}
	}
	cat := s.byNameLocked(testsystem.Categories, owner, r.Category)
	sup := s.byNameLocked(testsystem.Suppliers, owner, r.Supplier)
	added := false
	for _, p := range r.Params() {
		row := testsystem.Route{GateID: gate, CategoryID: cat, SupplierID: sup, ParamName: p[0], ParamValue: p[1]}
		if s.hasRouteLocked(row) {
			continue
		}
		s.lastParam = max(s.lastParam, maxKey(s.routes)) + 1
		row.ParamID = s.lastParam
		s.routes[row.ParamID] = row
		added = true
	}
	return added, nil
}

// hasRouteLocked reports whether a route like row (its id aside) is
// stored.
func (s *TestSystemStore) hasRouteLocked(row testsystem.Route) bool {
	for _, x := range s.routes {
		x.ParamID = 0
		if x == row {
			return true
		}
	}
	return false
}

func maxKey[V any](m map[int64]V) int64 {
	var top int64
	for k := range m {
		top = max(top, k)
	}
	return top
}

// gateForLocked finds or numbers owner's gate of r (see
// testsystem.Catalog.AddRoute): the id of the gate of its name, the
// platform's (which only the platform's routes may use) or owner's, which
// must be r.GateID when that is set; or a new id (r.GateID when set and
// free, for the platform only).
func (s *TestSystemStore) gateForLocked(owner string, r testsystem.NewRoute) (id int64, isNew bool, err error) {
	if g, ok := s.findLocked(testsystem.Gates, owner, r.Gate); ok {
		switch {
		case g.Owner != owner:
			return 0, false, testsystem.GateNotYours(r.Gate)
		case r.GateID != 0 && r.GateID != g.ID:
			return 0, false, testsystem.GateIDConflict(r.Gate, g.ID, r.GateID)
		}
		return g.ID, false, nil
	}
	if r.GateID != 0 {
		g, taken := s.named[testsystem.Gates][r.GateID]
		switch {
		case taken && (owner == "" || g.Owner == owner):
			return 0, false, testsystem.GateIDTaken(r.GateID, g.Name)
		case owner != "":
			return 0, false, testsystem.GateIDNotYours(r.GateID)
		case taken:
			return 0, false, testsystem.GateIDTaken(r.GateID, g.Name)
		}
		return r.GateID, true, nil
	}
	s.lastNamedID[testsystem.Gates] = max(s.lastNamedID[testsystem.Gates], maxKey(s.named[testsystem.Gates])) + 1
	return s.lastNamedID[testsystem.Gates], true, nil
}

// findLocked finds the record of kind k named name that owner's routes
// see: owner's own, else the platform's.
func (s *TestSystemStore) findLocked(k testsystem.Kind, owner, name string) (testsystem.Named, bool) {
	var platform testsystem.Named
	found := false
	for _, n := range s.named[k] {
		switch {
		case n.Name != name:
		case n.Owner == owner:
			return n, true
		case n.Owner == "":
			platform, found = n, true
		}
	}
	return platform, found
}

// byNameLocked returns the id of the record of kind k named name that
// owner's routes see, made for owner when there is none.
func (s *TestSystemStore) byNameLocked(k testsystem.Kind, owner, name string) int64 {
	if n, ok := s.findLocked(k, owner, name); ok {
		return n.ID
	}
	s.lastNamedID[k] = max(s.lastNamedID[k], maxKey(s.named[k])) + 1
	id := s.lastNamedID[k]
	s.named[k][id] = testsystem.Named{ID: id, Name: name, Owner: owner}
	return id
}

// Load stores a dataset, replacing records of the same ids, as one
// step: two records of one list with one name (counting those stored) are
// Conflict (dataset_name_exists), and a route whose gate, category or
// supplier does not exist is Invalid (dataset_invalid_reference); then
// nothing is stored.
func (s *TestSystemStore) Load(_ context.Context, d testsystem.Dataset) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	named := map[testsystem.Kind]map[int64]testsystem.Named{}
	for k, m := range s.named {
		named[k] = maps.Clone(m)
	}
	for _, n := range d.Categories {
		named[testsystem.Categories][n.ID] = testsystem.Named{ID: n.ID, Name: n.Name}
	}
	for _, n := range d.Suppliers {
		named[testsystem.Suppliers][n.ID] = testsystem.Named{ID: n.ID, Name: n.Name}
	}
	for _, g := range d.Gates {
		named[testsystem.Gates][g.ID] = testsystem.Named{ID: g.ID, Name: g.Name}
	}
	for _, m := range named {
		seen := map[[2]string]bool{}
		for _, n := range m {
			if seen[[2]string{n.Owner, n.Name}] {
				return testsystem.DatasetNameExists(n.Name, nil)
			}
			seen[[2]string{n.Owner, n.Name}] = true
		}
	}
	for _, r := range d.Routes {
		_, g := named[testsystem.Gates][r.GateID]
		_, c := named[testsystem.Categories][r.CategoryID]
		_, p := named[testsystem.Suppliers][r.SupplierID]
		if !g || !c || !p {
			return testsystem.DatasetBadReference(r.ParamID, nil)
		}
	}
	s.named = named
	for _, o := range d.Operators {
		s.operators[o.ID] = o
	}
	for _, g := range d.Gates {
		s.gates[g.ID] = testsystem.Gate{ID: g.ID, Name: g.Name, Price: g.Price, Currency: g.Currency}
	}
	for _, r := range d.Routes {
		s.routes[r.ParamID] = testsystem.Route{ParamID: r.ParamID, GateID: r.GateID, CategoryID: r.CategoryID, SupplierID: r.SupplierID,
			ParamName: r.ParamName, ParamValue: r.ParamValue}
	}
	for _, c := range d.SMSCs {
		s.smscs[c.Address] = c
	}
	return nil
}

// GatesByID returns the gates of ids that viewer sees, in ids' order,
// with the category and supplier of their first route.
func (s *TestSystemStore) GatesByID(_ context.Context, viewer string, ids []int64) ([]testsystem.Gate, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []testsystem.Gate
	for _, id := range ids {
		n, ok := s.named[testsystem.Gates][id]
		if !ok || !sees(viewer, n.Owner) {
			continue
		}
		g := s.gates[id]
		g.ID, g.Name, g.Owner = id, n.Name, n.Owner
		first := int64(0)
		for pid, r := range s.routes {
			if r.GateID == id && (first == 0 || pid < first) {
				first = pid
			}
		}
		if first != 0 {
			r := s.namedRouteLocked(s.routes[first])
			g.Category, g.Supplier = r.Category, r.Supplier
		}
		out = append(out, g)
	}
	return out, nil
}

// OperatorsByCode returns owner's operators of the codes, or of the MCCs.
func (s *TestSystemStore) OperatorsByCode(_ context.Context, owner string, codes, mccs []string) ([]testsystem.Operator, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []testsystem.Operator
	for _, id := range slices.Sorted(maps.Keys(s.operators)) {
		o := s.operators[id]
		if o.Owner != owner {
			continue
		}
		if len(codes) > 0 && slices.Contains(codes, o.MCCMNC()) || len(codes) == 0 && slices.Contains(mccs, o.MCC) {
			out = append(out, o)
		}
	}
	return out, nil
}

// SMSC returns the service centre of address.
func (s *TestSystemStore) SMSC(_ context.Context, address string) (testsystem.SMSC, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.smscs[address]
	return c, ok, nil
}

// OperatorByCode returns the platform operator of mccmnc with the
// smallest id.
func (s *TestSystemStore) OperatorByCode(_ context.Context, mccmnc string) (testsystem.Operator, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, id := range slices.Sorted(maps.Keys(s.operators)) {
		if o := s.operators[id]; o.Owner == "" && o.MCCMNC() == mccmnc {
			return o, true, nil
		}
	}
	return testsystem.Operator{}, false, nil
}

// CreateSession counts the request and stores the session with its
// results, within the daily limit.
func (s *TestSystemStore) CreateSession(_ context.Context, sess testsystem.Session, rs []testsystem.Result, limit int) (testsystem.Session, testsystem.Quota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := quotaKey{sess.User, msgkit.DateOf(sess.CreatedAt.UTC())}
	used := s.quota[k]
	if used >= limit {
		q := testsystem.QuotaAt(limit, used, sess.CreatedAt)
		return testsystem.Session{}, q, testsystem.LimitReached(q)
	}
	ids := make(map[sms.MessageID]bool, len(rs))
	for _, r := range rs {
		if _, dup := s.results[r.MsgID]; dup || ids[r.MsgID] {
			return testsystem.Session{}, testsystem.Quota{}, testsystem.MessageExists(r.MsgID, nil)
		}
		ids[r.MsgID] = true
	}
	s.quota[k] = used + 1
	s.lastSess++
	sess.ID = s.lastSess
	sess.CreatedAt, sess.CompletedAt = storeTime(sess.CreatedAt), storeTime(sess.CompletedAt)
	s.sessions[sess.ID] = sess
	order := make([]sms.MessageID, len(rs))
	for i, r := range rs {
		r.Session = sess.ID
		s.results[r.MsgID] = storedResult(&r)
		if !r.Status.Judged() {
			s.pending[r.MsgID] = true
		}
		order[i] = r.MsgID
	}
	s.bySession[sess.ID] = order
	return sess, testsystem.QuotaAt(limit, used+1, sess.CreatedAt), nil
}

// Quota is user's use of the limit on the day of now.
func (s *TestSystemStore) Quota(_ context.Context, user string, now time.Time, limit int) (testsystem.Quota, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return testsystem.QuotaAt(limit, s.quota[quotaKey{user, msgkit.DateOf(now.UTC())}], now), nil
}

// Session returns user's session.
func (s *TestSystemStore) Session(_ context.Context, user string, id int64) (testsystem.Session, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, ok := s.sessions[id]
	if !ok || sess.User != user {
		return testsystem.Session{}, testsystem.SessionNotFound(id)
	}
	return sess, nil
}

// Results lists the results of user's session by Seq.
func (s *TestSystemStore) Results(_ context.Context, user string, id int64, q msgkit.ListQuery) (msgkit.Page[testsystem.Result], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, ok := s.sessions[id]
	if !ok || sess.User != user {
		return msgkit.Page[testsystem.Result]{}, testsystem.SessionNotFound(id)
	}
	ids := s.bySession[id]
	page := msgkit.Page[testsystem.Result]{Items: []testsystem.Result{}, Total: len(ids)}
	from := min(q.Offset(), len(ids))
	to := len(ids)
	if q.PageSize > 0 {
		to = min(from+q.PageSize, len(ids))
	}
	for _, mid := range ids[from:to] {
		page.Items = append(page.Items, *s.results[mid].Clone())
	}
	return page, nil
}

// UpdateResults applies fn to each stored result of ids.
func (s *TestSystemStore) UpdateResults(_ context.Context, ids []sms.MessageID, fn func(r *testsystem.Result) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		cur, ok := s.results[id]
		if !ok {
			continue
		}
		r, changed := cur.Updated(fn)
		if !changed {
			continue
		}
		s.results[id] = storedResult(r)
		if r.Status.Judged() {
			delete(s.pending, id)
		} else {
			s.pending[id] = true
		}
	}
	return nil
}

// Pending returns results not judged, by message id after after.
func (s *TestSystemStore) Pending(_ context.Context, after sms.MessageID, limit int) ([]testsystem.Result, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []sms.MessageID
	for id := range s.pending {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = ids[:min(len(ids), max(limit, 0))]
	out := make([]testsystem.Result, len(ids))
	for i, id := range ids {
		out[i] = *s.results[id].Clone()
	}
	return out, nil
}

// CompleteSession completes a session whose results are all judged and
// queues its callback in the SMS outbox.
func (s *TestSystemStore) CompleteSession(_ context.Context, id int64, at time.Time, body func(testsystem.Session, []testsystem.Result) (testsystem.Callback, error)) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return false, testsystem.SessionNotFound(id)
	}
	if sess.Status == testsystem.SessionComplete {
		return false, nil
	}
	rs := make([]testsystem.Result, 0, len(s.bySession[id]))
	for _, mid := range s.bySession[id] {
		r := s.results[mid]
		if !r.Status.Judged() {
			return false, nil
		}
		rs = append(rs, *r.Clone())
	}
	sess.Status, sess.CompletedAt = testsystem.SessionComplete, storeTime(at)
	cb, err := body(sess, rs)
	if err != nil {
		return false, err
	}
	s.sessions[id] = sess
	if cb.URL != "" {
		s.sms.enqueueReport(sms.Report{
			MsgID: sms.MessageID("testsession-" + strconv.FormatInt(id, 10)), URL: cb.URL, Body: cb.Body,
			State: sms.ReportPending, NextAt: at, CreatedAt: at,
		})
	}
	return true, nil
}

// storedResult is a deep copy of r with its times as stored.
func storedResult(r *testsystem.Result) *testsystem.Result {
	c := r.Clone()
	c.SentAt, c.Deadline, c.DLRAt = storeTime(c.SentAt), storeTime(c.Deadline), storeTime(c.DLRAt)
	if c.Received != nil {
		c.Received.At = storeTime(c.Received.At)
	}
	return c
}
