package contacts

import "github.com/prometheus/client_golang/prometheus"

// WithMetrics returns a copy of s that counts the items of its imports
// on reg (the package doc's Metrics); reg nil returns s. A Service takes
// no options, so metrics come this way, as campaign.Service's runs do.
// Registering two services on one registry panics: a process counts its
// imports once.
func (s *Service) WithMetrics(reg prometheus.Registerer) *Service {
	if reg == nil {
		return s
	}
	c := *s
	c.imports = newImportMetrics(reg)
	return &c
}

// importMetrics count imported items by outcome, the counters of
// ImportResult, each child resolved once.
type importMetrics struct {
	created, updated, skipped, deleted, invalid prometheus.Counter
	subscribed, unsubscribed, optedIn, optedOut prometheus.Counter
}

func newImportMetrics(reg prometheus.Registerer) *importMetrics {
	rows := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgkit_cds_import_rows_total",
		Help: "Items of the CDS imports stored, by outcome as the import's result counts them.",
	}, []string{"outcome"})
	reg.MustRegister(rows)
	return &importMetrics{
		created: rows.WithLabelValues("created"), updated: rows.WithLabelValues("updated"),
		skipped: rows.WithLabelValues("skipped"), deleted: rows.WithLabelValues("deleted"),
		invalid: rows.WithLabelValues("invalid"), subscribed: rows.WithLabelValues("subscribed"),
		unsubscribed: rows.WithLabelValues("unsubscribed"), optedIn: rows.WithLabelValues("opted_in"),
		optedOut: rows.WithLabelValues("opted_out"),
	}
}

// count adds an import's result: nine adds an import, nothing an item.
func (m *importMetrics) count(r ImportResult) {
	if m == nil {
		return
	}
	m.created.Add(float64(r.Created))
	m.updated.Add(float64(r.Updated))
	m.skipped.Add(float64(r.Skipped))
	m.deleted.Add(float64(r.Deleted))
	m.invalid.Add(float64(r.Invalid))
	m.subscribed.Add(float64(r.Subscribed))
	m.unsubscribed.Add(float64(r.Unsubscribed))
	m.optedIn.Add(float64(r.OptedIn))
	m.optedOut.Add(float64(r.OptedOut))
}
