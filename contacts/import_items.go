package contacts

import (
	"encoding/binary"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// ImportItems are the items of an import body (ReadImport) in body order,
// packed: an ImportItem, with its Contact, takes some 900 bytes however
// few fields it gives, a packed one about what it took in the body. A
// store reads them back a chunk at a time (Chunks), as often as it needs.
// A valid item keeps what Fill sets of its contact and the fields it gave
// (not the system fields, times or memberships, which items do not
// have); an invalid one is kept as read. The zero value is empty.
type ImportItems struct {
	blocks  [][]byte     // the packed items, none across two blocks
	invalid []ImportItem // the invalid items, which the packed refer to
	list    string       // the list of the first valid item, which the others name only when theirs differs
	hasList bool
	n       int
	entries []byte // Append's, reused
}

// itemsBlock is the size of a block of packed items; an item larger than
// a block has a block of its own.
const itemsBlock = 256 << 10

// The kinds of a packed item: a valid item's length and entries follow,
// or an invalid item's index in ImportItems.invalid.
const (
	packedValid   = 0
	packedInvalid = 1
)

// The tags of a packed item's entries, each a tag, a length and as many
// bytes: a standard text field's or custom column's value goes under its
// segmentation.Field (all below 1024), the rest under these.
const (
	tagMobileRaw = 1024 + iota
	tagBMobileRaw
	tagBirthday // year, month and day as varints
	tagOptStatus
	tagOptStatusWebpush
	tagOptStatusWhatsApp
	tagTelegramName
	tagTelegramIdentifier
	tagTelegramOptStatus
	tagTelegramData
	tagListUUID // when not the first valid item's
	tagMember   // when not subscribed
	tagGiven    // one name the item gave, in order
)

// Len is the number of items.
func (s *ImportItems) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Append adds it after the items, packing a valid item; an invalid one is
// kept as it is.
func (s *ImportItems) Append(it ImportItem) {
	s.n++
	if !it.Valid() {
		s.invalid = append(s.invalid, it)
		var head [1 + binary.MaxVarintLen64]byte
		s.write(binary.AppendUvarint(append(head[:0], packedInvalid), uint64(len(s.invalid)-1)), nil)
		return
	}
	c := &it.Contact
	if !s.hasList {
		s.list, s.hasList = c.ListUUID, true
	}
	e := s.entries[:0]
	add := func(tag int, v string) {
		e = binary.AppendUvarint(e, uint64(tag))
		e = binary.AppendUvarint(e, uint64(len(v)))
		e = append(e, v...)
	}
	for f := segmentation.Field(1); f < numText; f++ {
		if v := c.values[f]; v != "" {
			add(int(f), v)
		}
	}
	if len(c.Custom) > 0 {
		for _, n := range slices.Sorted(maps.Keys(c.Custom)) {
			add(int(segmentation.ColumnField(n)), c.Custom[n])
		}
	}
	for _, kv := range []struct {
		tag int
		v   string
	}{{tagMobileRaw, c.MobileRaw}, {tagBMobileRaw, c.BMobileRaw}, {tagOptStatus, string(c.OptStatus)},
		{tagOptStatusWebpush, string(c.OptStatusWebpush)}, {tagOptStatusWhatsApp, string(c.OptStatusWhatsApp)},
		{tagTelegramName, c.Telegram.Name}, {tagTelegramIdentifier, c.Telegram.Identifier},
		{tagTelegramOptStatus, string(c.Telegram.OptStatus)}} {
		if kv.v != "" {
			add(kv.tag, kv.v)
		}
	}
	if c.Telegram.Data != nil {
		add(tagTelegramData, string(c.Telegram.Data))
	}
	if !c.Birthday.IsZero() {
		var d [3 * binary.MaxVarintLen64]byte
		date := binary.AppendVarint(d[:0], int64(c.Birthday.Year))
		date = binary.AppendVarint(date, int64(c.Birthday.Month))
		add(tagBirthday, string(binary.AppendVarint(date, int64(c.Birthday.Day))))
	}
	if c.ListUUID != s.list {
		add(tagListUUID, c.ListUUID)
	}
	if c.Member != Subscribed {
		add(tagMember, string(c.Member))
	}
	for _, g := range it.Given {
		add(tagGiven, g)
	}
	s.entries = e
	var head [1 + binary.MaxVarintLen64]byte
	s.write(binary.AppendUvarint(append(head[:0], packedValid), uint64(len(e))), e)
}

// write adds a packed item, its head and body, to the last block, or to a
// new one.
func (s *ImportItems) write(head, body []byte) {
	n := len(head) + len(body)
	if k := len(s.blocks); k == 0 || len(s.blocks[k-1])+n > cap(s.blocks[k-1]) {
		s.blocks = append(s.blocks, make([]byte, 0, max(itemsBlock, n)))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(append(*b, head...), body...)
}

// Chunks yields the items in order, n at a time (the last chunk may hold
// fewer), unpacked into one slice that the next chunk reuses: what a
// caller keeps of a chunk it copies (ImportRun.Plan does).
func (s *ImportItems) Chunks(n int) iter.Seq[[]ImportItem] {
	return func(yield func([]ImportItem) bool) {
		if s.Len() == 0 {
			return
		}
		n = max(n, 1)
		chunk := make([]ImportItem, 0, min(n, s.n))
		for _, b := range s.blocks {
			for len(b) > 0 {
				chunk = chunk[:len(chunk)+1]
				b = s.unpack(b, &chunk[len(chunk)-1])
				if len(chunk) == n {
					if !yield(chunk) {
						return
					}
					chunk = chunk[:0]
				}
			}
		}
		if len(chunk) > 0 {
			yield(chunk)
		}
	}
}

// unpack reads the packed item at the start of b into it, reusing its
// Given, and returns the rest of b.
func (s *ImportItems) unpack(b []byte, it *ImportItem) []byte {
	given := it.Given[:0]
	*it = ImportItem{}
	kind := b[0]
	v, k := binary.Uvarint(b[1:])
	b = b[1+k:]
	if kind == packedInvalid {
		*it = s.invalid[v]
		return b
	}
	e, rest := b[:v], b[v:]
	c := &it.Contact
	c.ListUUID, c.Member = s.list, Subscribed
	for len(e) > 0 {
		tag, k := binary.Uvarint(e)
		e = e[k:]
		size, k := binary.Uvarint(e)
		val := e[k : k+int(size)]
		e = e[k+int(size):]
		switch f := segmentation.Field(tag); {
		case tag < tagMobileRaw:
			c.setValue(f, string(val))
		case tag == tagMobileRaw:
			c.MobileRaw = string(val)
		case tag == tagBMobileRaw:
			c.BMobileRaw = string(val)
		case tag == tagBirthday:
			y, k := binary.Varint(val)
			m, j := binary.Varint(val[k:])
			d, _ := binary.Varint(val[k+j:])
			c.Birthday = msgkit.Date{Year: int(y), Month: time.Month(m), Day: int(d)}
		case tag == tagOptStatus:
			c.OptStatus = OptStatus(intern(val))
		case tag == tagOptStatusWebpush:
			c.OptStatusWebpush = OptStatus(intern(val))
		case tag == tagOptStatusWhatsApp:
			c.OptStatusWhatsApp = OptStatus(intern(val))
		case tag == tagTelegramName:
			c.Telegram.Name = intern(val)
		case tag == tagTelegramIdentifier:
			c.Telegram.Identifier = string(val)
		case tag == tagTelegramOptStatus:
			c.Telegram.OptStatus = OptStatus(intern(val))
		case tag == tagTelegramData:
			c.Telegram.Data = slices.Clone(val)
		case tag == tagListUUID:
			c.ListUUID = string(val)
		case tag == tagMember:
			c.Member = MemberStatus(intern(val))
		case tag == tagGiven:
			given = append(given, intern(val))
		}
	}
	if len(given) > 0 {
		it.Given = given
	}
	return rest
}

// internTable holds the short strings items repeat (field names, statuses),
// so that unpacking them allocates nothing.
var internTable = func() map[string]string {
	m := map[string]string{}
	for _, f := range segmentation.Fields() {
		m[f.String()] = f.String()
	}
	for _, s := range []string{"opt_status", "channel_telegram_identifier", "channel_telegram_opt_status", "channel_telegram_data",
		string(OptIn), string(OptOut), string(Subscribed), string(Unsubscribed), ChannelTelegram} {
		m[s] = s
	}
	return m
}()

// intern is b as a string, from internTable when it is there.
func intern(b []byte) string {
	if s, ok := internTable[string(b)]; ok {
		return s
	}
	return string(b)
}
