package sms

import "strconv"

// Event is a delivery report event (the interface's dlrMask events). Its value is
// its bit in a DLRMask.
type Event uint8

// The delivery report events and their mask bits.
const (
	EventDelivered   Event = 1  // final: delivered to the phone
	EventUndelivered Event = 2  // final: not delivered to the phone
	EventBuffered    Event = 4  // temporary: queued on the SMSC after a failed attempt
	EventSentToSMSC  Event = 8  // temporary: handed to the destination network
	EventRejected    Event = 16 // final: not accepted by the SMSC
)

// Events lists every event in bit order.
func Events() []Event {
	return []Event{EventDelivered, EventUndelivered, EventBuffered, EventSentToSMSC, EventRejected}
}

// String is the event as delivery reports spell it.
func (e Event) String() string {
	switch e {
	case EventDelivered:
		return "DELIVERED"
	case EventUndelivered:
		return "UNDELIVERED"
	case EventBuffered:
		return "BUFFERED"
	case EventSentToSMSC:
		return "SENT_TO_SMSC"
	case EventRejected:
		return "REJECTED"
	}
	return "Event(" + strconv.Itoa(int(e)) + ")"
}

// Final reports whether the event ends the report stream of a part.
func (e Event) Final() bool {
	return e == EventDelivered || e == EventUndelivered || e == EventRejected
}

// ParseEvent reads an event name as String writes it.
func ParseEvent(s string) (Event, bool) {
	for _, e := range Events() {
		if e.String() == s {
			return e, true
		}
	}
	return 0, false
}

// DLRMask is the sum of the bits of the events a customer wants reported.
type DLRMask uint8

// Mask values.
const (
	// RecommendedDLRMask reports every final event: 1+2+16.
	RecommendedDLRMask DLRMask = DLRMask(EventDelivered | EventUndelivered | EventRejected)
	// MaxDLRMask has every bit set: 1+2+4+8+16.
	MaxDLRMask DLRMask = 31
)

// ParseDLRMask checks a mask from a request. 0 (no reports) to 31 are valid;
// anything else is 112 (RC_BAD_PARAMETER_VALUE) naming dlrMask.
func ParseDLRMask(n int64) (DLRMask, error) {
	if n < 0 || n > int64(MaxDLRMask) {
		return 0, CodeBadParameterValue.FieldErrorf("dlrMask", "dlrMask must be between 0 and %d", MaxDLRMask)
	}
	return DLRMask(n), nil
}

// Allows reports whether the mask asks for reports of e.
func (m DLRMask) Allows(e Event) bool { return e.Valid() && m&DLRMask(e) != 0 }

// Valid reports whether e is one of the five events (a single mask bit).
func (e Event) Valid() bool { return e != 0 && e <= EventRejected && e&(e-1) == 0 }
