package campaign

import "github.com/msgkit/msgkit"

// The codes of the stores' refusals; both stores answer them through
// Exists and with CodeUnstorable.
const (
	// CodeExists: a campaign's UUID is taken (Conflict).
	CodeExists = "campaign_exists"
	// CodeUnstorable: a store cannot keep what a campaign holds (Invalid).
	CodeUnstorable = "campaign_invalid"
)

// Exists is the error of a create whose UUID is taken.
func Exists(id string) error {
	return msgkit.Errorf(msgkit.Conflict, CodeExists, "campaign %s exists", id)
}
