package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The texts are the sms package's benchmark texts, by name and length.
func TestTexts(t *testing.T) {
	texts, err := readTexts("testdata/texts.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name        string
		bytes, runs int // runs: characters, 0 when bytes says it
	}{{"GSM160", 0, 160}, {"GSM1000ext", 1000, 0}, {"UCS500", 0, 500}, {"UCS500emoji", 0, 500}}
	if len(texts) != len(want) {
		t.Fatalf("%d texts, want %d", len(texts), len(want))
	}
	for i, w := range want {
		got := texts[i]
		if got.Name != w.name || (w.bytes != 0 && len(got.Text) != w.bytes) || (w.runs != 0 && utf8.RuneCountInString(got.Text) != w.runs) {
			t.Errorf("text %d: %s of %d bytes, %d characters; want %+v", i, got.Name, len(got.Text), utf8.RuneCountInString(got.Text), w)
		}
	}
}

func TestParseNode(t *testing.T) {
	got, err := parseNode([]byte(`{"node":"v20.1.0","results":[{"name":"a","dcs":"GSM","units":2,"parts":[{"text":"hi","units":2}],"countNs":10.5,"splitNs":20}],"sink":7}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := nodeRun{Node: "v20.1.0", Results: []nodeResult{{Name: "a", DCS: "GSM", Units: 2, Parts: []nodePart{{Text: "hi", Units: 2}}, CountNs: 10.5, SplitNs: 20}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "not json", `{"results":[{"name":"a","countNs":0,"splitNs":1}]}`, `{"sink":1,"other":2}`} {
		if _, err := parseNode([]byte(bad)); err == nil {
			t.Errorf("parseNode(%q) took it", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, []text{{Name: "UCS500"}}, []times{{
		goCount: []float64{400, 500, 600}, goSplit: []float64{700}, goInto: []float64{500},
		nodeCount: []float64{1500, 1400, 1600},
	}})
	want := "" +
		"text         op     Go ns/op node ns/op  node/Go\n" +
		"UCS500       count       500       1500    3.00x\n" +
		"UCS500       split       700          -        -\n" +
		"UCS500       into        500          -        -\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDifferences(t *testing.T) {
	same := nodeResult{DCS: "UCS", Units: 4, Parts: []nodePart{{Text: "жж😀", Units: 4}}}
	if d := differences("жж😀", same); len(d) != 0 {
		t.Errorf("differences on the same split: %q", d)
	}
	// split-sms does not know the escape character: it sends a space.
	other := nodeResult{DCS: "GSM", Units: 3, Parts: []nodePart{{Text: "a b", Units: 3}}}
	got := differences("a\x1bb", other)
	want := []string{"units: msgkit 4, split-sms 3", `part 1: msgkit 4 units "a\x1bb", split-sms 3 units "a b"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := differences("a\xff", other); len(got) != 1 || !strings.Contains(got[0], "refuses") {
		t.Errorf("differences on invalid UTF-8: %q", got)
	}
}

// Without node, the program times Go only instead of failing (CI has no
// node).
func TestNoNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var b bytes.Buffer
	ok, err := prepareNode(".", &b)
	if err != nil || ok {
		t.Fatalf("prepareNode = %v, %v; want false, nil", ok, err)
	}
	if !strings.Contains(b.String(), "node not found: timing Go only") {
		t.Errorf("message %q", b.String())
	}
}
