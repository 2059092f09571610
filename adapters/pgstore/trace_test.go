package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

// A part's trace shows the SMSC that took it over SMPP (smpp_submitted)
// and the id it gave.
func TestTraceShowsSMPPRecords(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	sp := &SMPPStore{pool: s.pool, log: s.log}
	if err := sp.SaveSubmitted(t.Context(), []smpp.Submitted{{PartKey: smpp.PartKey{MsgID: keys[1].MsgID, PartNum: keys[1].PartNum}, Conn: "smsc-a", SMSCID: "0af3"}}); err != nil {
		t.Fatal(err)
	}
	tr, err := s.Trace(t.Context(), keys[0].MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if p := tr.Parts[0]; p.SMSCConn != "" || p.SMSCID != "" {
		t.Errorf("part 0 shows SMSC %q %q", p.SMSCConn, p.SMSCID)
	}
	if p := tr.Parts[1]; p.SMSCConn != "smsc-a" || p.SMSCID != "0af3" {
		t.Errorf("part 1 shows SMSC %q %q, want smsc-a 0af3", p.SMSCConn, p.SMSCID)
	}
}

// The searches read sms_messages by an index, with no index of their
// own: an account's (and its submission times) by
// sms_messages_account_idx, whose collation the account scope uses, a
// message id by the primary key. Sequential scans are disabled so that
// the plan shows which index can serve, whatever the table's size.
func TestTraceSearchesUseIndexes(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	seedMessages(t, s, 3)
	tx, err := s.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	str := func(attr, v string) msgkit.Filter {
		return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
	}
	since := msgkit.Filter{Op: msgkit.OpGte, Attr: "submittedAt", Values: []msgkit.Value{msgkit.TimeValue(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}
	for _, tc := range []struct {
		name  string
		table *listTable
		scope []any
		q     msgkit.ListQuery
		index string
	}{
		{"account", &traceAccountTable, []any{"shop"}, msgkit.ListQuery{Filters: []msgkit.Filter{since, str("receiver", "+38640123456")},
			Sort: []msgkit.SortKey{{Attr: "submittedAt", Desc: true}}, PageNumber: 1, PageSize: 10}, "sms_messages_account_idx"},
		{"id", &traceTable, nil, msgkit.ListQuery{Filters: []msgkit.Filter{str("id", "m-001")}, PageNumber: 1, PageSize: 10}, "sms_messages_pkey"},
	} {
		st, err := tc.table.statement(tc.q, tc.scope)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(t.Context(), "EXPLAIN "+st.page, st.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "Index") || !strings.Contains(text, tc.index) || strings.Contains(text, "Seq Scan on sms_messages") {
			t.Errorf("%s: the plan does not read %s:\n%s", tc.name, tc.index, text)
		}
	}
}

// Finishing a report, attempt or not, writes no row besides the report's
// own: the attempts live in it.
func TestReportAttemptsInTheRow(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	keys := seedMessages(t, s, 1)
	queue(t, s, keys[0], pending(keys[0], t1, "a"))
	rs, err := s.ClaimReports(t.Context(), t1, time.Minute, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("claimed %+v, %v", rs, err)
	}
	rs[0].State, rs[0].Attempts, rs[0].AttemptedAt, rs[0].LastError = sms.ReportGivenUp, 1, t1, "the report URL answered 404"
	if err := s.FinishReport(t.Context(), rs[0]); err != nil {
		t.Fatal(err)
	}
	var n int
	var at []time.Time
	var errs []string
	if err := s.pool.QueryRow(t.Context(), `SELECT count(*) OVER (), attempt_at, attempt_errors FROM sms_reports`).Scan(&n, &at, &errs); err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(at) != 1 || !at[0].Equal(dbTime(t1)) || len(errs) != 1 || errs[0] != "the report URL answered 404" {
		t.Errorf("%d rows, attempts %v %q", n, at, errs)
	}
}
