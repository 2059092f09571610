package sms

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// NewMessageID returns a version 7 UUID (RFC 9562) for a message submitted
// at now: the Unix millisecond first, then 74 random bits. Ids made later
// sort after earlier ones (as text too: the time is in fixed-width hex),
// so a store's index on them takes each new id at its end, where its pages
// are in memory already, rather than at a random leaf of a tree that grows
// with every message kept. Within one millisecond the order is random;
// collisions need two of 2^74 values to meet in the same millisecond.
func NewMessageID(now time.Time) MessageID {
	var u uuid.UUID
	rand.Read(u[6:]) // never fails (crypto/rand)
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(u[:6], ms[2:])
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // variant RFC 9562
	return MessageID(u.String())
}
