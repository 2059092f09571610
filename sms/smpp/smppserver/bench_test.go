package smppserver_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// BenchmarkSubmitSMVersusHTTP sends benchN one-part messages over
// loopback through 8 binds of window 50, and the same number through the
// bulk SMS HTTP handler with 64 concurrent keep-alive clients, to one
// gateway on memory, each round; it reports the medians of both rates
// and of their ratio. Run it alone:
//
//	go test ./sms/smpp/smppserver -run '^$' -bench SubmitSMVersusHTTP -benchtime 5x -benchmem
func BenchmarkSubmitSMVersusHTTP(b *testing.B) {
	const benchN, binds, window, httpClients = 20_000, 8, 50, 64
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("1000000000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		b.Fatal(err)
	}
	srv := smppserver.New(gw, smppserver.Options{Window: window, MaxBinds: binds})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	conns := make([]*esme, binds)
	for i := range conns {
		conns[i] = dial(b, ln.Addr().String())
		if st := conns[i].bind(b, pdu.Transmitter, "shop", "pw"); st != pdu.ESME_ROK {
			b.Fatal(st)
		}
	}
	hs := httptest.NewServer(bulksmsapi.Handler(gw, bulksmsapi.Options{}))
	defer hs.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: httpClients}}
	const body = `{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","dcs":"gsm","text":"Your order has shipped"}`

	var smppRates, httpRates, ratios []float64
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		for _, e := range conns {
			wg.Go(func() { pipeline(b, e, benchN/binds, window) })
		}
		wg.Wait()
		smppRate := benchN / time.Since(start).Seconds()

		start = time.Now()
		for w := range httpClients {
			wg.Go(func() {
				for i := w; i < benchN; i += httpClients {
					resp, err := hc.Post(hs.URL+bulksmsapi.SendSMSPath, "application/json", strings.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusAccepted {
						b.Errorf("HTTP %d", resp.StatusCode)
						return
					}
				}
			})
		}
		wg.Wait()
		httpRate := benchN / time.Since(start).Seconds()
		smppRates, httpRates, ratios = append(smppRates, smppRate), append(httpRates, httpRate), append(ratios, smppRate/httpRate)
	}
	b.ReportMetric(median(smppRates), "submit_sm/s")
	b.ReportMetric(median(httpRates), "http/s")
	b.ReportMetric(median(ratios), "ratio")
}

// pipeline sends n submit_sm on e, at most window unanswered, and reads
// their answers, each ESME_ROK.
func pipeline(b *testing.B, e *esme, n, window int) {
	p := submitSM("Your order has shipped", nil)
	p.Body.(*pdu.SubmitSM).RegisteredDelivery = pdu.RegisteredDeliveryAll
	req, err := pdu.Append(nil, p)
	if err != nil {
		b.Error(err)
		return
	}
	slots := make(chan struct{}, window)
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReader(e.nc)
		var buf []byte
		for range n {
			var r pdu.PDU
			var err error
			e.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
			if r, buf, err = pdu.Read(br, buf, 0); err != nil {
				b.Error(err)
				return
			}
			if r.Status != pdu.ESME_ROK {
				b.Errorf("submit_sm_resp %s", r.Status)
				return
			}
			<-slots
		}
	}()
	bw := bufio.NewWriter(e.nc)
	for range n {
		select {
		case slots <- struct{}{}:
		case <-done:
			return
		}
		e.seq++
		binary.BigEndian.PutUint32(req[12:], e.seq)
		bw.Write(req)
		if len(slots) == window || len(slots) == n {
			bw.Flush()
		}
	}
	bw.Flush()
	<-done
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
