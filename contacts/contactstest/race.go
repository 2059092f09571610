//go:build race

package contactstest

// raceEnabled says the race detector is on: it makes reading phone
// numbers some ten times slower, so the memory test imports fewer.
const raceEnabled = true
