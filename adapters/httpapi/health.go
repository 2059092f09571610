package httpapi

import (
	"context"
	"net/http"
	"time"
)

// ReadyTimeout bounds the Ping of GET /readyz.
const ReadyTimeout = 2 * time.Second

type healthBody struct {
	Status string `json:"status"`
}

// HealthHandler serves GET /healthz, 200 {"status":"ok"} while the process
// serves requests, and GET /readyz, which asks Options.Pinger (within
// ReadyTimeout) and answers 200 {"status":"ok"} or 503
// {"status":"unavailable"}; the failure is logged, not shown. GET
// /version answers the program's build information (ReadVersion).
func HealthHandler(opts Options) http.Handler {
	o := opts.withDefaults()
	m := newFamilyMux(familyNone, o.Metrics)
	for pattern, h := range healthRoutes(o) {
		m.handle(pattern, h)
	}
	return o.base(m, m)
}

// healthRoutes are the operations of HealthHandler by ServeMux pattern:
// the set its OpenAPI document (HealthOpenAPI) describes.
func healthRoutes(o Options) map[string]http.Handler {
	return map[string]http.Handler{
		"GET /version": versionHandler(),
		"GET /healthz": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = WriteJSON(w, http.StatusOK, healthBody{Status: "ok"})
		}),
		"GET /readyz": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if o.Pinger != nil {
				ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
				defer cancel()
				if err := o.Pinger.Ping(ctx); err != nil {
					LoggerFrom(r.Context()).WarnContext(r.Context(), "not ready", "err", err, "request_id", RequestIDFrom(r.Context()))
					w.Header().Set("Cache-Control", "no-store")
					_ = WriteJSON(w, http.StatusServiceUnavailable, healthBody{Status: "unavailable"})
					return
				}
			}
			w.Header().Set("Cache-Control", "no-store")
			_ = WriteJSON(w, http.StatusOK, healthBody{Status: "ok"})
		}),
	}
}
