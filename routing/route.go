package routing

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
)

// Unused is the connection id of the unused one of smpp_connect_id and
// esme_connect_id.
const Unused = "0"

// Route is an inbound MT routing record.
type Route struct {
	ID      int64
	Sigtran string // sigtran_connect_id
	SMPP    string // smpp_connect_id; Unused when ESME is set
	ESME    string // esme_connect_id; Unused when SMPP is set
}

// Input is a create or update body: each member as sent (nil when
// absent), read by Fill.
type Input struct {
	ID      json.RawMessage `json:"id"`
	Sigtran json.RawMessage `json:"sigtran_connect_id"`
	SMPP    json.RawMessage `json:"smpp_connect_id"`
	ESME    json.RawMessage `json:"esme_connect_id"`
}

// Fill reads in into a route and names every problem at once. The id is
// in's when given (hasID reports it), else 0.
func Fill(in Input) (r Route, hasID bool, err error) {
	var p []msgkit.FieldError
	add := func(name, msg string) { p = append(p, msgkit.FieldError{Name: name, Message: msg}) }
	if raw := bytes.TrimSpace(in.ID); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		id, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || id < 1 {
			add("id", "id must be a whole number from 1 to 9223372036854775807")
		} else {
			r.ID, hasID = id, true
		}
	}
	conn := func(name string, raw json.RawMessage) string {
		v, msg := connID(raw)
		if msg != "" {
			add(name, name+" "+msg)
		}
		return v
	}
	r.Sigtran = conn("sigtran_connect_id", in.Sigtran)
	r.SMPP = conn("smpp_connect_id", in.SMPP)
	r.ESME = conn("esme_connect_id", in.ESME)
	if r.Sigtran == Unused && len(p) == 0 {
		add("sigtran_connect_id", "sigtran_connect_id is required: the SIGTRAN connection the messages arrive on")
	}
	switch smpp, esme := r.SMPP != Unused, r.ESME != Unused; {
	case len(p) > 0:
	case smpp && esme:
		add("smpp_connect_id", "smpp_connect_id is set together with esme_connect_id: set one, the unused one is 0")
		add("esme_connect_id", "esme_connect_id is set together with smpp_connect_id: set one, the unused one is 0")
	case !smpp && !esme:
		add("smpp_connect_id", "smpp_connect_id or esme_connect_id is required")
		add("esme_connect_id", "esme_connect_id or smpp_connect_id is required")
	}
	if len(p) > 0 {
		e := msgkit.New(msgkit.Invalid, CodeInvalidRoute, "the route is invalid")
		e.Fields = p
		return Route{}, false, e
	}
	return r, hasID, nil
}

// connID reads a connection id sent as a string or a number; absent,
// null, "" and 0 are Unused. The message says what is wrong, "" when
// nothing is.
func connID(raw json.RawMessage) (string, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Unused, ""
	}
	var s string
	switch {
	case raw[0] == '"':
		if json.Unmarshal(raw, &s) != nil {
			return Unused, "must be a string or a number"
		}
		s = strings.TrimSpace(s)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return Unused, "must be a whole number of at least 0, or a string"
		}
		s = strconv.FormatUint(n, 10)
	default:
		return Unused, "must be a string or a number"
	}
	if s == "" || s == Unused {
		return Unused, ""
	}
	if len(s) > 64 || strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return Unused, "must be 1 to 64 letters, digits, '.', '_' or '-'"
	}
	return s, ""
}
