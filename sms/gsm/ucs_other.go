//go:build !amd64 || purego

package gsm

// scanUCS is scanUCSWords where no assembly scanner exists.
func scanUCS(text string, cuts []cut) (walk, bool) {
	return scanUCSWords(text, cuts)
}
