// Command bare is the limit the bulk SMS submission path is measured
// against: a plain net/http server that reads the same JSON body as
// /bulk/sendsms into a struct with encoding/json and answers 202 with a
// message id, doing nothing else. Load it with smsload as you load the
// platform, on the same machine and concurrency:
//
//	go run ./examples/bare -addr 127.0.0.1:12030 &
//	go run ./examples/smsload -url http://127.0.0.1:12030/bulk/sendsms -user u -password p -c 32
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:12030", "listen address")
	flag.Parse()
	log.Printf("bare submission handler on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, handler()))
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

// handler decodes each submission and answers 202 with a sequential id, or
// 420 when the body is not JSON.
func handler() http.Handler {
	var seq atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bulk/sendsms", func(w http.ResponseWriter, r *http.Request) {
		var s submission
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&s); err != nil {
			w.WriteHeader(420)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"msgId":"%s","numParts":1}`+"\n", strconv.FormatInt(seq.Add(1), 10))
	})
	return mux
}
