package egress

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/msgkit/msgkit"
)

// ReportPosterOptions configure a ReportPoster.
type ReportPosterOptions struct {
	// Policy says which addresses reports may be posted to; it is checked
	// on the address actually dialled, at every redirect hop. Its zero
	// value refuses loopback, private, link-local and the other special
	// ranges (DefaultRanges): development allows loopback here.
	Policy Policy
	// MaxIdleConnsPerHost keeps connections to busy customers; default 32.
	MaxIdleConnsPerHost int
	UserAgent           string
}

// maxRedirects is how many redirects one delivery or fetch follows.
const maxRedirects = 3

// ReportPoster posts delivery reports to customers' URLs; it satisfies
// sms.ReportPoster. 2xx is delivered; 408, 429, 5xx, timeouts and
// connection errors are retried (msgkit.Unavailable); redirects 301, 302,
// 307 and 308 are followed, posting the same body again, at most 3 of
// them; other answers, a refused address, other redirects and a fourth
// one are refusals for good (msgkit.Invalid).
type ReportPoster struct {
	client    *http.Client
	userAgent string
}

// NewReportPoster returns a poster with its own connection pool, dialling
// through an Dialer of opts.Policy.
func NewReportPoster(opts ReportPosterOptions) *ReportPoster {
	transport := NewTransport(opts.Policy)
	transport.MaxIdleConnsPerHost = 32
	if opts.MaxIdleConnsPerHost > 0 {
		transport.MaxIdleConnsPerHost = opts.MaxIdleConnsPerHost
	}
	transport.MaxIdleConns = 0 // no global cap: the per-host one bounds it
	return &ReportPoster{
		client: &http.Client{
			Transport: transport,
			// PostReport follows redirects itself: http.Client would turn a
			// POST into a GET without body on 301 and 302.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: cmp.Or(opts.UserAgent, "msgkit-dlr/1"),
	}
}

// PostReport posts body as JSON to url, following redirects.
func (p *ReportPoster) PostReport(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return msgkit.Wrap(err, msgkit.Invalid, "dlr_url", "the report URL is invalid")
	}
	for hops := 0; ; hops++ {
		resp, err := p.post(req, body)
		if err != nil {
			return err
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return statusError(resp.StatusCode)
		}
		if hops == maxRedirects {
			return msgkit.New(msgkit.Invalid, "dlr_redirect", fmt.Sprintf("the report URL redirected more than %d times", maxRedirects))
		}
		next, err := resp.Location()
		if err != nil || (next.Scheme != "http" && next.Scheme != "https") || next.Host == "" {
			return msgkit.New(msgkit.Invalid, "dlr_redirect", "the report URL redirected to an invalid location")
		}
		req = req.Clone(ctx)
		req.URL, req.Host = next, ""
	}
}

// post sends one POST of body with req's URL, and reads and closes the
// answer so the connection can be reused.
func (p *ReportPoster) post(req *http.Request, body []byte) (*http.Response, error) {
	req.GetBody = func() (io.ReadCloser, error) {
		if len(body) == 0 {
			return http.NoBody, nil // a Body of length 0 would be sent chunked
		}
		return io.NopCloser(bytes.NewReader(body)), nil
	}
	req.Body, _ = req.GetBody()
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", p.userAgent)
	resp, err := p.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			return nil, msgkit.Wrap(err, msgkit.Invalid, "dlr_forbidden", "the report URL points to a forbidden address")
		}
		return nil, msgkit.Wrap(err, msgkit.Unavailable, "dlr_unreachable", "the report URL did not answer")
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp, nil
}

// statusError classifies a final answer: nil for 2xx.
func statusError(s int) error {
	switch {
	case s >= 200 && s < 300:
		return nil
	case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500:
		return msgkit.New(msgkit.Unavailable, "dlr_status", fmt.Sprintf("the report URL answered %d", s))
	default:
		return msgkit.New(msgkit.Invalid, "dlr_status", fmt.Sprintf("the report URL answered %d", s))
	}
}
