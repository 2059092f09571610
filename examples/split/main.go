// Command split shows how msgkit splits bulk SMS texts into physical
// messages. It reads one JSON string per line from standard input and writes
// one JSON object per line:
//
//	{"dcs":"GSM","numParts":2,"parts":[{"text":"…","units":153},…]}
//	{"error":{"code":"102","message":"…"}}
//
// Usage:
//
//	echo '"Hello {world}"' | go run ./examples/split -dcs auto
//
// The flag -dcs takes auto (the default), GSM or UCS, in any case. A line that
// is not a JSON string is answered with code 109 (bad content format).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the usage is printed, and asking for it is no failure
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "split:", err)
		os.Exit(1)
	}
}

type partOut struct {
	Text  string `json:"text"`
	Units int    `json:"units"`
}

type lineOut struct {
	DCS      string     `json:"dcs,omitempty"`
	NumParts int        `json:"numParts,omitempty"`
	Parts    []partOut  `json:"parts,omitempty"`
	Error    *errorBody `json:"error,omitempty"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func run(args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("split", flag.ContinueOnError)
	dcsFlag := fs.String("dcs", "auto", "data coding: auto, GSM or UCS")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dcs, err := sms.ParseDCS(*dcsFlag)
	if err != nil {
		return fmt.Errorf("-dcs: %s", msgkit.MessageOf(err))
	}
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for ref := uint8(1); ; ref++ {
		line, readErr := r.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(splitLine(line, dcs, ref)); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return w.Flush()
		}
		if readErr != nil {
			return readErr
		}
	}
}

func splitLine(line []byte, dcs gsm.DCS, ref uint8) lineOut {
	var text string
	if err := json.Unmarshal(line, &text); err != nil {
		return errorOut(sms.CodeBadContentFormat.Errorf("line is not a JSON string"))
	}
	m, err := gsm.SplitText(text, dcs, ref)
	if err != nil {
		return errorOut(err)
	}
	o := lineOut{DCS: m.DCS.String(), NumParts: m.NumParts(), Parts: make([]partOut, len(m.Parts))}
	for i, p := range m.Parts {
		o.Parts[i] = partOut{Text: p.Text, Units: p.Units}
	}
	return o
}

func errorOut(err error) lineOut {
	return lineOut{Error: &errorBody{Code: sms.CodeOf(err).String(), Message: msgkit.MessageOf(err)}}
}
