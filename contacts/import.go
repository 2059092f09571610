package contacts

import (
	"context"
	"iter"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// Resolve is how an import treats an item matching a contact of the list:
// the resolve_duplicate parameter.
type Resolve string

// The resolve modes.
const (
	ResolveUpdate      Resolve = "update"
	ResolveSkip        Resolve = "skip"
	ResolveSubscribe   Resolve = "subscribe"
	ResolveUnsubscribe Resolve = "unsubscribe"
	ResolveDelete      Resolve = "delete"
	ResolveOptIn       Resolve = "optin"
	ResolveOptOut      Resolve = "optout"
)

// resolveModes are the resolve modes in the order problems name them.
var resolveModes = []Resolve{ResolveUpdate, ResolveSkip, ResolveSubscribe, ResolveUnsubscribe, ResolveDelete, ResolveOptIn, ResolveOptOut}

// The opt channels of an import.
const (
	OptChannelSMS      = "sms"
	OptChannelWhatsApp = "whatsapp"
)

// ImportOptions are the parameters of an import (ParseImportQuery).
type ImportOptions struct {
	ListUUID          string
	OptionUUIDs       []string // memberships of created and updated contacts
	TouchpointUUIDs   []string
	InterestUUIDs     []string
	UpdateOptionUUIDs []string // options subscribe and unsubscribe set on matched contacts
	Resolve           Resolve
	Identifier        segmentation.Field // the field matching items to contacts
	UnsetInvalid      []string           // fields set to null when invalid, sorted
	InsertOptChannels []string           // sms, whatsapp
	UpdateOptChannels []string
	// Columns are the custom columns an item may hold (the tenant's custom
	// fields, which are not this package's); nil: any. An item with
	// another is invalid naming it, unless UnsetInvalid names it.
	Columns map[int]bool
}

// IdentifierColumn is the custom column the identifier names (column_N:
// N), 0 for a standard field. A custom column identifies contacts only
// when its field definition says so, which the caller checks before
// importing (the definitions are not this package's).
func (o ImportOptions) IdentifierColumn() int { return o.Identifier.Column() }

// importRepeatable are the import parameters that may be given more than
// once, their values joined.
var importRepeatable = []string{"option_uuids", "touchpoint_uuids", "interest_uuids", "update_option_uuids",
	"unset_invalid_fields", "insert_opt_channels", "update_opt_channels"}

// ParseImportQuery reads the parameters of an import: list_uuid
// (required), option_uuids, touchpoint_uuids, interest_uuids and
// update_option_uuids (comma-separated UUIDs, also repeated),
// resolve_duplicate (default update), identifier (default mobile; a
// standard text or phone field or column_N), unset_invalid_fields (field
// names), insert_opt_channels and update_opt_channels (sms, whatsapp;
// default sms). Every problem is named at once (an Invalid error with
// code msgkit.CodeInvalidQuery); an unknown parameter is one.
func ParseImportQuery(v url.Values) (ImportOptions, error) {
	o := ImportOptions{Resolve: ResolveUpdate, Identifier: segmentation.Mobile,
		InsertOptChannels: []string{OptChannelSMS}, UpdateOptChannels: []string{OptChannelSMS}}
	var p problems
	if len(v["list_uuid"]) == 0 {
		p.add("list_uuid", "list_uuid is required: the list the contacts are imported into")
	}
	for _, key := range slices.Sorted(maps.Keys(v)) {
		vals := v[key]
		if len(vals) == 0 {
			continue
		}
		if len(vals) > 1 && !slices.Contains(importRepeatable, key) {
			p.add(key, key+" is given more than once")
			continue
		}
		raw := strings.TrimSpace(vals[0])
		switch key {
		case "list_uuid":
			u, ok := canonicalUUID(raw)
			if !ok {
				p.add(key, "list_uuid must be a UUID")
				continue
			}
			o.ListUUID = u
		case "option_uuids", "touchpoint_uuids", "interest_uuids", "update_option_uuids":
			if len(splitList(vals)) == 0 {
				continue // given empty: none
			}
			ids, ok := uuidList(key, vals, &p)
			if !ok {
				continue
			}
			switch key {
			case "option_uuids":
				o.OptionUUIDs = ids
			case "touchpoint_uuids":
				o.TouchpointUUIDs = ids
			case "interest_uuids":
				o.InterestUUIDs = ids
			default:
				o.UpdateOptionUUIDs = ids
			}
		case "resolve_duplicate":
			if raw == "" {
				continue
			}
			r := Resolve(strings.ToLower(raw))
			if !slices.Contains(resolveModes, r) {
				p.add(key, "resolve_duplicate is update, skip, subscribe, unsubscribe, delete, optin or optout, not "+quoteName(raw))
				continue
			}
			o.Resolve = r
		case "identifier":
			if raw == "" {
				continue
			}
			f, ok := segmentation.ParseField(raw)
			if !ok || !identifying(f) {
				p.add(key, "identifier is a contact text field (such as mobile or email) or column_N, not "+quoteName(raw))
				continue
			}
			o.Identifier = f
		case "unset_invalid_fields":
			for _, name := range splitList(vals) {
				f, ok := segmentation.ParseField(name)
				if !ok || f == segmentation.SubscriptionOptionsIn || f == segmentation.SubscriptionOptionsOut {
					p.add(key, "unset_invalid_fields holds "+quoteName(name)+", which is not a contact field")
					continue
				}
				if !slices.Contains(o.UnsetInvalid, name) {
					o.UnsetInvalid = append(o.UnsetInvalid, name)
				}
			}
			slices.Sort(o.UnsetInvalid)
		case "insert_opt_channels", "update_opt_channels":
			var chans []string
			for _, c := range splitList(vals) {
				c = strings.ToLower(c)
				if c != OptChannelSMS && c != OptChannelWhatsApp {
					p.add(key, key+" takes sms and whatsapp, not "+quoteName(c))
					continue
				}
				if !slices.Contains(chans, c) {
					chans = append(chans, c)
				}
			}
			if len(chans) == 0 {
				continue // default kept
			}
			slices.Sort(chans)
			if key == "insert_opt_channels" {
				o.InsertOptChannels = chans
			} else {
				o.UpdateOptChannels = chans
			}
		default:
			p.add(key, "unknown import parameter "+quoteName(key))
		}
	}
	if len(p.list) > 0 {
		e := msgkit.New(msgkit.Invalid, msgkit.CodeInvalidQuery, "the import's parameters are invalid")
		e.Fields = p.list
		return ImportOptions{}, e
	}
	return o, nil
}

// identifying says whether f may identify imported contacts: a text or
// phone field, a standard one or a custom column.
func identifying(f segmentation.Field) bool {
	if f.Column() > 0 {
		return true
	}
	k := f.Kind()
	return k == segmentation.KindText || k == segmentation.KindMobile
}

// ImportKey is the value matching c by the identifier f: the value folded
// as segmentation compares text (case and accents aside) for text fields,
// the E.164 number for phone fields; "" when c has none.
func ImportKey(c *Contact, f segmentation.Field) string {
	v := c.Value(f)
	if v == "" || f.Kind() == segmentation.KindMobile {
		return v
	}
	return segmentation.Fold(v)
}

// ImportItem is one item of an import body, read (ReadImport): a valid
// item's contact with the fields the item gave (Given, by name, null ones
// included), or an invalid item's problems with the item as sent.
type ImportItem struct {
	Contact Contact
	Given   []string // field names the item gave, sorted
	Raw     []byte   // the item as sent, kept for an invalid item only
	Errors  []msgkit.FieldError
}

// Valid says whether the item is imported.
func (it *ImportItem) Valid() bool { return len(it.Errors) == 0 }

// ImportError is an invalid item in a result: the item as sent and its
// problems.
type ImportError struct {
	Contact []byte // JSON, as sent
	Errors  []msgkit.FieldError
}

// ImportResult counts an import's items: each item counts once.
type ImportResult struct {
	Created, Updated, Skipped, Deleted, Invalid int
	Subscribed, Unsubscribed, OptedIn, OptedOut int
	Errors                                      []ImportError
}

// Total is the number of items counted.
func (r ImportResult) Total() int {
	return r.Created + r.Updated + r.Skipped + r.Deleted + r.Invalid + r.Subscribed + r.Unsubscribed + r.OptedIn + r.OptedOut
}

// ImportBatch is an import as a store applies it: the options, the read
// items in body order, the time of the import and the source of created
// contacts' UUIDs (called once per created contact, in item order).
type ImportBatch struct {
	Options ImportOptions
	Items   *ImportItems
	Now     time.Time
	NewUUID func() string
}

// ImportChunk is the number of items a store plans and writes at a time
// (ImportItems.Chunks, ImportRun.Plan): what it holds of an import's
// contacts at once.
const ImportChunk = 500

// ImportStore imports a batch of contacts into a list of a tenant, as one
// atomic operation: on an error nothing of the batch is stored. The list
// must be one of the tenant's lists in use, else Invalid naming list_uuid.
type ImportStore interface {
	Import(ctx context.Context, svc msgkit.ServiceUUID, b ImportBatch) (ImportResult, error)
}

// Keys yields the identifier values (ImportKey) of the batch's valid
// items that have one, in body order, repeated as the items repeat them:
// what a store looks its list's contacts up by before it decides the
// items.
func (b *ImportBatch) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for items := range b.Items.Chunks(ImportChunk) {
			for i := range items {
				if it := &items[i]; it.Valid() {
					if k := ImportKey(&it.Contact, b.Options.Identifier); k != "" && !yield(k) {
						return
					}
				}
			}
		}
	}
}

// ImportRun is one run of an import's items against a store, in body
// order, a chunk at a time: it decides each item as the items before it
// left the list, counts it, and remembers across chunks what the store
// cannot tell (the keys whose contact an item deleted). A store starts
// one per attempt (ImportBatch.Start), and either plans chunks (Plan),
// writing each plan before it plans the next, or decides every item
// (Decide) before it applies the changes (Apply).
type ImportRun struct {
	b      *ImportBatch
	gone   map[string]bool // keys whose contact an item deleted: later items match nothing by them
	result ImportResult
}

// Start starts a run of the batch.
func (b *ImportBatch) Start() *ImportRun { return &ImportRun{b: b} }

// Result is what the run has counted.
func (r *ImportRun) Result() ImportResult { return r.result }

// Key is the value item it matches a contact by (ImportKey of the
// identifier): "" when it matches none, being invalid, without a value,
// or of a key whose contact an earlier item deleted.
func (r *ImportRun) Key(it *ImportItem) string {
	if !it.Valid() {
		return ""
	}
	k := ImportKey(&it.Contact, r.b.Options.Identifier)
	if r.gone[k] {
		return ""
	}
	return k
}

// Keys are the Keys of items, each once: what a store looks the list's
// contacts up by for them.
func (r *ImportRun) Keys(items []ImportItem) []string {
	seen := map[string]bool{}
	var keys []string
	for i := range items {
		if k := r.Key(&items[i]); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// Decide counts item it, the next in body order, against cur: the
// contact of the list its Key matches (the first in store order, created,
// then uuid; a contact an earlier item created when it did), nil for
// none. An invalid item is listed with its problems. An item matching
// none is created: the new contact (its UUID drawn) is returned for the
// store to add, and later items of its key match it; under delete it is
// skipped. An item matching cur changes it under every mode but skip
// (change is true), which Apply makes; under delete, later items of the
// key match nothing.
func (r *ImportRun) Decide(it *ImportItem, cur *Contact) (created *Contact, change bool) {
	o, res := &r.b.Options, &r.result
	if !it.Valid() {
		res.Invalid++
		res.Errors = append(res.Errors, ImportError{Contact: it.Raw, Errors: it.Errors})
		return nil, false
	}
	if cur == nil {
		if o.Resolve == ResolveDelete {
			res.Skipped++
			return nil, false
		}
		res.Created++
		return r.b.newContact(it), false
	}
	switch o.Resolve {
	case ResolveUpdate:
		res.Updated++
	case ResolveSkip:
		res.Skipped++
		return nil, false
	case ResolveSubscribe:
		res.Subscribed++
	case ResolveUnsubscribe:
		res.Unsubscribed++
	case ResolveDelete:
		if r.gone == nil {
			r.gone = map[string]bool{}
		}
		r.gone[ImportKey(&it.Contact, o.Identifier)] = true
		res.Deleted++
	case ResolveOptIn:
		res.OptedIn++
	case ResolveOptOut:
		res.OptedOut++
	}
	return nil, true
}

// Apply makes on c the change Decide decided for item it: under update
// the item's fields (merge), under subscribe and unsubscribe the status in
// the list and in update_option_uuids, under delete the soft delete, under
// optin and optout the update opt channels; c takes the import's time as
// updated.
func (r *ImportRun) Apply(c *Contact, it *ImportItem) {
	o := &r.b.Options
	switch o.Resolve {
	case ResolveUpdate:
		merge(c, it, o)
	case ResolveSubscribe, ResolveUnsubscribe:
		m := Subscribed
		if o.Resolve == ResolveUnsubscribe {
			m = Unsubscribed
		}
		c.Member = m
		c.Options = withMembers(c.Options, o.UpdateOptionUUIDs, m)
	case ResolveDelete:
		c.Deleted = r.b.Now
	case ResolveOptIn:
		setOpt(c, o.UpdateOptChannels, OptIn)
	case ResolveOptOut:
		setOpt(c, o.UpdateOptChannels, OptOut)
	}
	c.Updated = r.b.Now
}

// ImportPlan is what a chunk of an import writes: the contacts it creates
// (in item order) and the matched contacts it changes (each once, as last
// changed).
type ImportPlan struct {
	Created []*Contact
	Changed []*Contact
}

// Plan decides and applies items, the next chunk in body order, against
// matched: the list's contacts in use whose key is one of the chunk's
// Keys (any others are ignored), as the chunks before it left them. The
// store writes the plan before it looks up the next chunk's contacts.
// Among contacts sharing a key, the first in store order (created, then
// uuid) is matched. It changes nothing it is given, and the plan's
// contacts share nothing (no map, no slice) with the items or matched: a
// store may keep them as they are.
func (r *ImportRun) Plan(items []ImportItem, matched []Contact) ImportPlan {
	o := &r.b.Options
	order := make([]*Contact, len(matched)) // sorted by pointer: a Contact is large to move
	for i := range matched {
		order[i] = &matched[i]
	}
	slices.SortFunc(order, func(x, y *Contact) int {
		if c := x.Created.Compare(y.Created); c != 0 {
			return c
		}
		return strings.Compare(x.UUID, y.UUID)
	})
	index := make(map[string]*Contact, len(matched)+len(items))
	for _, c := range order {
		if c.ListUUID != o.ListUUID || !c.Deleted.IsZero() {
			continue
		}
		if k := ImportKey(c, o.Identifier); k != "" && index[k] == nil {
			index[k] = c
		}
	}
	var plan ImportPlan
	own := map[*Contact]bool{} // the plan's: created, or copies of matched contacts it changes
	for i := range items {
		it := &items[i]
		k := r.Key(it)
		var cur *Contact
		if k != "" {
			cur = index[k]
		}
		c, change := r.Decide(it, cur)
		if c != nil {
			plan.Created = append(plan.Created, c)
			own[c] = true
			if k != "" {
				index[k] = c
			}
		}
		if !change {
			continue
		}
		if !own[cur] {
			d := cur.Clone()
			cur = &d
			own[cur], index[k] = true, cur
			plan.Changed = append(plan.Changed, cur)
		}
		r.Apply(cur, it)
	}
	return plan
}

// newContact is the contact an unmatched item creates.
func (b *ImportBatch) newContact(it *ImportItem) *Contact {
	o := &b.Options
	c := it.Contact.Clone()
	c.UUID, c.ListUUID, c.Member = b.NewUUID(), o.ListUUID, Subscribed
	c.Created, c.Updated, c.Deleted = b.Now, b.Now, time.Time{}
	opt := c.OptStatus
	switch o.Resolve {
	case ResolveOptIn:
		opt = OptIn
	case ResolveOptOut:
		opt = OptOut
	}
	c.OptStatus, c.OptStatusWhatsApp = "", ""
	setOpt(&c, o.InsertOptChannels, opt)
	c.Options = withMembers(nil, o.OptionUUIDs, Subscribed)
	c.Touchpoints = withMembers(nil, o.TouchpointUUIDs, Subscribed)
	c.Interests = withMembers(nil, o.InterestUUIDs, Subscribed)
	return &c
}

// merge applies an update item to a matched contact: each field the item
// gave replaces the contact's (null clears it); the others are kept. The
// item's opt_status, when given, goes to the update opt channels; the
// import's memberships are added.
func merge(c *Contact, it *ImportItem, o *ImportOptions) {
	src := &it.Contact
	for _, name := range it.Given {
		switch name {
		case "opt_status":
			setOpt(c, o.UpdateOptChannels, src.OptStatus)
		case "channel_telegram_identifier":
			c.Telegram.Identifier = src.Telegram.Identifier
		case "channel_telegram_opt_status":
			c.Telegram.OptStatus = src.Telegram.OptStatus
		case "channel_telegram_data":
			c.Telegram.Data = slices.Clone(src.Telegram.Data)
		default:
			f, ok := segmentation.ParseField(name)
			if !ok {
				continue
			}
			switch f {
			case segmentation.Birthday:
				c.Birthday = src.Birthday
			case segmentation.Mobile:
				c.MobileRaw = src.MobileRaw
			case segmentation.BMobile:
				c.BMobileRaw = src.BMobileRaw
			}
			c.setValue(f, src.Value(f))
		}
	}
	c.Options = withMembers(c.Options, o.OptionUUIDs, Subscribed)
	c.Touchpoints = withMembers(c.Touchpoints, o.TouchpointUUIDs, Subscribed)
	c.Interests = withMembers(c.Interests, o.InterestUUIDs, Subscribed)
}

// setOpt sets the opt status of channels (sms: opt_status, whatsapp:
// the WhatsApp opt status) to s.
func setOpt(c *Contact, channels []string, s OptStatus) {
	for _, ch := range channels {
		switch ch {
		case OptChannelSMS:
			c.OptStatus = s
		case OptChannelWhatsApp:
			c.OptStatusWhatsApp = s
		}
	}
}

// withMembers is ms (copied) with each of uuids set to m; ms itself when
// uuids is empty.
func withMembers(ms map[string]MemberStatus, uuids []string, m MemberStatus) map[string]MemberStatus {
	if len(uuids) == 0 {
		return ms
	}
	out := make(map[string]MemberStatus, len(ms)+len(uuids))
	maps.Copy(out, ms)
	for _, u := range uuids {
		out[u] = m
	}
	return out
}
