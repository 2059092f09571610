package sms

import "time"

// Received is an SMS-DELIVER that a test handset received: when, on which
// network (MCC and MNC digits, e.g. "22601"), and its PDU as
// gsm.EncodeDeliver writes it and gsm.DecodeDeliver reads it.
type Received struct {
	At      time.Time // when the handset received it
	Network string    // MCC and MNC of the network the handset was on
	PDU     []byte    // PDU mode: SMSC address information, then the TPDU
}
