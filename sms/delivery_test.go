package sms

import (
	"testing"

	"pgregory.net/rapid"
)

func TestPartStateNames(t *testing.T) {
	tests := []struct {
		s     PartState
		name  string
		final bool
	}{
		{StateSubmitted, "submitted", false},
		{StateSentToSMSC, "sent_to_smsc", false},
		{StateBuffered, "buffered", false},
		{StateDelivered, "delivered", true},
		{StateUndelivered, "undelivered", true},
		{StateRejected, "rejected", true},
	}
	if len(PartStates()) != len(tests) {
		t.Fatalf("PartStates() has %d states, want %d", len(PartStates()), len(tests))
	}
	for i, tc := range tests {
		if got := PartStates()[i]; got != tc.s {
			t.Errorf("PartStates()[%d] = %v, want %v", i, got, tc.s)
		}
		if got := tc.s.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", tc.s, got, tc.name)
		}
		if got := tc.s.Final(); got != tc.final {
			t.Errorf("%v.Final() = %v, want %v", tc.s, got, tc.final)
		}
		if got, ok := ParsePartState(tc.name); !ok || got != tc.s {
			t.Errorf("ParsePartState(%q) = %v, %v", tc.name, got, ok)
		}
	}
	for _, s := range []PartState{0, 7, 255} {
		if s.Valid() || s.Final() || s.String() != "unknown" {
			t.Errorf("PartState(%d) is not a state", s)
		}
	}
	if _, ok := ParsePartState("SUBMITTED"); ok {
		t.Error("state names are lower case")
	}
}

// Every (state, status) pair: the delivery state table plus the choices documented at the
// top of delivery.go.
func TestStep(t *testing.T) {
	const (
		sub  = StateSubmitted
		sent = StateSentToSMSC
		buf  = StateBuffered
		dlv  = StateDelivered
		und  = StateUndelivered
		rej  = StateRejected
	)
	tests := []struct {
		state   PartState
		status  Status
		next    PartState
		event   Event
		changed bool
	}{
		{sub, StatusAccepted, sent, EventSentToSMSC, true},
		{sub, StatusDelivered, dlv, EventDelivered, true},
		{sub, StatusTemporaryFailure, buf, EventBuffered, true},
		{sub, StatusPermanentFailure, und, EventUndelivered, true},
		{sub, StatusRejected, rej, EventRejected, true},
		{sub, StatusExpired, und, EventUndelivered, true}, // silent network

		{sent, StatusAccepted, sent, 0, false}, // duplicate acceptance
		{sent, StatusDelivered, dlv, EventDelivered, true},
		{sent, StatusTemporaryFailure, buf, EventBuffered, true},
		{sent, StatusPermanentFailure, und, EventUndelivered, true},
		{sent, StatusRejected, sent, 0, false},             // the table rejects submitted parts only
		{sent, StatusExpired, und, EventUndelivered, true}, // silent network

		{buf, StatusAccepted, buf, 0, false}, // late acceptance
		{buf, StatusDelivered, dlv, EventDelivered, true},
		{buf, StatusTemporaryFailure, buf, EventBuffered, true}, // BUFFERED for each attempt
		{buf, StatusPermanentFailure, und, EventUndelivered, true},
		{buf, StatusRejected, buf, 0, false},
		{buf, StatusExpired, und, EventUndelivered, true},

		{dlv, StatusAccepted, dlv, 0, false},
		{dlv, StatusDelivered, dlv, 0, false},
		{dlv, StatusTemporaryFailure, dlv, 0, false},
		{dlv, StatusPermanentFailure, dlv, 0, false},
		{dlv, StatusRejected, dlv, 0, false},
		{dlv, StatusExpired, dlv, 0, false},

		{und, StatusAccepted, und, 0, false},
		{und, StatusDelivered, und, 0, false},
		{und, StatusTemporaryFailure, und, 0, false},
		{und, StatusPermanentFailure, und, 0, false},
		{und, StatusRejected, und, 0, false},
		{und, StatusExpired, und, 0, false},

		{rej, StatusAccepted, rej, 0, false},
		{rej, StatusDelivered, rej, 0, false},
		{rej, StatusTemporaryFailure, rej, 0, false},
		{rej, StatusPermanentFailure, rej, 0, false},
		{rej, StatusRejected, rej, 0, false},
		{rej, StatusExpired, rej, 0, false},
	}
	if len(tests) != 36 {
		t.Fatalf("table has %d rows, want 6 states × 6 statuses", len(tests))
	}
	seen := map[[2]uint8]bool{}
	for _, tc := range tests {
		seen[[2]uint8{uint8(tc.state), uint8(tc.status)}] = true
		next, ev, changed := Step(tc.state, tc.status)
		if next != tc.next || ev != tc.event || changed != tc.changed {
			t.Errorf("Step(%v, %v) = %v, %v, %v; want %v, %v, %v",
				tc.state, tc.status, next, ev, changed, tc.next, tc.event, tc.changed)
		}
	}
	if len(seen) != 36 {
		t.Errorf("table covers %d distinct pairs, want 36", len(seen))
	}
}

func TestStepIgnoresUnknown(t *testing.T) {
	for _, state := range []PartState{0, 7} {
		if next, ev, changed := Step(state, StatusDelivered); next != state || ev != 0 || changed {
			t.Errorf("Step(%d, delivered) = %v, %v, %v", state, next, ev, changed)
		}
	}
	for _, st := range []Status{0, 7, 255} {
		if next, ev, changed := Step(StateSubmitted, st); next != StateSubmitted || ev != 0 || changed {
			t.Errorf("Step(submitted, %d) = %v, %v, %v", st, next, ev, changed)
		}
	}
}

func TestErrorCodeFor(t *testing.T) {
	tests := []struct {
		status Status
		code   DLRError
		want   DLRError
	}{
		{StatusExpired, 0, DLRValidityExpired},
		{StatusExpired, DLRAbsentSubscriber, DLRValidityExpired},
		{StatusDelivered, 0, 0},
		{StatusDelivered, DLRAbsentSubscriber, 0},
		{StatusAccepted, DLRAbsentSubscriber, 0},
		{StatusTemporaryFailure, DLRAbsentSubscriber, DLRAbsentSubscriber},
		{StatusTemporaryFailure, DLRMemoryFull, DLRMemoryFull},
		{StatusTemporaryFailure, 0, 0},
		{StatusPermanentFailure, DLRSubscriberUnknown, DLRSubscriberUnknown},
		{StatusPermanentFailure, 0, DLROtherError},
		{StatusRejected, DLRSupplierRejected, DLRSupplierRejected},
		{StatusRejected, 0, DLROtherError},
	}
	for _, tc := range tests {
		if got := ErrorCodeFor(StatusEvent{Status: tc.status, ErrorCode: tc.code}); got != tc.want {
			t.Errorf("ErrorCodeFor(%v, %d) = %d, want %d", tc.status, tc.code, got, tc.want)
		}
	}
}

// From a submitted part, any sequence of network statuses (repeated,
// reordered, late) keeps the laws of the delivery state table: a final state is never
// left, at most one final event is reported, and it is the last change.
func TestStepLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		statuses := rapid.SliceOf(rapid.SampledFrom([]Status{
			StatusAccepted, StatusDelivered, StatusTemporaryFailure,
			StatusPermanentFailure, StatusRejected, StatusExpired,
		})).Draw(t, "statuses")

		state := StateSubmitted
		finals, changes, lastChange, finalAt := 0, 0, -1, -1
		for i, st := range statuses {
			next, ev, changed := Step(state, st)
			if state.Final() && (next != state || changed) {
				t.Fatalf("step %d: %v left final state %v for %v", i, st, state, next)
			}
			if !changed {
				if next != state || ev != 0 {
					t.Fatalf("step %d: unchanged step moved %v to %v with %v", i, state, next, ev)
				}
				continue
			}
			if !ev.Valid() {
				t.Fatalf("step %d: changed step reports no event (%v)", i, ev)
			}
			if ev.Final() != next.Final() {
				t.Fatalf("step %d: event %v final=%v but state %v final=%v", i, ev, ev.Final(), next, next.Final())
			}
			changes++
			lastChange = i
			if ev.Final() {
				finals++
				finalAt = i
			}
			state = next
		}
		if finals > 1 {
			t.Fatalf("%d final events", finals)
		}
		if finals == 1 && finalAt != lastChange {
			t.Fatalf("final event at step %d but a later change at %d", finalAt, lastChange)
		}
		if changes > 0 && !state.Valid() {
			t.Fatalf("ended in invalid state %d", state)
		}
	})
}

// An acceptance left unrecorded (statusChange does so when no report asks
// for it) changes nothing after it: from submitted and from sent to SMSC
// every status the network can send after accepting a part leads to the
// same state with the same event, so a part that stayed submitted ends
// exactly as one that moved. A refusal (StatusRejected) comes only at
// hand-over, before any acceptance.
func TestStepAcceptanceUnrecorded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		before := rapid.SliceOf(rapid.SampledFrom([]Status{StatusTemporaryFailure, StatusRejected})).Draw(t, "before")
		after := rapid.SliceOf(rapid.SampledFrom([]Status{
			StatusAccepted, StatusDelivered, StatusTemporaryFailure, StatusPermanentFailure, StatusExpired,
		})).Draw(t, "after")
		statuses := append(append(before, StatusAccepted), after...)

		recorded, unrecorded := StateSubmitted, StateSubmitted
		for i, st := range statuses {
			next, ev, changed := Step(recorded, st)
			if changed {
				recorded = next
			}
			un, unEv, unChanged := Step(unrecorded, st)
			if unChanged && un == StateSentToSMSC {
				unChanged, un, unEv = false, unrecorded, 0 // not recorded
			}
			if unChanged {
				unrecorded = un
			}
			if ev == EventSentToSMSC {
				ev, changed = 0, false // the event the unrecorded path never stores
			}
			if changed != unChanged || ev != unEv {
				t.Fatalf("step %d (%v): recorded gives %v %v %v, unrecorded %v %v %v", i, st, next, ev, changed, un, unEv, unChanged)
			}
			if recorded != unrecorded && !(recorded == StateSentToSMSC && unrecorded == StateSubmitted) {
				t.Fatalf("step %d (%v): states %v and %v", i, st, recorded, unrecorded)
			}
		}
	})
}
