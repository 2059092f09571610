package main

import (
	"bufio"
	"encoding/binary"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// BenchmarkESMEVersusHTTP compares, on one server process per store, the
// SMPP server with receipts and the bulk SMS HTTP interface: each round
// sends N one-part messages over 8 transceiver binds of window 50 with
// registered_delivery 1, answering every receipt the server sends back
// over the binds, then runs examples/smsload for N
// submissions of the same text over HTTP. It reports the medians over the
// rounds of submit_sm/s (until the last submit_sm_resp), receipts/s (until
// the last receipt), http/s and the ratio submit_sm/s ÷ http/s. N is
// MSGKIT_ESME_N (default 20,000), the rounds MSGKIT_ESME_ROUNDS (default
// 5), smsload's workers MSGKIT_ESME_HTTP_C (default 32; 400 is as many
// requests in flight as the binds' windows hold). Run it alone:
//
//	go test ./examples/server -run '^$' -bench ESMEVersusHTTP -benchtime 1x
func BenchmarkESMEVersusHTTP(b *testing.B) {
	n, rounds := envInt(b, "MSGKIT_ESME_N", 20_000), envInt(b, "MSGKIT_ESME_ROUNDS", 5)
	workers := strconv.Itoa(envInt(b, "MSGKIT_ESME_HTTP_C", 32))
	const binds, window, text = 8, 50, "Your order 12345 has shipped."
	smsload := filepath.Join(b.TempDir(), "smsload")
	if out, err := exec.Command("go", "build", "-o", smsload, "../smsload").CombinedOutput(); err != nil {
		b.Fatalf("building smsload: %v\n%s", err, out)
	}
	for _, name := range []string{"memory", "postgres"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				srv := startServer(b, append(storeArgs(b, name), "-bootstrap", esmeBootstrap(b, "esme", "esme-pw"), "-demo", "false", "-addr", "127.0.0.1:0",
					"-sms-http", "127.0.0.1:0", "-smpp-server", "127.0.0.1:0", "-log-level", "info")...)
				_, line, _ := srv.lastLog(smppServerListening)
				addr := smppServerListening.FindStringSubmatch(line)[1]
				var smppRates, receiptRates, httpRates, ratios []float64
				for round := range rounds {
					s, r := esmeLoad(b, addr, n, binds, window, text)
					out, err := exec.Command(smsload, "-url", "http://"+srv.smsAddr+"/bulk/sendsms", "-user", "esme", "-password", "esme-pw",
						"-n", strconv.Itoa(n), "-c", workers, "-duration", "10m", "-progress", "0", "-text", text).CombinedOutput()
					m := smsloadRate.FindSubmatch(out)
					if err != nil || m == nil || string(m[1]) != strconv.Itoa(n) {
						b.Fatalf("smsload: %v\n%s", err, out)
					}
					h, _ := strconv.ParseFloat(string(m[2]), 64)
					smppRates, receiptRates, httpRates, ratios = append(smppRates, s), append(receiptRates, r), append(httpRates, h), append(ratios, s/h)
					b.Logf("%s round %d: submit_sm %.0f/s, receipts %.0f/s, HTTP %.0f/s, ratio %.2f", name, round+1, s, r, h, s/h)
				}
				srv.kill()
				b.ReportMetric(median(smppRates), "submit_sm/s")
				b.ReportMetric(median(receiptRates), "receipts/s")
				b.ReportMetric(median(httpRates), "http/s")
				b.ReportMetric(median(ratios), "ratio")
			}
		})
	}
}

var smppServerListening = regexp.MustCompile(`msg="msgkit listening".* smpp-server=(\S+)`)

// esmeLoad binds binds transceivers to addr as "esme" and sends n
// submit_sm with registered_delivery 1 over them, at most window
// unanswered on each, answering the receipts that come back; it returns
// the submissions a second (until the last answer) and the receipts a
// second (until the last of n).
func esmeLoad(b *testing.B, addr string, n, binds, window int, text string) (submitRate, receiptRate float64) {
	var receipts atomic.Int64
	allReceipts := make(chan struct{})
	conns := make([]net.Conn, binds)
	for i := range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		req, _ := pdu.Append(nil, pdu.PDU{Seq: 1, Body: &pdu.Bind{Mode: pdu.Transceiver, SystemID: "esme", Password: "esme-pw", Version: pdu.InterfaceVersion}})
		nc.Write(req)
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if p, _, err := pdu.Read(nc, nil, 0); err != nil || p.Status != pdu.ESME_ROK {
			b.Fatalf("bind: %v %v", p.Status, err)
		}
		conns[i] = nc
	}
	sm, _ := pdu.Append(nil, pdu.PDU{Body: &pdu.SubmitSM{ShortMessage: pdu.ShortMessage{Source: pdu.Address{TON: 5, Addr: "Shop"},
		Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"}, RegisteredDelivery: 1, Message: []byte(text)}}})
	start := time.Now()
	var wg sync.WaitGroup
	for i, nc := range conns {
		share := n / binds
		if i < n%binds {
			share++
		}
		wg.Go(func() {
			var mu sync.Mutex // the writer, shared by submits and receipts' answers
			bw := bufio.NewWriter(nc)
			slots := make(chan struct{}, window)
			answered := make(chan struct{})
			go func() {
				br := bufio.NewReader(nc)
				var buf []byte
				got := 0
				for {
					nc.SetReadDeadline(time.Now().Add(60 * time.Second))
					p, raw, err := pdu.Read(br, buf, 0)
					if err != nil {
						if got < share {
							b.Errorf("reading: %v after %d answers", err, got)
							close(answered)
						}
						return
					}
					buf = raw
					switch p.Body.Command() {
					case pdu.CmdSubmitSMResp:
						if p.Status != pdu.ESME_ROK {
							b.Errorf("submit_sm_resp %s", p.Status)
						}
						<-slots
						if got++; got == share {
							close(answered)
						}
					case pdu.CmdDeliverSM, pdu.CmdEnquireLink:
						body := pdu.Body(&pdu.DeliverSMResp{})
						if p.Body.Command() == pdu.CmdEnquireLink {
							body = &pdu.Empty{ID: pdu.CmdEnquireLinkResp}
						} else if receipts.Add(1) == int64(n) {
							close(allReceipts)
						}
						resp, _ := pdu.Append(nil, pdu.PDU{Seq: p.Seq, Body: body})
						mu.Lock()
						bw.Write(resp)
						bw.Flush()
						mu.Unlock()
					}
				}
			}()
			for k := range share {
				slots <- struct{}{}
				binary.BigEndian.PutUint32(sm[12:], uint32(k+2))
				mu.Lock()
				bw.Write(sm)
				if len(slots) == window || k == share-1 {
					bw.Flush()
				}
				mu.Unlock()
			}
			<-answered
		})
	}
	wg.Wait()
	submitRate = float64(n) / time.Since(start).Seconds()
	select {
	case <-allReceipts:
	case <-time.After(2 * time.Minute):
		b.Fatalf("%d of %d receipts came", receipts.Load(), n)
	}
	return submitRate, float64(n) / time.Since(start).Seconds()
}
