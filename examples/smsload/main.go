// Command smsload measures bulk SMS submission over HTTP: it posts
// submissions to /bulk/sendsms from several workers until it has sent -n of
// them or -duration has passed, whichever comes first, and prints the
// throughput and latency percentiles. Point it only at a server of your own.
// With -dlr-url each submission asks for delivery reports there (-dlr-mask
// the events), for examples/dlrsink to count.
//
//	go run ./examples/smsload -url http://127.0.0.1:12020/bulk/sendsms -user demo -password secret
//	go run ./examples/smsload -user demo -password secret -dlr-url http://127.0.0.1:12040/dlr -dlr-mask 9
//
// With -api kannel it submits the same text to a Kannel smsbox's
// /cgi-bin/sendsms (a GET with the text in the query, answered 202), the
// peer the platform is compared with; kannel.sh in this folder starts one
// and compare.sh runs both side by side.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	cfg := config{Progress: os.Stderr}
	flag.StringVar(&cfg.URL, "url", "http://127.0.0.1:12020/bulk/sendsms", "submission URL")
	flag.StringVar(&cfg.API, "api", "bulk", "submission API: bulk (JSON POST) or kannel (sendsms GET)")
	flag.StringVar(&cfg.User, "user", "", "account username")
	flag.StringVar(&cfg.Password, "password", "", "account password")
	flag.StringVar(&cfg.Receiver, "receiver", "38640123456", "destination number")
	flag.StringVar(&cfg.Text, "text", "", "message text (default: a 2-part GSM text)")
	flag.IntVar(&cfg.N, "n", 20000, "submissions to send at most")
	flag.IntVar(&cfg.Workers, "c", 32, "concurrent workers")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "time to run at most")
	flag.Float64Var(&cfg.Rate, "rate", 0, "submissions per second at most, spread over the workers; 0: as fast as they go")
	flag.DurationVar(&cfg.Every, "progress", time.Second, "how often to print progress to standard error; 0: never")
	flag.StringVar(&cfg.DLRURL, "dlr-url", "", "delivery report URL (dlrUrl) of every submission with -api bulk; none by default")
	flag.StringVar(&cfg.TopUpURL, "topup-url", "", "an account's ledger in the administration API (…/admin/v1/sms-accounts/USER/ledger): top it up every -topup-every while the load runs")
	flag.StringVar(&cfg.TopUpToken, "topup-token", "", "a bearer token holding admin.credit, for -topup-url")
	flag.DurationVar(&cfg.TopUpEvery, "topup-every", 10*time.Millisecond, "how often to top up with -topup-url")
	flag.StringVar(&cfg.TopUpAmount, "topup-amount", "0.01 EUR", "each top-up: an amount and the account's currency")
	mask := flag.Int("dlr-mask", -1, "dlrMask of every submission with -api bulk: the sum of DELIVERED 1, UNDELIVERED 2, BUFFERED 4, SENT_TO_SMSC 8, REJECTED 16; -1 leaves it out (the platform then reports 19 with a -dlr-url)")
	flag.Parse()
	if *mask >= 0 {
		cfg.DLRMask = mask
	}
	r, err := run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "smsload:", err)
		os.Exit(1)
	}
	fmt.Println(r)
	if r.Accepted == 0 {
		// A run that measured only refusals measured nothing: say so to
		// scripts as well as people.
		fmt.Fprintln(os.Stderr, "smsload: no submission was accepted")
		os.Exit(1)
	}
}

type config struct {
	URL, API, User, Password, Receiver, Text string
	N, Workers                               int
	Duration                                 time.Duration
	Rate                                     float64       // submissions a second at most; 0: no limit
	DLRURL                                   string        // "": no dlrUrl
	DLRMask                                  *int          // nil: no dlrMask
	Every                                    time.Duration // progress lines; 0: none
	Progress                                 io.Writer     // where progress lines go
	// TopUpURL, when set, is an account's ledger: a top-up of TopUpAmount
	// is posted to it every TopUpEvery while the load runs, with
	// TopUpToken, so a run measures submissions under top-ups.
	TopUpURL, TopUpToken, TopUpAmount string
	TopUpEvery                        time.Duration
}

// result is what a run measured.
type result struct {
	Sent, Accepted, Rejected, Failed int
	// Codes counts the refusals by their code: the bulk API's error code
	// ("107"), or the HTTP status of a refusal without one ("403" from
	// Kannel).
	Codes         map[string]int
	Elapsed       time.Duration
	P50, P99, Max time.Duration
	// TopUps and TopUpsFailed count the top-ups posted during the run.
	TopUps, TopUpsFailed int
}

// PerSecond is accepted submissions per second.
func (r result) PerSecond() float64 { return float64(r.Accepted) / r.Elapsed.Seconds() }

func (r result) String() string {
	s := fmt.Sprintf("sent %d in %v: %d accepted (%.0f/s), %d rejected (420), %d failed; latency p50 %v p99 %v max %v",
		r.Sent, r.Elapsed.Round(time.Millisecond), r.Accepted, r.PerSecond(), r.Rejected, r.Failed,
		r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
	if len(r.Codes) > 0 {
		var codes []string
		for _, c := range slices.Sorted(maps.Keys(r.Codes)) {
			codes = append(codes, fmt.Sprintf("%s×%d", c, r.Codes[c]))
		}
		s += "; refused by code: " + strings.Join(codes, ", ")
	}
	if r.TopUps+r.TopUpsFailed > 0 {
		s += fmt.Sprintf("; %d top-ups (%d failed)", r.TopUps, r.TopUpsFailed)
	}
	return s
}

// refusalCode is the code of a refusal's body: the bulk API's
// {"error":{"code":"107",…}}, or else the HTTP status.
func refusalCode(status int, body []byte) string {
	var b struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &b) == nil && len(b.Error.Code) > 0 {
		var code string
		if json.Unmarshal(b.Error.Code, &code) == nil {
			return code
		}
		return string(b.Error.Code) // a number
	}
	return strconv.Itoa(status)
}

func run(ctx context.Context, cfg config) (result, error) {
	if cfg.Text == "" {
		cfg.Text = strings.Repeat("Your order 12345 has shipped. ", 7) // 210 GSM characters: 2 parts
	}
	newRequest, err := requests(cfg)
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Workers, MaxConnsPerHost: cfg.Workers}}
	var (
		next                       atomic.Int64
		accepted, rejected, failed atomic.Int64
		mu                         sync.Mutex
		latencies                  = make([]time.Duration, 0, cfg.N)
		codes                      = map[string]int{}
		wg                         sync.WaitGroup
	)
	start := time.Now()
	// pace gives each submission its slot on the clock: the i-th goes no
	// earlier than start + i/Rate, so a sustained rate is held whatever
	// the answers' latency (as long as the workers keep up).
	pace := func(i int64) bool {
		if cfg.Rate <= 0 {
			return true
		}
		at := start.Add(time.Duration(float64(i-1) / cfg.Rate * float64(time.Second)))
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Until(at)):
			return true
		}
	}
	for range cfg.Workers {
		wg.Go(func() {
			local := make([]time.Duration, 0, cfg.N/cfg.Workers+1)
			defer func() { mu.Lock(); latencies = append(latencies, local...); mu.Unlock() }()
			for i := next.Add(1); i <= int64(cfg.N) && ctx.Err() == nil && pace(i); i = next.Add(1) {
				t0 := time.Now()
				resp, err := client.Do(newRequest(ctx))
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				var body []byte
				if resp.StatusCode == http.StatusAccepted {
					io.Copy(io.Discard, resp.Body)
				} else {
					body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
				}
				resp.Body.Close()
				local = append(local, time.Since(t0))
				switch resp.StatusCode {
				case http.StatusAccepted:
					accepted.Add(1)
				case 420, http.StatusForbidden: // 403 is Kannel's refusal
					rejected.Add(1)
					code := refusalCode(resp.StatusCode, body)
					mu.Lock()
					codes[code]++
					mu.Unlock()
				default:
					failed.Add(1)
				}
			}
		})
	}
	if cfg.Every > 0 && cfg.Progress != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			tick := time.NewTicker(cfg.Every)
			defer tick.Stop()
			var last int64
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				a := accepted.Load()
				fmt.Fprintf(cfg.Progress, "%4.0fs: %d accepted (%.0f/s in the last %v), %d rejected, %d failed\n",
					time.Since(start).Seconds(), a, float64(a-last)/cfg.Every.Seconds(), cfg.Every, rejected.Load(), failed.Load())
				last = a
			}
		}()
	}
	var topUps, topUpsFailed atomic.Int64
	if cfg.TopUpURL != "" {
		body, err := topUpBody(cfg.TopUpAmount)
		if err != nil {
			return result{}, err
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			tick := time.NewTicker(cfg.TopUpEvery)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, cfg.TopUpURL, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+cfg.TopUpToken)
				resp, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil || resp.StatusCode != http.StatusCreated {
					topUpsFailed.Add(1)
				} else {
					topUps.Add(1)
				}
			}
		}()
		defer func() { close(stop); <-done }()
	}
	wg.Wait()
	r := result{Elapsed: time.Since(start), Accepted: int(accepted.Load()), Rejected: int(rejected.Load()), Failed: int(failed.Load()), Codes: codes,
		TopUps: int(topUps.Load()), TopUpsFailed: int(topUpsFailed.Load())}
	r.Sent = r.Accepted + r.Rejected + r.Failed
	if len(latencies) > 0 {
		slices.Sort(latencies)
		r.P50 = latencies[len(latencies)/2]
		r.P99 = latencies[len(latencies)*99/100]
		r.Max = latencies[len(latencies)-1]
	}
	return r, nil
}

// topUpBody is the ledger entry of one top-up of amount ("0.01 EUR").
func topUpBody(amount string) ([]byte, error) {
	value, currency, ok := strings.Cut(amount, " ")
	if !ok {
		return nil, fmt.Errorf("-topup-amount %q is not an amount and a currency such as \"0.01 EUR\"", amount)
	}
	return json.Marshal(map[string]string{"kind": "top_up", "amount": value, "currency": currency, "note": "smsload"})
}

// requests returns a function making one submission request of cfg's API.
func requests(cfg config) (func(context.Context) *http.Request, error) {
	switch cfg.API {
	case "", "bulk":
		sub := map[string]any{
			"type": "text", "auth": map[string]string{"username": cfg.User, "password": cfg.Password},
			"sender": "LoadTest", "receiver": cfg.Receiver, "dcs": "GSM", "text": cfg.Text,
		}
		if cfg.DLRURL != "" {
			sub["dlrUrl"] = cfg.DLRURL
		}
		if cfg.DLRMask != nil {
			sub["dlrMask"] = *cfg.DLRMask
		}
		body, err := json.Marshal(sub)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) *http.Request {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			return req
		}, nil
	case "kannel":
		q := url.Values{"username": {cfg.User}, "password": {cfg.Password}, "from": {"LoadTest"}, "to": {cfg.Receiver}, "text": {cfg.Text}}
		u := cfg.URL + "?" + q.Encode()
		return func(ctx context.Context) *http.Request {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			return req
		}, nil
	}
	return nil, fmt.Errorf("unknown -api %q: bulk or kannel", cfg.API)
}
