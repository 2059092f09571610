// Command splitbench compares msgkit's splitter (gsm.CountText and
// gsm.SplitText) with the node package split-sms on the texts of the gsm
// package's benchmarks (testdata/texts.json): a 160-character GSM text, 1000
// bytes of GSM text with extension characters, 500 Cyrillic characters and
// 500 Cyrillic characters with emoji.
//
// Usage, from the repository's root:
//
//	go run ./examples/splitbench -rounds 5
//
// It runs `npm ci` when node_modules is missing, then, each round, bench.js
// (split-sms 0.1.7, pinned by package-lock.json) and the Go benchmarks, and
// prints the median ns/op of both and node's time over Go's, for counting
// (split-sms's split with {summary: true}) and splitting: "split" is
// gsm.SplitText, which allocates the parts on every call, "into" is
// gsm.SplitTextInto reusing one slice of parts from call to call, as the
// gateway splits (its parts on the stack); both against split-sms's split.
// Without node and npm it prints the Go figures only. Where split-sms splits
// a text otherwise than msgkit it says so: split-sms ignores the escape
// character and keeps no UTF-8 to check, so such differences are details of
// the rules, not errors.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/msgkit/msgkit/sms/gsm"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "splitbench:", err)
		os.Exit(1)
	}
}

// text is one entry of testdata/texts.json.
type text struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// nodeRun is what bench.js prints.
type nodeRun struct {
	Node    string       `json:"node"`
	Results []nodeResult `json:"results"`
}

type nodeResult struct {
	Name    string     `json:"name"`
	DCS     string     `json:"dcs"`
	Units   int        `json:"units"`
	Parts   []nodePart `json:"parts"`
	CountNs float64    `json:"countNs"`
	SplitNs float64    `json:"splitNs"`
}

type nodePart struct {
	Text  string `json:"text"`
	Units int    `json:"units"`
}

// times holds one text's ns/op per round, for the median.
type times struct {
	goCount, goSplit, goInto, nodeCount, nodeSplit []float64
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("splitbench", flag.ContinueOnError)
	dir := fs.String("dir", "examples/splitbench", "directory of bench.js, package.json and testdata")
	rounds := fs.Int("rounds", 1, "rounds to take the medians of")
	nodeMs := fs.Int("node-ms", 300, "milliseconds bench.js spends on each measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	texts, err := readTexts(filepath.Join(*dir, "testdata", "texts.json"))
	if err != nil {
		return err
	}
	useNode, err := prepareNode(*dir, out)
	if err != nil {
		return err
	}
	all := make([]times, len(texts))
	var last nodeRun
	for range *rounds {
		if useNode {
			if last, err = runNode(*dir, *nodeMs); err != nil {
				return err
			}
			if len(last.Results) != len(texts) {
				return fmt.Errorf("bench.js timed %d texts, want %d", len(last.Results), len(texts))
			}
			for i, r := range last.Results {
				all[i].nodeCount = append(all[i].nodeCount, r.CountNs)
				all[i].nodeSplit = append(all[i].nodeSplit, r.SplitNs)
			}
		}
		for i, t := range texts {
			all[i].goCount = append(all[i].goCount, goNs(func() error { _, err := gsm.CountText(t.Text, gsm.DCSAuto); return err }))
			all[i].goSplit = append(all[i].goSplit, goNs(func() error { _, err := gsm.SplitText(t.Text, gsm.DCSAuto, 1); return err }))
			var parts []gsm.Part
			all[i].goInto = append(all[i].goInto, goNs(func() error {
				m, err := gsm.SplitTextInto(parts, t.Text, gsm.DCSAuto, 1)
				parts = m.Parts
				return err
			}))
		}
	}
	if useNode {
		fmt.Fprintf(out, "node %s, split-sms 0.1.7; medians of %d rounds\n\n", last.Node, *rounds)
	} else {
		fmt.Fprintf(out, "Go only; medians of %d rounds\n\n", *rounds)
	}
	writeTable(out, texts, all)
	if useNode {
		for i, t := range texts {
			for _, d := range differences(t.Text, last.Results[i]) {
				fmt.Fprintf(out, "%s: %s\n", t.Name, d)
			}
		}
	}
	return nil
}

func readTexts(path string) ([]text, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run from the repository's root, or give -dir)", err)
	}
	var texts []text
	if err := json.Unmarshal(b, &texts); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return texts, nil
}

// prepareNode tells whether node can be timed, installing split-sms with
// npm ci when node_modules is missing.
func prepareNode(dir string, out io.Writer) (bool, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(out, "%s not found: timing Go only (install Node.js to compare with split-sms)\n", tool)
			return false, nil
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "split-sms")); err == nil {
		return true, nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("npm ci in %s: %w", dir, err)
	}
	return true, nil
}

func runNode(dir string, ms int) (nodeRun, error) {
	cmd := exec.Command("node", "bench.js", filepath.Join("testdata", "texts.json"), fmt.Sprint(ms))
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nodeRun{}, fmt.Errorf("node bench.js: %w", err)
	}
	return parseNode(b)
}

func parseNode(b []byte) (nodeRun, error) {
	var r nodeRun
	if err := json.Unmarshal(b, &r); err != nil {
		return nodeRun{}, fmt.Errorf("bench.js output: %w", err)
	}
	if len(r.Results) == 0 {
		return nodeRun{}, errors.New("bench.js output: no results")
	}
	for _, res := range r.Results {
		if res.CountNs <= 0 || res.SplitNs <= 0 {
			return nodeRun{}, fmt.Errorf("bench.js output: %s has no time", res.Name)
		}
	}
	return r, nil
}

// goNs times f as a Go benchmark, in ns per call.
func goNs(f func() error) float64 {
	var failed error
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if err := f(); err != nil {
				failed = err
			}
		}
	})
	if failed != nil || r.N == 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeTable prints a row per text and operation: the medians, and node's
// time over Go's (how many times faster Go is).
func writeTable(out io.Writer, texts []text, all []times) {
	const row = "%-12s %-5s %9s %10s %8s\n"
	fmt.Fprintf(out, row, "text", "op", "Go ns/op", "node ns/op", "node/Go")
	for i, t := range texts {
		for _, op := range []struct {
			name     string
			goNs, js []float64
		}{
			{"count", all[i].goCount, all[i].nodeCount},
			{"split", all[i].goSplit, all[i].nodeSplit},
			{"into", all[i].goInto, all[i].nodeSplit},
		} {
			g, n := median(op.goNs), median(op.js)
			node, ratio := "-", "-"
			if n > 0 && g > 0 {
				node, ratio = fmt.Sprintf("%.0f", n), fmt.Sprintf("%.2fx", n/g)
			}
			fmt.Fprintf(out, row, t.Name, op.name, fmt.Sprintf("%.0f", g), node, ratio)
		}
	}
}

// differences lists where split-sms's split of s (node) is not msgkit's.
func differences(s string, node nodeResult) []string {
	m, err := gsm.SplitText(s, gsm.DCSAuto, 1)
	if err != nil {
		return []string{fmt.Sprintf("msgkit refuses the text: %v", err)}
	}
	var d []string
	if m.DCS.String() != node.DCS {
		d = append(d, fmt.Sprintf("coding: msgkit %s, split-sms %s", m.DCS, node.DCS))
	}
	total := 0
	for _, p := range m.Parts {
		total += p.Units
	}
	if total != node.Units {
		d = append(d, fmt.Sprintf("units: msgkit %d, split-sms %d", total, node.Units))
	}
	if len(m.Parts) != len(node.Parts) {
		d = append(d, fmt.Sprintf("parts: msgkit %d, split-sms %d", len(m.Parts), len(node.Parts)))
	}
	for i := range min(len(m.Parts), len(node.Parts)) {
		g, n := m.Parts[i], node.Parts[i]
		if g.Units != n.Units || g.Text != n.Text {
			d = append(d, fmt.Sprintf("part %d: msgkit %d units %q, split-sms %d units %q", i+1, g.Units, g.Text, n.Units, n.Text))
		}
	}
	return d
}
