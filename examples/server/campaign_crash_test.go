package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// campaignClaim is the line a campaign runner logs when it takes a task.
var campaignClaim = regexp.MustCompile(`msg="campaign: running a task" .*task=(\d+)`)

// TestCampaignCrash runs an sms campaign to 5,000 contacts on two server
// processes sharing one PostgreSQL schema and one SMSC, kills the process
// whose runner holds the campaign's task while part of the recipients are
// sent, and the other takes the task over once its lease ends: every
// contact gets exactly one message (one bulk SMS message per number, its
// key the campaign message's), the account is charged exactly once per
// message, the task ends done, and every number reaches the SMSC and is
// delivered. A number is submitted to the SMSC twice only where the kill
// cut an SMPP exchange short (sent, its answer not yet stored), the
// window TestSMPPCrash measures.
func TestCampaignCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two server processes and kills one mid-run; the full suite runs it")
	}
	t.Parallel()
	cfg := pgConfig(t)
	const (
		tenant     = "3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f"
		recipients = 5000
		balance    = "1000.00"
		price      = "0.0125"
	)
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}, RespDelay: 5 * time.Millisecond, ReceiptDelay: 20 * time.Millisecond})
	smsc, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	dir := t.TempDir()
	smppFile, bootFile := filepath.Join(dir, "smpp.json"), filepath.Join(dir, "bootstrap.json")
	os.WriteFile(smppFile, []byte(`{"name": "sim", "addr": "`+smsc+`", "systemId": "msgkit", "password": "secret", "binds": 2, "window": 50, "timeout": "3s"}`), 0o600)
	// Secrets as cheap hashes: the servers hash none at bootstrap.
	hash := func(secret string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
	os.WriteFile(bootFile, []byte(`{
		"clients": [{"id": "crm", "name": "CRM", "secretHash": "`+hash("crm-secret")+`", "networks": ["127.0.0.1", "::1"], "services": ["`+tenant+`"], "privileges": ["news"]}],
		"smsAccounts": [{"username": "campaigns", "passwordHash": "`+hash("campaigns-pw")+`", "networks": ["127.0.0.1"], "balance": "`+balance+`", "currency": "EUR", "validity": "1h", "prices": {"386": "`+price+`"}}],
		"campaignAccounts": {"`+tenant+`": "campaigns"}
	}`), 0o600)
	// A lease of seconds, so the takeover comes soon: the shortest the
	// pace allows is twice the second a page of 500 takes at 500 a
	// second, and a loaded machine may take longer. The run takes about
	// 10 s at that pace, so the kill below comes mid-run. The parts the
	// killed server's transmitter held go to the SMSC once their lease
	// ends: 9 s instead of 30 (a hand-over's timeout 3 s, the SMSC's).
	args := []string{"-store", "postgres", "-pg", cfg.pgDSN, "-pg-schema", cfg.pgSchema, "-smpp", smppFile, "-bootstrap", bootFile,
		"-demo", "false", "-addr", "127.0.0.1:0", "-sms-http", "127.0.0.1:0", "-log-level", "info", "-campaign-lease", "5s", "-campaign-rate", "500", "-sms-lease", "9s"}
	servers := startServers(t, 2, args...)
	t.Cleanup(func() {
		if t.Failed() {
			for i, p := range servers {
				t.Logf("server %d's warnings and errors:\n%s", i, strings.Join(p.tail(regexp.MustCompile(`level=(WARN|ERROR)`), 30), "\n"))
			}
		}
	})

	// The tenant's list of 5,000 contacts and the campaign, through the
	// CDS API of the first process.
	base := "http://" + servers[0].apiAddr
	resp, body := call(t, http.MethodPost, base+"/oauth2/access-token", "",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {"crm"}, "client_secret": {"crm-secret"}}.Encode()),
		"application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil {
		t.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	cds := base + "/news/v1/services/" + tenant
	resp, body = call(t, http.MethodPost, cds+"/cds/lists", tok.AccessToken, strings.NewReader(`{"name": "Crash"}`), "application/json")
	var list struct{ UUID string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &list) != nil || list.UUID == "" {
		t.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	number := func(i int) string { return fmt.Sprintf("+38640%06d", i) }
	items := make([]string, recipients)
	for i := range items {
		items[i] = fmt.Sprintf(`{"first_name": "C%d", "mobile": "%s", "opt_status": "in"}`, i, number(i))
	}
	resp, body = call(t, http.MethodPost, cds+"/cds/imports?list_uuid="+list.UUID, tok.AccessToken, strings.NewReader("["+strings.Join(items, ",")+"]"), "application/json")
	var imported struct{ Created, Invalid int }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &imported) != nil || imported.Created != recipients {
		t.Fatalf("import: %d %.500s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodPost, cds+"/campaigns", tok.AccessToken, strings.NewReader(`{"name": "Crash", "status": "active",
		"sending_type": "sms", "schedule_type": "now", "template": "Crash test", "sender": "Crash", "recipient_lists": "`+list.UUID+`"}`), "application/json")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("campaign: %d %s", resp.StatusCode, body)
	}

	ctx := t.Context()
	deadline := time.Now().Add(80 * time.Second)
	conn, err := pgx.Connect(ctx, cfg.pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	s := cfg.pgSchema
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	poll := func(what string, done func() bool) {
		t.Helper()
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("waited in vain for %s: %s, %d numbers at the SMSC", what, runState(t, cfg.pgDSN, s), distinctDests(sim))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	accepted := func() int { return count(`SELECT count(*) FROM ` + s + `.sms_messages WHERE account = 'campaigns'`) }

	// Kill the process holding the task once a quarter of the messages
	// are accepted: the one that logged the last claim of it.
	poll("a quarter of the messages", func() bool { return accepted() >= recipients/4 })
	holder, survivor := servers[0], servers[1]
	at0, _, ok0 := servers[0].lastLog(campaignClaim)
	at1, _, ok1 := servers[1].lastLog(campaignClaim)
	switch {
	case !ok0 && !ok1:
		t.Fatal("no server logged running the campaign's task")
	case !ok0 || ok1 && at1.After(at0):
		holder, survivor = servers[1], servers[0]
	}
	holder.kill()
	killed := time.Now()

	before := accepted()
	if before >= recipients {
		t.Fatalf("every message was accepted before the kill: nothing is left to take over")
	}
	// Messages the gateway took whose outcome the task had not recorded:
	// the survivor hands them over again and finds them accepted.
	unrecorded := before - count(`SELECT count(*) FROM `+s+`.campaign_messages WHERE status = 'sent'`)
	stored := map[string]bool{} // numbers whose submit_sm_resp was stored
	rows, err := conn.Query(ctx, `SELECT m.receiver FROM `+s+`.smpp_submitted x JOIN `+s+`.sms_messages m ON m.id = x.msg_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		rows.Scan(&r)
		stored[strings.TrimPrefix(r, "+")] = true
	}
	rows.Close()
	sentBefore := map[string]bool{}
	for _, sub := range sim.Submits() {
		sentBefore[sub.Dest().Addr] = true
	}

	// The survivor takes the task over and finishes it; every number
	// reaches the SMSC and is delivered.
	poll("the task to end", func() bool {
		return count(`SELECT count(*) FROM `+s+`.campaign_tasks WHERE state IN ('done', 'stopped')`) == 1
	})
	took, line, ok := survivor.lastLog(campaignClaim)
	if !ok || !took.After(killed) {
		t.Errorf("the surviving server did not take the task over after the kill (its last claim: %q)", line)
	}
	poll("every number at the SMSC", func() bool { return distinctDests(sim) >= recipients })
	poll("every message delivered", func() bool {
		return count(fmt.Sprintf(`SELECT count(*) FROM %s.sms_parts WHERE state = %d`, s, int(sms.StateDelivered))) >= recipients
	})

	// The task and its messages: one per contact, all sent.
	var state string
	var queued, sent, failed int
	if err := conn.QueryRow(ctx, `SELECT state, recipients, sent, failed FROM `+s+`.campaign_tasks`).Scan(&state, &queued, &sent, &failed); err != nil {
		t.Fatal(err)
	}
	if state != "done" || queued != recipients || sent != recipients || failed != 0 {
		t.Errorf("the task: %s, %d queued, %d sent, %d failed; want done, %d each, none failed", state, queued, sent, failed, recipients)
	}
	var msgs, addresses, msgsSent, keyed int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT address), count(*) FILTER (WHERE status = 'sent'),
		count(*) FILTER (WHERE msg_id IN (SELECT id FROM `+s+`.sms_messages)) FROM `+s+`.campaign_messages`).Scan(&msgs, &addresses, &msgsSent, &keyed); err != nil {
		t.Fatal(err)
	}
	if msgs != recipients || addresses != recipients || msgsSent != recipients || keyed != recipients {
		t.Errorf("campaign messages: %d, to %d addresses, %d sent, %d with their bulk SMS message; want %d each", msgs, addresses, msgsSent, keyed, recipients)
	}

	// One bulk SMS message per number, none to anyone else.
	perNumber := map[string]int{}
	rows, err = conn.Query(ctx, `SELECT receiver, count(*) FROM `+s+`.sms_messages GROUP BY receiver`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		var n int
		rows.Scan(&r, &n)
		perNumber[strings.TrimPrefix(r, "+")] = n
	}
	rows.Close()
	for i := range recipients {
		r := strings.TrimPrefix(number(i), "+")
		if n := perNumber[r]; n != 1 {
			t.Errorf("%s got %d messages", r, n)
		}
		delete(perNumber, r)
	}
	if len(perNumber) > 0 {
		t.Errorf("messages to numbers of no contact: %v", perNumber)
	}

	// Charges: the balance fell by exactly one price per message.
	var left, charged string
	if err := conn.QueryRow(ctx, `SELECT a.balance::text, (SELECT sum(charged)::text FROM `+s+`.sms_messages)
		FROM `+s+`.sms_accounts a WHERE a.username = 'campaigns'`).Scan(&left, &charged); err != nil {
		t.Fatal(err)
	}
	want := decimal.RequireFromString(price).Mul(decimal.NewFromInt(recipients))
	if got := decimal.RequireFromString(balance).Sub(decimal.RequireFromString(left)); !got.Equal(want) || !decimal.RequireFromString(charged).Equal(want) {
		t.Errorf("balance %s after the run: charged %s (messages say %s), want %s", left, got, charged, want)
	}

	// On the wire: every number at least once, twice only in the window
	// the kill left (sent before it, its answer not stored).
	times := map[string]int{}
	for _, sub := range sim.Submits() {
		times[sub.Dest().Addr]++
	}
	window, again := 0, 0
	for r := range sentBefore {
		if !stored[r] {
			window++
		}
	}
	for r, n := range times {
		if n > 1 {
			again++
			if !sentBefore[r] || stored[r] {
				t.Errorf("%s was submitted %d times, outside the kill's window", r, n)
			}
		}
	}
	t.Logf("killed after %d of %d messages were accepted (%d of them not yet recorded as sent), taken over %v later; %d numbers had reached the SMSC, %d of them in the window (answer not stored), %d submitted again",
		before, recipients, unrecorded, took.Sub(killed).Round(time.Millisecond), len(sentBefore), window, again)
}

// runState says where the campaign's task and the bulk SMS parts are, for
// a test that waited in vain.
func runState(t *testing.T, dsn, schema string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err.Error()
	}
	defer conn.Close(ctx)
	var state string
	if err := conn.QueryRow(ctx, `SELECT coalesce((SELECT string_agg(state || ' ' || recipients || ' queued ' || sent || ' sent ' || failed || ' failed', '; ') FROM `+schema+`.campaign_tasks), 'no task')
		|| ', parts by state: ' || coalesce((SELECT string_agg(state || ': ' || n, ', ') FROM (SELECT state, count(*) n FROM `+schema+`.sms_parts GROUP BY state ORDER BY state) p), 'none')`).Scan(&state); err != nil {
		return err.Error()
	}
	return state
}
