//go:build !race

package contactstest

// raceEnabled says the race detector is on (race.go).
const raceEnabled = false
