package bulksmsapi

import (
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// SendSMSPath is the path of the bulk SMS submission.
const SendSMSPath = "/bulk/sendsms"

// DefaultMaxBodyBytes bounds a submission: 255 parts of UCS-2 text in UTF-8
// stay far below it.
const DefaultMaxBodyBytes = 256 << 10

// Options configure Handler. Zero values choose the defaults.
type Options struct {
	// Logger receives access logs and internal failures; nil discards.
	Logger *slog.Logger
	// TrustedProxies are the peers whose X-Forwarded-For is believed when
	// telling the client IP, as in httpapi.Options.
	TrustedProxies []netip.Prefix
	// MaxBodyBytes limits a submission; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// NewRequestID makes request ids; nil: 26 random base32 characters.
	NewRequestID func() string
	// Metrics measure the requests under the family label "bulksms", as
	// httpapi.Options.Metrics do the REST families'; nil: none.
	Metrics *httpapi.Metrics
}

// Handler serves POST /bulk/sendsms with gateway, which *sms.Gateway
// satisfies: 202 {"msgId","numParts"} when accepted; every rejection 420
// {"error":{"code":"1xx","message"}} with the code as a JSON string, since
// the client libraries customers use read it as one; internal failures 500
// and unavailability 503 without a body. Every request has a request id
// and an access log line. The handler is httpapi.Operations: its one route,
// under no family of the HTTP kit (Spec().Family is the zero Family), with
// credentials in the body. A gateway with a Refused method, as
// *sms.Gateway has, is told of the submissions the handler refuses
// itself, so that its metrics count them. It panics when gateway is nil.
func Handler(gateway Submitter, opts Options) httpapi.Operations {
	if gateway == nil {
		panic("bulksmsapi: Handler needs a gateway")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	mux := http.NewServeMux()
	spec := httpapi.FamilySpec{Auth: httpapi.AuthBody}
	measures := opts.Metrics.Family("bulksms")
	for pattern, h := range routes(gateway, opts) {
		mux.Handle(pattern, measures.Route(pattern, h))
		method, path, _ := strings.Cut(pattern, " ")
		spec.Routes = append(spec.Routes, httpapi.Route{Method: method, Path: path, MaxBody: opts.MaxBodyBytes, Handler: h})
	}
	measured := measures.Measure(recoverBare(mux), nil)
	return httpapi.WithSpec(httpapi.RequestID(opts.NewRequestID)(httpapi.AccessLog(opts.Logger)(measured)), spec)
}

// routes are the family's operations by ServeMux pattern: the set its
// OpenAPI document describes.
func routes(gateway Submitter, opts Options) map[string]http.Handler {
	return map[string]http.Handler{
		http.MethodPost + " " + SendSMSPath: newSendSMS(gateway, opts),
	}
}

func newSendSMS(gateway Submitter, opts Options) *sendSMS {
	h := &sendSMS{gateway: gateway, opts: opts}
	h.counter, _ = gateway.(refusalCounter)
	return h
}

// recoverBare answers a panic with a bare 500: bulk SMS 5xx carry no JSON.
func recoverBare(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				httpapi.LoggerFrom(r.Context()).ErrorContext(r.Context(), "panic serving bulk SMS", "panic", v, "request_id", httpapi.RequestIDFrom(r.Context()))
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
