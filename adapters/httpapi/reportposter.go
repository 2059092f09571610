package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/msgkit/msgkit"
)

// ReportPosterOptions configure a ReportPoster.
type ReportPosterOptions struct {
	// Forbidden lists address ranges reports must never be posted to
	// (an operator lists its private networks here, so that a customer's
	// dlrUrl cannot reach them); checked on the address actually dialled.
	Forbidden []netip.Prefix
	// MaxIdleConnsPerHost keeps connections to busy customers; default 32.
	MaxIdleConnsPerHost int
	UserAgent           string
}

// ReportPoster posts delivery reports to customers' URLs; it satisfies
// sms.ReportPoster. 2xx is delivered; 408, 429, 5xx, timeouts and
// connection errors are retried (msgkit.Unavailable); other answers,
// redirects included, are refusals for good (msgkit.Invalid).
type ReportPoster struct {
	client    *http.Client
	userAgent string
}

// NewReportPoster returns a poster with its own connection pool.
func NewReportPoster(opts ReportPosterOptions) *ReportPoster {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if len(opts.Forbidden) > 0 {
		forbidden := opts.Forbidden
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			for _, p := range forbidden {
				if p.Contains(ap.Addr().Unmap()) {
					return errForbiddenAddress
				}
			}
			return nil
		}
	}
	transport := &http.Transport{
		DialContext:         dialer.DialContext,
		MaxIdleConnsPerHost: int(cmpOr(int64(opts.MaxIdleConnsPerHost), 32)),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	transport.MaxIdleConns = 0 // no global cap: the per-host one bounds it
	return &ReportPoster{
		client: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: cmp.Or(opts.UserAgent, "msgkit-dlr/1"),
	}
}

var errForbiddenAddress = errors.New("the address is in a forbidden range")

// PostReport posts body as JSON to url.
func (p *ReportPoster) PostReport(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return msgkit.Wrap(err, msgkit.Invalid, "dlr_url", "the report URL is invalid")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", p.userAgent)
	resp, err := p.client.Do(req)
	if err != nil {
		if errors.Is(err, errForbiddenAddress) {
			return msgkit.Wrap(err, msgkit.Invalid, "dlr_forbidden", "the report URL points to a forbidden address")
		}
		return msgkit.Wrap(err, msgkit.Unavailable, "dlr_unreachable", "the report URL did not answer")
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	resp.Body.Close()
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return nil
	case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500:
		return msgkit.New(msgkit.Unavailable, "dlr_status", fmt.Sprintf("the report URL answered %d", s))
	default:
		return msgkit.New(msgkit.Invalid, "dlr_status", fmt.Sprintf("the report URL answered %d", s))
	}
}
