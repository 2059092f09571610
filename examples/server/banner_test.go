package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
)

// The demo prints live secrets: the listen addresses left to their
// defaults bind loopback when it runs; an address given by flag or
// environment binds where it says, as every address does without the
// demo.
func TestDemoListensOnLoopback(t *testing.T) {
	env := func(name, value string) func(string) string {
		return func(n string) string {
			if n == name {
				return value
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name                    string
		args                    []string
		getenv                  func(string) string
		addr, smsHTTP, smsHTTPS string
	}{
		{"demo", nil, nil, "127.0.0.1:8080", "127.0.0.1:12020", "127.0.0.1:12021"},
		{"demo, -addr given", []string{"-addr", ":8080"}, nil, ":8080", "127.0.0.1:12020", "127.0.0.1:12021"},
		{"demo, -addr given on loopback", []string{"-addr", "127.0.0.1:9000"}, nil, "127.0.0.1:9000", "127.0.0.1:12020", "127.0.0.1:12021"},
		{"demo, -sms-http and -sms-https given", []string{"-sms-http", "0.0.0.0:12020", "-sms-https", "[::]:12021"}, nil, "127.0.0.1:8080", "0.0.0.0:12020", "[::]:12021"},
		{"demo, MSGKIT_ADDR given", nil, env("MSGKIT_ADDR", ":9090"), ":9090", "127.0.0.1:12020", "127.0.0.1:12021"},
		{"demo true with a bootstrap file", []string{"-bootstrap", "clients.json", "-demo", "true"}, nil, "127.0.0.1:8080", "127.0.0.1:12020", "127.0.0.1:12021"},
		{"a bootstrap file", []string{"-bootstrap", "clients.json"}, nil, ":8080", ":12020", ":12021"},
		{"no demo", []string{"-demo", "false"}, nil, ":8080", ":12020", ":12021"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := tc.getenv
			if getenv == nil {
				getenv = func(string) string { return "" }
			}
			c, err := parseConfig(tc.args, getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			c = c.demoListeners()
			if c.addr != tc.addr || c.smsHTTP != tc.smsHTTP || c.smsHTTPS != tc.smsHTTPS {
				t.Errorf("listens on %s, %s, %s; want %s, %s, %s", c.addr, c.smsHTTP, c.smsHTTPS, tc.addr, tc.smsHTTP, tc.smsHTTPS)
			}
		})
	}

	// Started: the default addresses (port 0 here) are bound on loopback
	// and the banner says so; a given one is bound where it says, and the
	// banner warns that other machines reach it.
	cfg := parse(t)
	cfg.addr, cfg.smsHTTP = ":0", ":0"
	l, out := startPlatformAt(t, cfg)
	for _, addr := range []string{l.API, l.SMSHTTP} {
		if a, err := netip.ParseAddrPort(addr); err != nil || a.Addr() != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("the demo listens on %s, want 127.0.0.1", addr)
		}
	}
	if !strings.Contains(out.String(), "listening on:          "+l.API+" (REST APIs and tokens), "+l.SMSHTTP+" (bulk SMS)") ||
		!strings.Contains(out.String(), "loopback: this machine only") || !strings.Contains(out.String(), "never for production") ||
		strings.Contains(out.String(), "WARNING") {
		t.Errorf("the banner of a demo on loopback:\n%s", out)
	}

	cfg = parse(t, "-addr", ":0")
	cfg.smsHTTP = ":0"
	l, out = startPlatformAt(t, cfg)
	if a, err := netip.ParseAddrPort(l.API); err != nil || !a.Addr().IsUnspecified() {
		t.Errorf("-addr :0 listens on %s, want every interface", l.API)
	}
	if a, err := netip.ParseAddrPort(l.SMSHTTP); err != nil || !a.Addr().IsLoopback() {
		t.Errorf("the default -sms-http listens on %s, want loopback", l.SMSHTTP)
	}
	if !strings.Contains(out.String(), "WARNING: other machines reach "+l.API+", and these secrets are live") ||
		strings.Contains(out.String(), "this machine only (") {
		t.Errorf("the banner of a demo listening on every interface:\n%s", out)
	}
}

// Every curl call the banner prints succeeds (2xx) against the demo on
// the memory store, run in the banner's order as a newcomer pasting it
// would: its variables (TOKEN, TS) set as the shell would set them. The
// campaign's call waits until the run is done and shows its task and
// messages; the routing calls create a route and list it.
func TestBannerCalls(t *testing.T) {
	_, out := startPlatform(t, parse(t))
	sh := &bannerShell{vars: map[string]string{}}
	calls := 0
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(line)
		n := strings.Count(line, "curl ")
		if n == 0 {
			continue
		}
		calls += n
		got := sh.run(t, line)
		switch {
		case strings.Contains(line, "?fields=tasks,messages"):
			var c struct {
				Status string                    `json:"status"`
				Tasks  []struct{ Status string } `json:"tasks"`
				Msgs   []struct{ Status string } `json:"messages"`
			}
			if err := json.Unmarshal([]byte(got), &c); err != nil || c.Status != "finished" || len(c.Tasks) != 1 || c.Tasks[0].Status != "done" ||
				len(c.Msgs) != 2 || c.Msgs[0].Status != "sent" || c.Msgs[1].Status != "sent" {
				t.Errorf("the campaign call, right after the PATCH, showed %s (%v); want the run done, its two messages sent", got, err)
			}
		case strings.HasSuffix(line, `smsmtin-routes -H "X-API-Key: `+sh.apiKey(t, out.String())+`"`):
			if !strings.Contains(got, `"sigtran_connect_id":"12","smpp_connect_id":"3","esme_connect_id":"0"`) {
				t.Errorf("the routes listed: %s", got)
			}
		}
	}
	if calls < 16 {
		t.Errorf("%d curl calls printed, want every family's:\n%s", calls, out)
	}
	if sh.routing != 2 {
		t.Errorf("%d routing calls printed, want a create and a listing", sh.routing)
	}
}

// The demo's bulk SMS account takes the submissions the bulk SMS document
// shows (its request examples, with the account's credentials): the
// newcomer's first try. The banner names the destinations it prices, and
// one outside them is refused 114, as it says.
func TestDemoTakesDocumentedSamples(t *testing.T) {
	l, out := startPlatform(t, parse(t))
	sm := sendPattern.FindStringSubmatch(out.String())
	if sm == nil {
		t.Fatalf("no bulk SMS call printed:\n%s", out)
	}
	var printed struct {
		Auth map[string]string `json:"auth"`
	}
	if err := json.Unmarshal([]byte(sm[2]), &printed); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Examples map[string]struct {
						Value map[string]any `json:"value"`
					} `json:"examples"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(bulksmsapi.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	examples := doc.Paths[bulksmsapi.SendSMSPath]["post"].RequestBody.Content["application/json"].Examples
	if len(examples) == 0 {
		t.Fatal("the bulk SMS document shows no submission")
	}
	for name, ex := range examples {
		ex.Value["auth"] = printed.Auth
		if _, ok := ex.Value["dlrUrl"]; ok {
			ex.Value["dlrUrl"] = "http://" + l.SMSHTTP + demoReportPath
		}
		body, _ := json.Marshal(ex.Value)
		resp, answer := call(t, http.MethodPost, sm[1], "", strings.NewReader(string(body)), "application/json")
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("the document's example %s to %v: %d %s", name, ex.Value["receiver"], resp.StatusCode, answer)
		}
	}
	for _, p := range demoPrices() {
		if !strings.Contains(out.String(), "+"+p.Prefix+",") && !strings.Contains(out.String(), "+"+p.Prefix+";") {
			t.Errorf("the banner does not name the priced prefix %s:\n%s", p.Prefix, out)
		}
	}
	unpriced := strings.Replace(sm[2], `"receiver":"38640123456"`, `"receiver":"31641600986"`, 1)
	resp, answer := call(t, http.MethodPost, sm[1], "", strings.NewReader(unpriced), "application/json")
	if resp.StatusCode != 420 || !strings.Contains(string(answer), `"code":"114"`) || !strings.Contains(out.String(), "others are refused 114") {
		t.Errorf("a destination the demo does not price: %d %s", resp.StatusCode, answer)
	}
}

// bannerShell runs the banner's lines as sh would, for the forms the
// banner uses: VAR=$(pipeline), a pipeline, and until pipeline; do sleep
// N; done, where a pipeline is curl (-s, -X, -H, -d and a URL) followed by
// sed s/re/repl/ or grep re. Anything else fails the test, so that a line
// printed in another form is noticed rather than skipped.
type bannerShell struct {
	vars    map[string]string
	routing int // calls of the routing family
}

var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=\$\((.*)\)$`)

// run runs a line and returns what it printed.
func (sh *bannerShell) run(t *testing.T, line string) string {
	t.Helper()
	if m := assignment.FindStringSubmatch(line); m != nil {
		out, _ := sh.pipeline(t, line, sh.words(t, m[2]))
		sh.vars[m[1]] = strings.TrimRight(out, "\n")
		return ""
	}
	words := sh.words(t, line)
	if words[0] != "until" {
		out, _ := sh.pipeline(t, line, words)
		return out
	}
	// until PIPELINE ; do sleep N ; done
	n := len(words)
	if n < 8 || strings.Join(words[n-6:], " ") != "; do sleep "+words[n-3]+" ; done" {
		t.Fatalf("%s: not until ...; do sleep N; done", line)
	}
	pause, err := strconv.Atoi(words[n-3])
	if err != nil {
		t.Fatalf("%s: sleep %q", line, words[n-3])
	}
	cond := words[1 : n-6]
	for deadline := time.Now().Add(30 * time.Second); ; {
		out, ok := sh.pipeline(t, line, cond)
		if ok {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still waiting after 30 s; the last answer %s", line, out)
		}
		time.Sleep(time.Duration(pause) * time.Second)
	}
}

// pipeline runs curl and its filters; ok is grep's verdict (true without
// grep).
func (sh *bannerShell) pipeline(t *testing.T, line string, words []string) (out string, ok bool) {
	t.Helper()
	var cmds [][]string
	start := 0
	for i, w := range words {
		if w == "|" {
			cmds, start = append(cmds, words[start:i]), i+1
		}
	}
	cmds = append(cmds, words[start:])
	if cmds[0][0] != "curl" {
		t.Fatalf("%s: a pipeline that does not start with curl", line)
	}
	out, ok = sh.curl(t, line, cmds[0][1:]), true
	for _, c := range cmds[1:] {
		if len(c) != 2 {
			t.Fatalf("%s: %q", line, c)
		}
		switch c[0] {
		case "sed":
			parts := strings.Split(c[1], "/")
			if len(parts) != 4 || parts[0] != "s" || parts[3] != "" {
				t.Fatalf("%s: sed %q is not s/re/repl/", line, c[1])
			}
			re := regexp.MustCompile(fromBRE(parts[1]))
			repl := strings.ReplaceAll(parts[2], `\1`, "${1}")
			var b strings.Builder
			for l := range strings.Lines(out) {
				if loc := re.FindStringSubmatchIndex(l); loc != nil {
					l = l[:loc[0]] + string(re.ExpandString(nil, repl, l, loc)) + l[loc[1]:]
				}
				b.WriteString(l)
			}
			out = b.String()
		case "grep":
			re := regexp.MustCompile(fromBRE(c[1]))
			var b strings.Builder
			for l := range strings.Lines(out) {
				if re.MatchString(l) {
					b.WriteString(l)
				}
			}
			out, ok = b.String(), b.Len() > 0
		default:
			t.Fatalf("%s: %s is not a filter the test knows", line, c[0])
		}
	}
	return out, ok
}

// fromBRE turns the basic regular expressions of sed and grep into Go's:
// \( and \) group.
func fromBRE(re string) string {
	return strings.NewReplacer(`\(`, `(`, `\)`, `)`, `(`, `\(`, `)`, `\)`).Replace(re)
}

// curl makes the call as curl does (-d: a POST of a form's
// Content-Type, several joined by &) and fails the test unless it
// succeeds; it returns the body.
func (sh *bannerShell) curl(t *testing.T, line string, args []string) string {
	t.Helper()
	var method, target string
	var data []string
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-s":
		case (a == "-X" || a == "-H" || a == "-d") && i+1 < len(args):
			i++
			switch a {
			case "-X":
				method = args[i]
			case "-H":
				name, value, ok := strings.Cut(args[i], ":")
				if !ok {
					t.Fatalf("%s: header %q", line, args[i])
				}
				header.Add(name, strings.TrimSpace(value))
			case "-d":
				data = append(data, args[i])
			}
		case !strings.HasPrefix(a, "-") && target == "":
			target = a
		default:
			t.Fatalf("%s: curl's %q is not known to the test", line, a)
		}
	}
	if method == "" {
		method = http.MethodGet
		if len(data) > 0 {
			method = http.MethodPost
		}
	}
	if strings.Contains(target, "/smsmtinbound/") {
		sh.routing++
	}
	req, err := http.NewRequestWithContext(t.Context(), method, target, strings.NewReader(strings.Join(data, "&")))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	req.Header = header
	if len(data) > 0 {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if resp.StatusCode/100 != 2 {
		t.Errorf("%s\n%s %s answered %d %s", line, method, target, resp.StatusCode, body)
	}
	return string(body)
}

// apiKey is the routing X-API-Key the banner printed.
func (sh *bannerShell) apiKey(t *testing.T, banner string) string {
	m := regexp.MustCompile(`routing X-API-Key:\s+(\S+)`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("no routing X-API-Key printed:\n%s", banner)
	}
	return m[1]
}

// words splits a line into words as sh does: '...' as is, "..." and bare
// words with $NAME expanded, | and ; words of their own. Other characters
// special to sh fail the test.
func (sh *bannerShell) words(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in := false
	flush := func() {
		if in {
			words, in = append(words, w.String()), false
			w.Reset()
		}
	}
	expand := func(i int) int { // line[i] is $
		j := i + 1
		for j < len(line) && (line[j] == '_' || 'a' <= line[j]|0x20 && line[j]|0x20 <= 'z' || j > i+1 && '0' <= line[j] && line[j] <= '9') {
			j++
		}
		v, ok := sh.vars[line[i+1:j]]
		if !ok {
			t.Fatalf("%s: $%s is not set", line, line[i+1:j])
		}
		w.WriteString(v)
		return j
	}
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '|' || c == ';':
			flush()
			words = append(words, string(c))
			i++
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				t.Fatalf("%s: an unclosed '", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			in, i = true, i+end+2
		case c == '"':
			in, i = true, i+1
			for ; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '$':
					i = expand(i) - 1
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\", line[i+1]) >= 0:
					i++
					w.WriteByte(line[i])
				case line[i] == '`':
					t.Fatalf("%s: a command in backquotes", line)
				default:
					w.WriteByte(line[i])
				}
			}
			if i >= len(line) {
				t.Fatalf(`%s: an unclosed "`, line)
			}
			i++
		case c == '$':
			in, i = true, expand(i)
		case strings.IndexByte("&()<>`\\*?[#~", c) >= 0:
			t.Fatalf("%s: %q outside quotes", line, c)
		default:
			w.WriteByte(c)
			in, i = true, i+1
		}
	}
	flush()
	if len(words) == 0 {
		t.Fatalf("%q: no words", line)
	}
	return words
}
