package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// driveUIDemo uses the UI demo page at base+"/ui/demo/" as a person
// would, in browser b: a wrong secret is refused on the page, then it
// signs in with clientID and clientSecret and checks the first page of
// the demo grid (ids 1 to 10 under the columns id, url, invoiceDate,
// invoiceDateTime), the KPI tile, sorting by id both ways and back,
// filters gt(id)=40 and between(id)=3,7, a filter the proxy refuses
// (shown in #error, no rows), paging to the last page and back, and
// signing in by a token in the URL fragment. It expects the 42 rows of
// the mock grid operation and the mock KPI.
func driveUIDemo(t *testing.T, b *browser, base, clientID, clientSecret string) {
	const wait = 15 * time.Second
	lit := func(v any) string { // a JavaScript literal of v
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	str := func(js string) string {
		t.Helper()
		var s string
		if raw := b.eval(t, js); json.Unmarshal(raw, &s) != nil {
			t.Fatalf("%s is %s, not a string", js, raw)
		}
		return s
	}
	text := func(selector string) string {
		t.Helper()
		return str(fmt.Sprintf(`document.querySelector(%s)?.textContent ?? "(missing)"`, lit(selector)))
	}
	want := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	click := func(selector string) {
		t.Helper()
		b.eval(t, fmt.Sprintf(`document.querySelector(%s).click()`, lit(selector)))
	}
	// rows waits until the page is ready showing the rows with these ids,
	// in order.
	rows := func(ids ...int) {
		t.Helper()
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.Itoa(id)
		}
		b.waitFor(t, fmt.Sprintf(`document.body.dataset.state === "ready" && JSON.stringify(Array.from(
			document.querySelectorAll("#grid tbody tr"), tr => tr.querySelector('td[data-col="id"]')?.textContent)) === %s`,
			lit(lit(s))), wait)
	}
	pager := func(info string, prev, next bool) {
		t.Helper()
		want("#page-info", text("#page-info"), info)
		var got struct{ Prev, Next bool }
		json.Unmarshal(b.eval(t, `({Prev: !document.getElementById("prev").disabled, Next: !document.getElementById("next").disabled})`), &got)
		if got.Prev != prev || got.Next != next {
			t.Errorf("#prev, #next enabled = %v, %v; want %v, %v", got.Prev, got.Next, prev, next)
		}
	}
	setFilter := func(column, op, value string) {
		t.Helper()
		b.eval(t, fmt.Sprintf(`(() => {
			const set = (id, v) => { const el = document.getElementById(id); el.value = v; el.dispatchEvent(new Event("change")); };
			set("filter-column", %s);
			set("filter-op", %s);
			if (document.getElementById("filter-op").value !== %[2]s) throw new Error("no operator " + %[2]s + " for " + %[1]s);
			set("filter-value", %[3]s);
			document.getElementById("filter-apply").click();
		})()`, lit(column), lit(op), lit(value)))
	}
	seq := func(from, to int) []int {
		var out []int
		for i := from; ; {
			out = append(out, i)
			if i == to {
				return out
			}
			if from < to {
				i++
			} else {
				i--
			}
		}
	}
	signIn := func(secret string) {
		t.Helper()
		b.eval(t, fmt.Sprintf(`(() => {
			document.getElementById("client-id").value = %s;
			document.getElementById("client-secret").value = %s;
			document.getElementById("sign-in").click();
		})()`, lit(clientID), lit(secret)))
	}

	page := base + "/ui/demo/"
	b.navigate(t, page)
	b.eval(t, `sessionStorage.clear()`) // a token of an earlier run would skip the form
	b.navigate(t, page)
	b.waitFor(t, `document.body.dataset.state === "signed-out" && !document.getElementById("sign-in-panel").hidden`, wait)

	signIn(clientSecret + "-wrong")
	b.waitFor(t, `document.body.dataset.state === "error" && document.getElementById("error").textContent !== ""`, wait)
	if str(`document.getElementById("sign-in-panel").hidden ? "hidden" : "shown"`) != "shown" {
		t.Error("the sign-in form is gone after a wrong secret")
	}

	signIn(clientSecret)
	rows(seq(1, 10)...)
	var header []string
	json.Unmarshal(b.eval(t, `Array.from(document.querySelectorAll("#grid thead th"), th => th.dataset.col)`), &header)
	if !slices.Equal(header, []string{"id", "url", "invoiceDate", "invoiceDateTime"}) {
		t.Errorf("header columns = %q", header)
	}
	want("cells of the first row", str(`Array.from(document.querySelectorAll("#grid tbody tr:first-child td"), td => td.dataset.col + "=" + (td.textContent !== "")).join(" ")`),
		"id=true url=true invoiceDate=true invoiceDateTime=true")
	want("#error", str(`document.getElementById("error").hidden ? "" : document.getElementById("error").textContent`), "")
	pager("Page 1 of 5 · 42 rows", false, true)

	b.waitFor(t, `document.getElementById("kpi-title").textContent !== ""`, wait)
	// The KPI counts the grid's invoices: the 42 rows the pager shows.
	want("#kpi-title", text("#kpi-title"), "Invoices")
	want("#kpi-value", text("#kpi-value"), "42")
	want("#kpi-footer", text("#kpi-footer"), "issued 2026-01-01 to 2026-02-11")
	if link := str(`document.getElementById("kpi-link").hidden ? "" : document.getElementById("kpi-link").href`); !strings.HasPrefix(link, "https://invoices.example.com/") {
		t.Errorf("#kpi-link = %q, want a link to https://invoices.example.com/...", link)
	}

	// Sorting cycles ascending, descending, unsorted.
	const idHeader = `#grid thead th[data-col="id"]`
	sorted := func(ariaSort, mark string) {
		t.Helper()
		b.waitFor(t, fmt.Sprintf(`document.querySelector(%s).getAttribute("aria-sort") === %s`, lit(idHeader), lit(ariaSort)), wait)
		want("sort indicator", text(idHeader+" .sort-indicator"), mark)
	}
	click(idHeader)
	sorted("ascending", "▲")
	rows(seq(1, 10)...)
	click(idHeader)
	sorted("descending", "▼")
	rows(seq(42, 33)...)
	pager("Page 1 of 5 · 42 rows", false, true)
	click(idHeader)
	sorted("none", "")
	rows(seq(1, 10)...)

	setFilter("id", "gt", "40")
	rows(41, 42)
	pager("Page 1 of 1 · 2 rows", false, false)
	click("#filter-clear")
	rows(seq(1, 10)...)
	setFilter("id", "between", "3,7")
	rows(seq(3, 7)...)
	pager("Page 1 of 1 · 5 rows", false, false)
	click("#filter-clear")
	rows(seq(1, 10)...)

	// A value the id column cannot hold is refused by the proxy; the page
	// says why and shows no rows.
	setFilter("id", "gt", "abc")
	b.waitFor(t, `document.body.dataset.state === "error" && !document.getElementById("error").hidden`, wait)
	if msg := text("#error"); strings.TrimSpace(msg) == "" {
		t.Error("#error is empty after a refused filter")
	}
	want("rows after a refused filter", str(`String(document.querySelectorAll("#grid tbody tr").length)`), "0")
	click("#filter-clear")
	rows(seq(1, 10)...)
	want("#error after clearing", str(`document.getElementById("error").hidden ? "" : document.getElementById("error").textContent`), "")

	click("#next")
	rows(seq(11, 20)...)
	pager("Page 2 of 5 · 42 rows", true, true)
	for p := 3; p <= 5; p++ {
		click("#next")
		rows(seq(p*10-9, min(p*10, 42))...)
	}
	pager("Page 5 of 5 · 42 rows", true, false)
	click("#prev")
	rows(seq(31, 40)...)

	// The token in the fragment signs in without the form, and leaves the
	// address.
	token := str(`sessionStorage.getItem("msgkit.uidemo.token") ?? ""`)
	if token == "" {
		t.Fatal("no token in sessionStorage after signing in")
	}
	b.eval(t, `sessionStorage.clear()`)
	b.navigate(t, "about:blank") // else only the fragment changes, and the page stays
	b.navigate(t, page+"#token="+url.QueryEscape(token))
	rows(seq(1, 10)...)
	want("address after a fragment token", str(`location.hash`), "")
	want("sign-in form with a fragment token", str(`document.getElementById("sign-in-panel").hidden ? "hidden" : "shown"`), "hidden")

	if errs := b.consoleErrors(); strings.Contains(errs, "uncaught: ") {
		t.Errorf("the page threw:\n%s", errs)
	}
}

// TestUIDemoPage: the demo page as a person sees it, in headless
// Chromium, against the whole platform: it signs in with the demo's API
// client and shows the demo grid (rows, a sort, a filter, the next page)
// and KPI through the proxy, fed by the server's own mock operations.
func TestUIDemoPage(t *testing.T) {
	t.Parallel()
	b := startBrowser(t)
	l, out := startPlatform(t, parse(t))
	m := demoPattern.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no demo credentials printed:\n%s", out)
	}
	base := "http://" + l.API
	resp, body := call(t, http.MethodGet, base+uiDemoPath, "", nil, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") || !strings.Contains(string(body), "<table") {
		t.Fatalf("the demo page: %d %v %.200s", resp.StatusCode, resp.Header, body)
	}
	driveUIDemo(t, b, base, m[1], m[2])
}
