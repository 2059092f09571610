package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// smppFile is the -smpp file: one SMSC connection the bulk SMS gateway
// sends through instead of the simulated network. Durations are Go
// durations ("30s"); the password is given in clear or as the name of an
// environment variable.
type smppFile struct {
	Name         string `json:"name"`
	Addr         string `json:"addr"`
	TLS          bool   `json:"tls"`
	TLSInsecure  bool   `json:"tlsInsecureSkipVerify"` // a test SMSC's own certificate
	SystemID     string `json:"systemId"`
	Password     string `json:"password"`
	PasswordEnv  string `json:"passwordEnv"`
	SystemType   string `json:"systemType"`
	AddressRange string `json:"addressRange"`
	Mode         string `json:"mode"` // transceiver (default), transmitter
	Binds        int    `json:"binds"`
	Receivers    int    `json:"receivers"` // with mode transmitter
	Window       int    `json:"window"`
	Timeout      string `json:"timeout"`
	EnquireEvery string `json:"enquireEvery"`
	Concat       string `json:"concat"` // udh8 (default), udh16, sar
	GSMPacked    bool   `json:"gsmPacked"`
	ServiceType  string `json:"serviceType"`
	// TimeZone is the SMSC's, for the dates of its receipts, which carry
	// none: an IANA name ("Europe/Ljubljana") or a fixed offset
	// ("+01:00"); default UTC.
	TimeZone string `json:"timezone"`
}

// loadSMPP reads the -smpp file, strictly.
func loadSMPP(path string, getenv func(string) string) (*smpp.Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-smpp: %w", err)
	}
	var f smppFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("-smpp %s: %w", path, err)
	}
	bad := func(format string, args ...any) (*smpp.Config, error) {
		return nil, fmt.Errorf("-smpp %s: "+format, append([]any{path}, args...)...)
	}
	if f.Addr == "" || f.SystemID == "" {
		return bad("addr and systemId are required")
	}
	password, err := secretSource{getenv}.get(f.Password, f.PasswordEnv)
	if err != nil {
		return bad("password: %v", err)
	}
	c := &smpp.Config{
		Name: f.Name, Addr: f.Addr, SystemID: f.SystemID, Password: password, SystemType: f.SystemType,
		Range: pdu.Address{Addr: f.AddressRange}, Binds: f.Binds, Receivers: f.Receivers, Window: f.Window,
		GSMPacked: f.GSMPacked, ServiceType: f.ServiceType,
	}
	if f.TLS {
		c.TLS = &tls.Config{InsecureSkipVerify: f.TLSInsecure}
	}
	switch f.Mode {
	case "", "transceiver":
		c.Mode = pdu.Transceiver
	case "transmitter":
		c.Mode = pdu.Transmitter
	default:
		return bad("mode must be transceiver or transmitter, not %q", f.Mode)
	}
	switch f.Concat {
	case "", "udh8":
		c.Concat = smpp.ConcatUDH8
	case "udh16":
		c.Concat = smpp.ConcatUDH16
	case "sar":
		c.Concat = smpp.ConcatSAR
	default:
		return bad("concat must be udh8, udh16 or sar, not %q", f.Concat)
	}
	if c.Timeout, err = duration("timeout", f.Timeout); err != nil {
		return bad("%v", err)
	}
	if c.EnquireEvery, err = duration("enquireEvery", f.EnquireEvery); err != nil {
		return bad("%v", err)
	}
	if f.Window < 0 || f.Window > 1000 || f.Binds < 0 || f.Receivers < 0 {
		return bad("window is 1 to 1000, binds and receivers at least 0")
	}
	if c.TimeZone, err = timeZone(f.TimeZone); err != nil {
		return bad("%v", err)
	}
	return c, nil
}

// timeZone reads the timezone of a configuration file: "" is UTC, an
// offset "+01:00" or "-0330" a fixed zone, anything else an IANA name
// (the system's zone database, or Go's embedded one when the binary
// imports time/tzdata). "Local" is refused: the SMSC's zone is not the
// server's by chance.
func timeZone(raw string) (*time.Location, error) {
	if raw == "" {
		return time.UTC, nil
	}
	if raw[0] == '+' || raw[0] == '-' {
		for _, layout := range []string{"-07:00", "-0700", "-07"} {
			if t, err := time.Parse(layout, raw); err == nil {
				_, off := t.Zone()
				return time.FixedZone(raw, off), nil
			}
		}
		return nil, fmt.Errorf("timezone: %q is not an offset such as +01:00", raw)
	}
	if raw == "Local" {
		return nil, fmt.Errorf("timezone: name the SMSC's zone, not Local")
	}
	loc, err := time.LoadLocation(raw)
	if err != nil {
		return nil, fmt.Errorf("timezone: %q is not a time zone such as Europe/Ljubljana or +01:00", raw)
	}
	return loc, nil
}

// duration reads an optional Go duration of a configuration file; ""
// is 0, the default.
func duration(name, raw string) (time.Duration, error) {
	if raw == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s: %q is not a duration such as 5s", name, raw)
	}
	return d, nil
}
