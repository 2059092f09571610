package jsoncheck_test

import (
	"fmt"

	"github.com/msgkit/msgkit/jsoncheck"
)

// encoding/json would take each of these bodies, silently: it keeps the
// last of two keys that differ only in case, and stores a NUL that no
// PostgreSQL text column holds. Check refuses them, naming the member and
// never quoting the value.
func ExampleCheck() {
	long := map[string]int{"items[].name": 10} // the names of items: at most 10 characters
	for _, body := range []string{
		`{"items":[{"name":"sms","quantity":2}]}`,
		`{"items":[{"name":"sms","Name":"mms"}]}`,
		`{"items":[{"name":"a\u0000b"}]}`,
		`{"items":[{"name":"a name that is far too long"}]}`,
		`{"items":[`,
	} {
		if f := jsoncheck.Check([]byte(body), 255, long); f != nil {
			fmt.Printf("%s (field %q, not JSON %v)\n", f.Message, f.Field, f.Syntax)
			continue
		}
		fmt.Println("ok")
	}
	// Output:
	// ok
	// items[0].Name is given twice: keys that differ only in case name one field (field "items[0].Name", not JSON false)
	// items[0].name holds the NUL character (field "items[0].name", not JSON false)
	// items[0].name is longer than 10 characters (field "items[0].name", not JSON false)
	// the body ends inside a JSON value (field "", not JSON true)
}
