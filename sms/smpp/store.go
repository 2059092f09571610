package smpp

import (
	"context"

	"github.com/msgkit/msgkit/sms"
)

// PartKey names one part of an accepted message.
type PartKey struct {
	MsgID   sms.MessageID
	PartNum int
}

// Submitted is a part the SMSC took: the message id its submit_sm_resp
// gave, on a named connection (ids are the SMSC's, so they are unique per
// connection only).
type Submitted struct {
	PartKey
	Conn   string
	SMSCID string
}

// Store keeps what the client must not forget across restarts: which
// parts each SMSC took, under which id. Every method is one atomic
// operation; a store shared by replicas lets a receipt arriving on one
// find a part another submitted.
type Store interface {
	// SaveSubmitted records parts the SMSC took. Saving a part again (a
	// resend after a lost response) keeps the newest id.
	SaveSubmitted(ctx context.Context, subs []Submitted) error
	// SubmittedParts returns, of keys, those some connection's SMSC took,
	// with their record: a part among them is not sent again.
	SubmittedParts(ctx context.Context, keys []PartKey) (map[PartKey]Submitted, error)
	// PartsOf returns the parts that connection conn's SMSC calls by
	// ids, by id; ids that name no part are left out. A receipt's ids are
	// the variants of the one it carries, looked up in one call with
	// those of the receipts that came with it.
	PartsOf(ctx context.Context, conn string, ids []string) (map[string]Submitted, error)
}
