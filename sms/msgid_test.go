package sms_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/sms"
)

// Ids are version 7 UUIDs that carry their millisecond, and sort as text
// in the order of their times: the law the stores' indexes count on.
func TestNewMessageIDOrdersByTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms1 := rapid.Int64Range(0, 1<<47).Draw(t, "ms1")
		ms2 := rapid.Int64Range(0, 1<<47).Draw(t, "ms2")
		a, b := sms.NewMessageID(time.UnixMilli(ms1)), sms.NewMessageID(time.UnixMilli(ms2))
		for _, id := range []sms.MessageID{a, b} {
			u, err := uuid.Parse(string(id))
			if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("%s: not a version 7 UUID (%v)", id, err)
			}
		}
		sec, nsec := uuid.MustParse(string(a)).Time().UnixTime()
		if got := sec*1000 + nsec/1e6; got != ms1 {
			t.Fatalf("%s carries %d ms, want %d", a, got, ms1)
		}
		if ms1 < ms2 && strings.Compare(string(a), string(b)) >= 0 {
			t.Fatalf("%s (ms %d) does not sort before %s (ms %d)", a, ms1, b, ms2)
		}
	})
}

func TestNewMessageIDUnique(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	seen := map[sms.MessageID]bool{}
	for range 100_000 {
		id := sms.NewMessageID(now)
		if seen[id] {
			t.Fatalf("%s twice in one millisecond", id)
		}
		seen[id] = true
	}
}

func BenchmarkNewMessageID(b *testing.B) {
	now := time.Now()
	for b.Loop() {
		sms.NewMessageID(now)
	}
}
