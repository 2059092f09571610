package testsystem

import (
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

// The codes of the stores' refusals; both stores answer them through the
// constructors below.
const (
	// CodeInvalidDataset: a dataset breaks a rule (Invalid).
	CodeInvalidDataset = "invalid_dataset"
	// CodeDatasetNameExists: two records of one list and owner would
	// have one name (Conflict).
	CodeDatasetNameExists = "dataset_name_exists"
	// CodeDatasetBadReference: a route of a dataset names a gate,
	// category or supplier that does not exist (Invalid).
	CodeDatasetBadReference = "dataset_invalid_reference"
	// CodeMessageExists: a test message id is stored already (Conflict).
	CodeMessageExists = "message_exists"
	// CodeInvalidSession, CodeInvalidResult and CodeInvalidCallback: a
	// store cannot keep what a session, a result or a callback holds
	// (Invalid).
	CodeInvalidSession  = "session_invalid"
	CodeInvalidResult   = "result_invalid"
	CodeInvalidCallback = "callback_invalid"
)

// DatasetNameExists is the error of a dataset that would give two records
// of one list and owner the name name ("" when the store cannot tell
// which); cause is the store's, if any.
func DatasetNameExists(name string, cause error) error {
	if name == "" {
		return msgkit.Wrap(cause, msgkit.Conflict, CodeDatasetNameExists, "two records of one list would have the same name")
	}
	return msgkit.Wrap(cause, msgkit.Conflict, CodeDatasetNameExists, msgkit.Sprintf("two records of one list would have the same name %q", name))
}

// DatasetBadReference is the error of a dataset whose route paramID (0
// when the store cannot tell which) names a gate, category or supplier
// that does not exist; cause is the store's, if any.
func DatasetBadReference(paramID int64, cause error) error {
	if paramID == 0 {
		return msgkit.Wrap(cause, msgkit.Invalid, CodeDatasetBadReference, "a route of the dataset refers to a record that does not exist")
	}
	return msgkit.Wrap(cause, msgkit.Invalid, CodeDatasetBadReference, msgkit.Sprintf("route %d refers to a record that does not exist", paramID))
}

// MessageExists is the error of a session whose message id (""
// when the store cannot tell which) is stored already; cause is the
// store's, if any.
func MessageExists(id sms.MessageID, cause error) error {
	if id == "" {
		return msgkit.Wrap(cause, msgkit.Conflict, CodeMessageExists, "a test message id exists")
	}
	return msgkit.Wrap(cause, msgkit.Conflict, CodeMessageExists, "test message "+string(id)+" exists")
}
