// Command bare is the limit the bulk SMS submission path is measured
// against: a plain net/http server that reads the same JSON body as
// /bulk/sendsms into a struct with encoding/json and answers 202 with a
// message id, doing nothing else. Load it with smsload as you load the
// platform, on the same machine and concurrency:
//
//	go run ./examples/bare -addr 127.0.0.1:12030 &
//	go run ./examples/smsload -url http://127.0.0.1:12030/bulk/sendsms -user u -password p -c 32
//
// With -pg it is the limit of a durable submission path instead: each
// submission is a row of one table (bare_submissions, in the schema
// -pg-schema, created fresh, with its primary key as the only index)
// written before the 202, the rows of concurrent submissions in one
// INSERT and one commit (a group commit, one transaction in flight), so
// the 202 waits for a flush of PostgreSQL's WAL like the platform's. No
// durable design that keeps anything about a message can answer faster
// on that cluster than this one does; the platform also charges the
// account, keeps the message's parts and queues them for sending, in the
// same transaction. A failed write answers 503.
//
//	go run ./examples/bare -addr 127.0.0.1:12031 -pg "$MSGKIT_PG"
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:12030", "listen address")
	dsn := flag.String("pg", "", "PostgreSQL DSN: write each submission before answering (see the package doc)")
	schema := flag.String("pg-schema", "bare", "schema of the table -pg writes, dropped and created at start")
	flag.Parse()
	var save saver = &counter{}
	if *dsn != "" {
		g, err := openGroupCommit(context.Background(), *dsn, *schema)
		if err != nil {
			log.Fatal(err)
		}
		save = g
	}
	log.Printf("bare submission handler on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, handler(save)))
}

// submission is the body of a bulk SMS submission, as the platform reads it.
type submission struct {
	Type string `json:"type"`
	Auth struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"auth"`
	Sender   json.RawMessage `json:"sender"`
	Receiver json.RawMessage `json:"receiver"`
	DCS      string          `json:"dcs"`
	Text     string          `json:"text"`
	DLRMask  json.RawMessage `json:"dlrMask"`
	DLRURL   string          `json:"dlrUrl"`
	Flash    bool            `json:"flash"`
	Custom   json.RawMessage `json:"custom"`
}

// saver keeps a submission and returns its id.
type saver interface {
	save(ctx context.Context, s submission) (int64, error)
}

// counter keeps nothing: ids are a sequence.
type counter struct{ seq atomic.Int64 }

func (c *counter) save(context.Context, submission) (int64, error) { return c.seq.Add(1), nil }

// handler decodes each submission, saves it and answers 202 with its id,
// 420 when the body is not JSON, or 503 when it could not be saved.
func handler(save saver) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bulk/sendsms", func(w http.ResponseWriter, r *http.Request) {
		var s submission
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&s); err != nil {
			w.WriteHeader(420)
			return
		}
		id, err := save.save(r.Context(), s)
		if err != nil {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"msgId":"%s","numParts":1}`+"\n", strconv.FormatInt(id, 10))
	})
	return mux
}

// groupCommit writes submissions to bare_submissions: one worker takes
// every request queued and writes them with one INSERT, as a transaction
// of its own, then answers them; requests arriving meanwhile wait for the
// next one.
type groupCommit struct {
	pool  *pgxpool.Pool
	seq   atomic.Int64
	queue chan *saveRequest
}

type saveRequest struct {
	id   int64
	s    submission
	at   time.Time
	done chan error // buffered
}

// maxGroup bounds the rows of one INSERT, as the platform bounds a batch.
const maxGroup = 128

func openGroupCommit(ctx context.Context, dsn, schema string) (*groupCommit, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, err
	}
	s := pgx.Identifier{schema}.Sanitize()
	if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+s+` CASCADE; CREATE SCHEMA `+s+`;
		CREATE TABLE `+s+`.bare_submissions (id bigint PRIMARY KEY, username text NOT NULL, receiver text NOT NULL,
			text text NOT NULL, submitted_at timestamptz NOT NULL)`); err != nil {
		pool.Close()
		return nil, err
	}
	g := &groupCommit{pool: pool, queue: make(chan *saveRequest, maxGroup)}
	go g.work(`INSERT INTO ` + s + `.bare_submissions
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`)
	return g, nil
}

func (g *groupCommit) save(ctx context.Context, s submission) (int64, error) {
	r := &saveRequest{id: g.seq.Add(1), s: s, at: time.Now(), done: make(chan error, 1)}
	select {
	case g.queue <- r:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return r.id, <-r.done // once queued it is written or fails, whatever ctx says
}

func (g *groupCommit) work(insert string) {
	batch := make([]*saveRequest, 0, maxGroup)
	for r := range g.queue {
		batch = append(batch[:0], r)
	drain:
		for len(batch) < maxGroup {
			select {
			case r := <-g.queue:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		n := len(batch)
		ids, users, receivers, texts, ats := make([]int64, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
		for i, r := range batch {
			ids[i], users[i], receivers[i], texts[i], ats[i] = r.id, r.s.Auth.Username, string(r.s.Receiver), r.s.Text, r.at
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := g.pool.Exec(ctx, insert, ids, users, receivers, texts, ats)
		cancel()
		for _, r := range batch {
			r.done <- err
		}
	}
}
