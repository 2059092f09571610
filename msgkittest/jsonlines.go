package msgkittest

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
)

// JSONLines is the standard output of a peer process that logs a JSON
// object a line (the interop tests' node scripts): an io.Writer that
// keeps every line, the events that parse as T and the lines that do
// not, safe for the process's writes beside the test's reads.
type JSONLines[T any] struct {
	mu      sync.Mutex
	partial []byte        // the start of a line not yet ended
	lines   []string      // every line, for a failure report
	evs     []T           // the lines that parsed
	bad     []string      // the lines that did not
	changed chan struct{} // closed and replaced when a line comes
}

// Write takes the process's output.
func (j *JSONLines[T]) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.partial = append(j.partial, p...)
	for {
		i := bytes.IndexByte(j.partial, '\n')
		if i < 0 {
			break
		}
		line := string(j.partial[:i])
		j.partial = j.partial[i+1:]
		j.lines = append(j.lines, line)
		var ev T
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			j.bad = append(j.bad, line)
			continue
		}
		j.evs = append(j.evs, ev)
	}
	if j.changed != nil {
		close(j.changed)
		j.changed = nil
	}
	return len(p), nil
}

// Events returns the events so far, and a channel closed when another
// line comes.
func (j *JSONLines[T]) Events() ([]T, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.changed == nil {
		j.changed = make(chan struct{})
	}
	return slices.Clone(j.evs), j.changed
}

// Lines returns every line so far, and those that were not JSON.
func (j *JSONLines[T]) Lines() (all, bad []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.lines), slices.Clone(j.bad)
}
