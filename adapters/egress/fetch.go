package egress

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// The codes of a failed customer call; the family answers them 502.
const (
	CodeUnreachable    = "customer_unreachable"
	CodeAddressRefused = "customer_address_refused"
	CodeStatus         = "customer_status"
	CodeTooLarge       = "customer_answer_too_large"
	CodeRedirect       = "customer_redirect"
)

// FetcherOptions configure a Fetcher; zero values choose the defaults.
type FetcherOptions struct {
	// Policy says which addresses customer APIs may have; its zero value
	// refuses the special ranges (tests allow loopback).
	Policy Policy
	// MaxAnswer bounds an answer's body; default 2 MiB.
	MaxAnswer int64
	// HeaderTimeout bounds the wait for the answer's headers; default 10 s.
	HeaderTimeout time.Duration
	UserAgent     string
}

// Fetcher calls customer APIs. It is safe for concurrent use and keeps
// connections to busy customers.
type Fetcher struct {
	client *http.Client
	opts   FetcherOptions
}

// NewFetcher returns a fetcher.
func NewFetcher(opts FetcherOptions) *Fetcher {
	opts.MaxAnswer = cmp.Or(opts.MaxAnswer, 2<<20)
	opts.HeaderTimeout = cmp.Or(opts.HeaderTimeout, 10*time.Second)
	opts.UserAgent = cmp.Or(opts.UserAgent, "msgkit-uiproxy/1")
	t := NewTransport(opts.Policy)
	t.ResponseHeaderTimeout = opts.HeaderTimeout
	t.MaxIdleConnsPerHost = 64
	return &Fetcher{opts: opts, client: &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			first := via[0].URL
			switch {
			case len(via) > maxRedirects:
				return errRedirect("more than 3 times")
			case req.URL.Scheme != first.Scheme || req.URL.Host != first.Host:
				return errRedirect("to another host")
			}
			return nil
		},
	}}
}

type redirectError struct{ why string }

func (e redirectError) Error() string { return "redirected " + e.why }

func errRedirect(why string) error { return redirectError{why} }

// Fetch GETs call within timeout (uiproxy.DefaultTimeout when 0) and
// returns the body of a 2xx answer. Failures are errors of kind
// Unavailable with the codes above, their messages free of the URL and
// the token.
func (f *Fetcher) Fetch(ctx context.Context, call uiproxy.Call, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, uiproxy.DefaultTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, call.URL, nil)
	if err != nil {
		return nil, msgkit.New(msgkit.Unavailable, CodeUnreachable, "the component's customer address is not a URL")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", f.opts.UserAgent)
	if call.TokenHeader != "" {
		req.Header.Set(call.TokenHeader, call.Token)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, callError(err, timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, msgkit.Errorf(msgkit.Unavailable, CodeStatus, "the customer API answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxAnswer+1))
	if err != nil {
		return nil, callError(err, timeout)
	}
	if int64(len(body)) > f.opts.MaxAnswer {
		return nil, msgkit.Errorf(msgkit.Unavailable, CodeTooLarge, "the customer API answered more than %d bytes", f.opts.MaxAnswer)
	}
	return body, nil
}

// callError says why a call failed without the URL that url.Error
// carries.
func callError(err error, timeout time.Duration) error {
	var re redirectError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		return msgkit.New(msgkit.Unavailable, CodeRedirect, "the customer API "+re.Error())
	case errors.Is(err, ErrRefused):
		return msgkit.New(msgkit.Unavailable, CodeAddressRefused, "the customer API's address is not one the proxy may call")
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		// The cause says timeout to the proxy's metrics.
		return msgkit.Wrap(context.DeadlineExceeded, msgkit.Unavailable, CodeUnreachable, fmt.Sprintf("the customer API did not answer within %s", cmp.Or(timeout, uiproxy.DefaultTimeout)))
	}
	return msgkit.New(msgkit.Unavailable, CodeUnreachable, "the customer API could not be reached")
}
