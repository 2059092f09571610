package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// cdpTimeout bounds every wait on the browser, so that a broken browser
// fails a test instead of hanging it.
const cdpTimeout = 20 * time.Second

// browser is a headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe): commands go to its fd 3 and answers and
// events come from its fd 4, each message a JSON object ended by a NUL.
// One page target is attached in flat mode, so its commands carry the
// session id.
type browser struct {
	cmd     *exec.Cmd
	stderr  *tailBuffer
	out     *os.File // our end of chromium's fd 3
	in      *os.File // our end of chromium's fd 4
	session string
	done    chan struct{} // closed when the read loop ends

	writeMu sync.Mutex // one message on the pipe at a time

	mu      sync.Mutex // guards the fields below
	nextID  int64
	pending map[int64]chan cdpMessage
	console []string // console errors and uncaught exceptions of the page
	readErr error
}

// cdpMessage is any message of the protocol: a command, its answer or an
// event.
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// tailBuffer keeps the last bytes chromium writes to stderr, for the
// message of a failed start.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - 4096; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// startBrowser starts headless Chromium (MSGKIT_CHROMIUM, else chromium
// in PATH) with a fresh profile, opens a blank page and attaches to it;
// the test is skipped when there is no Chromium. The browser is closed
// when the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := os.Getenv("MSGKIT_CHROMIUM")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("chromium"); err != nil {
			t.Skip("chromium is not installed (MSGKIT_CHROMIUM)")
		}
	}
	profile := t.TempDir() // made before the cleanup below, so removed after chromium exits

	// Chromium reads commands from fd 3 and writes to fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{
		stderr:  &tailBuffer{},
		out:     cmdW,
		in:      evR,
		done:    make(chan struct{}),
		pending: map[int64]chan cdpMessage{},
	}
	b.cmd = exec.Command(bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--remote-debugging-pipe", "--user-data-dir="+profile,
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--mute-audio", "--password-store=basic", "--use-mock-keychain",
		"about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, evW}
	b.cmd.Stdout = b.stderr
	b.cmd.Stderr = b.stderr
	b.cmd.WaitDelay = 5 * time.Second // children may keep stderr open
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	cmdR.Close()
	evW.Close()
	go b.readLoop()
	t.Cleanup(b.close)

	target := b.must(t, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(target, &created); err != nil || created.TargetID == "" {
		t.Fatalf("Target.createTarget answered %s", target)
	}
	attached := b.must(t, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true})
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(attached, &att); err != nil || att.SessionID == "" {
		t.Fatalf("Target.attachToTarget answered %s", attached)
	}
	b.session = att.SessionID
	for _, domain := range []string{"Page", "Runtime", "Log"} {
		b.must(t, b.session, domain+".enable", nil)
	}
	return b
}

// close asks Chromium to quit, so that it ends its own child processes,
// and kills it if it has not after a few seconds.
func (b *browser) close() {
	exited := make(chan struct{})
	go func() {
		b.cmd.Wait()
		close(exited)
	}()
	b.send("", "Browser.close", nil) // the answer may never come
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	b.out.Close()
	b.in.Close()
	<-b.done
}

// readLoop reads every message from Chromium: answers go to the waiting
// command, console errors and exceptions are kept.
func (b *browser) readLoop() {
	defer close(b.done)
	r := bufio.NewReader(b.in)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		b.event(m)
	}
}

// event keeps what a failing test should show.
func (b *browser) event(m cdpMessage) {
	var line string
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails exceptionDetails `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &p)
		line = "uncaught: " + p.ExceptionDetails.String()
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type != "error" && p.Type != "assert" {
			return
		}
		parts := make([]string, len(p.Args))
		for i, a := range p.Args {
			parts[i] = a.Description
			if a.Value != nil {
				parts[i] = fmt.Sprint(a.Value)
			}
		}
		line = "console." + p.Type + ": " + strings.Join(parts, " ")
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level string `json:"level"`
				Text  string `json:"text"`
				URL   string `json:"url"`
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Entry.Level != "error" {
			return
		}
		line = "log: " + p.Entry.Text + " " + p.Entry.URL
	default:
		return
	}
	b.mu.Lock()
	b.console = append(b.console, line)
	b.mu.Unlock()
}

// exceptionDetails is a JavaScript exception as the protocol reports it.
type exceptionDetails struct {
	Text      string `json:"text"`
	URL       string `json:"url"`
	Line      int    `json:"lineNumber"`
	Exception *struct {
		Description string `json:"description"`
		Value       any    `json:"value"`
	} `json:"exception"`
}

func (e exceptionDetails) String() string {
	s := e.Text
	if e.Exception != nil {
		switch {
		case e.Exception.Description != "":
			s = e.Exception.Description
		case e.Exception.Value != nil:
			s += " " + fmt.Sprint(e.Exception.Value)
		}
	}
	if e.URL != "" {
		s += fmt.Sprintf(" (%s:%d)", e.URL, e.Line+1)
	}
	return s
}

// consoleErrors lists the page's console errors and exceptions so far,
// for failure messages.
func (b *browser) consoleErrors() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.console) == 0 {
		return "no console errors"
	}
	return "console errors:\n\t" + strings.Join(b.console, "\n\t")
}

// send writes a command and returns the channel its answer arrives on
// (closed if the browser goes away first).
func (b *browser) send(session, method string, params any) (int64, chan cdpMessage, error) {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return 0, nil, fmt.Errorf("the browser is gone: %w", b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()

	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return 0, nil, err
	}
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	if _, err := b.out.Write(append(raw, 0)); err != nil {
		return 0, nil, fmt.Errorf("writing %s: %w", method, err)
	}
	return id, ch, nil
}

// call sends a command and waits, at most cdpTimeout, for its result.
func (b *browser) call(session, method string, params any) (json.RawMessage, error) {
	id, ch, err := b.send(session, method, params)
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(cdpTimeout)
	defer timer.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the browser went away", method)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	case <-timer.C:
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: no answer within %s", method, cdpTimeout)
	}
}

// must is call that fails the test on an error, with chromium's last
// words when it is gone.
func (b *browser) must(t *testing.T, session, method string, params any) json.RawMessage {
	t.Helper()
	res, err := b.call(session, method, params)
	if err != nil {
		t.Fatalf("%v\nchromium stderr (tail):\n%s", err, b.stderr)
	}
	return res
}

// navigate loads url in the page and waits until the document has
// loaded. Page.navigate answers once the new document is committed, so
// the readyState polled after it is the new document's. A url that
// differs from the current one only in its fragment does not reload the
// page: navigate to about:blank first for that.
func (b *browser) navigate(t *testing.T, url string) {
	t.Helper()
	res := b.must(t, b.session, "Page.navigate", map[string]any{"url": url})
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	json.Unmarshal(res, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("navigating to %s: %s", url, nav.ErrorText)
	}
	b.waitFor(t, `document.readyState === "complete"`, cdpTimeout)
}

// evaluate runs an expression in the page, awaiting a promise, and
// returns its value as JSON (null for undefined) or the text of the
// exception it threw.
func (b *browser) evaluate(js string) (value json.RawMessage, exception string, err error) {
	res, err := b.call(b.session, "Runtime.evaluate", map[string]any{
		"expression": js, "awaitPromise": true, "returnByValue": true, "userGesture": true,
	})
	if err != nil {
		return nil, "", err
	}
	var r struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *exceptionDetails `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, "", fmt.Errorf("Runtime.evaluate answered %s", res)
	}
	if r.ExceptionDetails != nil {
		return nil, r.ExceptionDetails.String(), nil
	}
	if len(r.Result.Value) == 0 {
		return json.RawMessage("null"), "", nil
	}
	return r.Result.Value, "", nil
}

// eval runs an expression in the page, awaiting a promise, and returns
// its value as JSON; an exception fails the test with its text.
func (b *browser) eval(t *testing.T, js string) json.RawMessage {
	t.Helper()
	v, exc, err := b.evaluate(js)
	if err != nil {
		t.Fatalf("evaluating %s: %v\n%s", js, err, b.consoleErrors())
	}
	if exc != "" {
		t.Fatalf("evaluating %s threw %s\n%s", js, exc, b.consoleErrors())
	}
	return v
}

// waitFor waits until the boolean expression js is true in the page; an
// exception counts as not yet (the element may not exist yet). On timeout
// it fails with the last exception, the page's text and its console
// errors.
func (b *browser) waitFor(t *testing.T, js string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		v, exc, err := b.evaluate("Boolean(" + js + ")")
		if err != nil {
			t.Fatalf("waiting for %s: %v\n%s", js, err, b.consoleErrors())
		}
		if exc == "" && bytes.Equal(v, []byte("true")) {
			return
		}
		last = exc
		if time.Now().After(deadline) {
			break
		}
		<-tick.C
	}
	page, _, err := b.evaluate(`document.body ? document.body.dataset.state + "\n" + document.body.innerText.slice(0, 3000) : ""`)
	var text string
	if err != nil || json.Unmarshal(page, &text) != nil {
		text = "(unreadable)"
	}
	if last != "" {
		last = "\nlast exception: " + last
	}
	t.Fatalf("%s was not true within %s%s\npage (state, text):\n%s\n%s", js, timeout, last, text, b.consoleErrors())
}
