package uiproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// The grid answer is read in one pass over its bytes, after
// json.Valid: a proxied page is mostly rows that go back out as they
// came, so the rows' values are checked and copied rather than decoded
// into maps and encoded again (a page of ten rows costs a fraction of
// what encoding/json's maps cost; see BenchmarkProxyGrid). The scanner
// below may therefore assume well-formed JSON.

// skipSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// eachMember calls f with the key and value of each member of the object
// that starts at b[i], in order, and returns the index just past it.
func eachMember(b []byte, i int, f func(key string, v []byte) error) (int, error) {
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return i + 1, nil
	}
	for {
		end := skipString(b, i)
		key := b[i+1 : end-1]
		var name string
		if bytes.IndexByte(key, '\\') >= 0 {
			json.Unmarshal(b[i:end], &name) // valid JSON: cannot fail
		} else {
			name = string(key)
		}
		i = skipSpace(b, skipSpace(b, end)+1) // past ':'
		vEnd := skipValue(b, i)
		if err := f(name, b[i:vEnd]); err != nil {
			return 0, err
		}
		i = skipSpace(b, vEnd)
		if b[i] == '}' {
			return i + 1, nil
		}
		i = skipSpace(b, i+1) // past ','
	}
}

// readRows reads the array of rows at the start of data for component
// c: each row an object whose configured columns are checked and kept,
// in column order, the last of a repeated member winning as in
// encoding/json.
func readRows(c Component, data []byte) ([]json.RawMessage, error) {
	if data[0] != '[' {
		return nil, fmt.Errorf("no data array")
	}
	rows := []json.RawMessage{}
	vals := make([][]byte, len(c.Columns))
	i := skipSpace(data, 1)
	for n := 0; data[i] != ']'; n++ {
		if data[i] != '{' {
			return nil, fmt.Errorf("row %d: not an object", n)
		}
		clear(vals)
		end, _ := eachMember(data, i, func(key string, v []byte) error {
			for k, col := range c.Columns {
				if col.Name == key {
					vals[k] = v
				}
			}
			return nil
		})
		for k, v := range vals {
			if v == nil {
				continue
			}
			if err := checkValue(c.Columns[k].Kind, v); err != nil {
				return nil, fmt.Errorf("row %d: column %s: %v", n, c.Columns[k].Name, err)
			}
		}
		rows = append(rows, rowJSON(c, vals))
		i = skipSpace(data, end)
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return rows, nil
}

// rowJSON is a row of the columns that have a value.
func rowJSON(c Component, vals [][]byte) json.RawMessage {
	size := 2
	for k, v := range vals {
		if v != nil {
			size += len(c.Columns[k].Name) + len(v) + 4
		}
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	for k, v := range vals {
		if v == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, c.Columns[k].Name...) // letters, digits and '_': no escaping
		out = append(out, '"', ':')
		out = append(out, v...)
	}
	return append(out, '}')
}

// checkValue checks a well-formed JSON value against a column kind: null
// for none, else a number, true or false, or a string (a date
// YYYY-MM-DD, an RFC 3339 date-time).
func checkValue(kind ColumnKind, v []byte) error {
	if string(v) == "null" {
		return nil
	}
	switch kind {
	case Number:
		if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
			return fmt.Errorf("not a number")
		}
		return nil
	case Boolean:
		if v[0] != 't' && v[0] != 'f' {
			return fmt.Errorf("not true or false")
		}
		return nil
	}
	if v[0] != '"' {
		return fmt.Errorf("not a string")
	}
	var s string
	switch kind {
	case Date, DateTime:
		if bytes.IndexByte(v, '\\') >= 0 {
			json.Unmarshal(v, &s) // valid JSON: cannot fail
		} else {
			s = string(v[1 : len(v)-1])
		}
	}
	switch kind {
	case Date:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("not a date YYYY-MM-DD")
		}
	case DateTime:
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("not an RFC 3339 date-time")
		}
	}
	return nil
}
