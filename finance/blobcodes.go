package finance

import "github.com/msgkit/msgkit"

// The codes of a BlobStore's refusals; every BlobStore answers them
// through BlobExists and BlobNotFound.
const (
	CodeBlobExists   = "blob_exists"    // a key is taken (Conflict)
	CodeBlobNotFound = "blob_not_found" // no blob has the key (NotFound)
)

// BlobExists is the error of a Put whose key is taken.
func BlobExists(key string) error {
	return msgkit.Errorf(msgkit.Conflict, CodeBlobExists, "blob %s exists", key)
}

// BlobNotFound is the error of a key no blob has.
func BlobNotFound(key string) error {
	return msgkit.Errorf(msgkit.NotFound, CodeBlobNotFound, "blob %s not found", key)
}
