package sms

// PartState is where a part is in its delivery (the interface's delivery states).
type PartState uint8

// The states of a part.
const (
	StateSubmitted   PartState = iota + 1 // accepted by the gateway
	StateSentToSMSC                       // accepted by the network
	StateBuffered                         // a delivery attempt failed; retried within validity
	StateDelivered                        // final
	StateUndelivered                      // final
	StateRejected                         // final
)

var partStateNames = [...]string{
	StateSubmitted:   "submitted",
	StateSentToSMSC:  "sent_to_smsc",
	StateBuffered:    "buffered",
	StateDelivered:   "delivered",
	StateUndelivered: "undelivered",
	StateRejected:    "rejected",
}

// PartStates lists every state in order.
func PartStates() []PartState {
	return []PartState{StateSubmitted, StateSentToSMSC, StateBuffered, StateDelivered, StateUndelivered, StateRejected}
}

// String names the state in lower case ("sent_to_smsc"), the spelling stores
// and logs use.
func (s PartState) String() string {
	if s.Valid() {
		return partStateNames[s]
	}
	return "unknown"
}

// ParsePartState reads a state as String writes it.
func ParsePartState(name string) (PartState, bool) {
	for _, s := range PartStates() {
		if partStateNames[s] == name {
			return s, true
		}
	}
	return 0, false
}

// Valid reports whether s is one of the six states.
func (s PartState) Valid() bool { return s >= StateSubmitted && s <= StateRejected }

// Final reports whether the part's delivery is over: delivered, undelivered
// or rejected. No status changes a final state.
func (s PartState) Final() bool {
	return s == StateDelivered || s == StateUndelivered || s == StateRejected
}

// Step applies one network status to a part in state. When the status
// matters it returns the next state, the event to report (if the customer's
// mask allows it) and changed true; otherwise it returns state, no event (0)
// and false. It is pure (no I/O, no clock) so that the gateway, the stores
// and the tests all agree on it. The rows are the bulk SMS interface's
// delivery table, with the network Status that triggers each:
//
//	submitted        + accepted          -> sent to SMSC  SENT_TO_SMSC
//	submitted|sent   + delivered         -> delivered     DELIVERED
//	submitted|sent   + temporary failure -> buffered      BUFFERED
//	buffered         + temporary failure -> buffered      BUFFERED (each attempt)
//	buffered         + delivered         -> delivered     DELIVERED (a later attempt)
//	any non-final    + permanent failure -> undelivered   UNDELIVERED
//	buffered         + expired           -> undelivered   UNDELIVERED
//	submitted|sent   + expired           -> undelivered   UNDELIVERED
//	submitted        + rejected          -> rejected      REJECTED
//
// Choices where the table is silent:
//   - A part the network never answers (submitted or sent to SMSC) is
//     UNDELIVERED with 996 when its validity expires, like a buffered one:
//     a silent network must not leave a part open for ever.
//   - buffered + temporary failure is a change (changed is true) although
//     the state stays: the table sends BUFFERED for each attempt.
//   - Everything else is ignored (changed false, state kept): any status
//     after a final state (final events end the report stream), a repeated
//     acceptance, an acceptance that arrives after a failed attempt (late:
//     the part is already past the SMSC), and a rejection once the part is
//     sent to SMSC or buffered (the table rejects only submitted parts; such
//     a part ends by a later report or by expiry). Networks repeat and
//     reorder reports, so ignoring is not an error.
//   - Unknown states or statuses are ignored the same way.
func Step(state PartState, ev Status) (next PartState, report Event, changed bool) {
	switch state {
	case StateSubmitted, StateSentToSMSC, StateBuffered:
	default: // final or unknown: the report stream is over
		return state, 0, false
	}
	switch ev {
	case StatusAccepted:
		if state == StateSubmitted {
			return StateSentToSMSC, EventSentToSMSC, true
		}
	case StatusDelivered:
		return StateDelivered, EventDelivered, true
	case StatusTemporaryFailure:
		return StateBuffered, EventBuffered, true
	case StatusPermanentFailure, StatusExpired:
		return StateUndelivered, EventUndelivered, true
	case StatusRejected:
		if state == StateSubmitted {
			return StateRejected, EventRejected, true
		}
	}
	return state, 0, false
}

// ErrorCodeFor is the errorCode of the report that ev causes:
//   - expiry is always 996 (validity expired), whatever the network said;
//   - delivery and acceptance carry 0 (no error);
//   - a permanent failure or a rejection without a code carries 500 (other
//     error), so that a final failure never reports "no error";
//   - anything else carries the network's code (a temporary failure may
//     carry 0 when the network gave no reason).
func ErrorCodeFor(ev StatusEvent) DLRError {
	switch ev.Status {
	case StatusExpired:
		return DLRValidityExpired
	case StatusDelivered, StatusAccepted:
		return DLRNoError
	case StatusPermanentFailure, StatusRejected:
		if ev.ErrorCode == DLRNoError {
			return DLROtherError
		}
	}
	return ev.ErrorCode
}
