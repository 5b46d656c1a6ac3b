package httpapi

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// watchPronetLimits adds the series of the pronet provider's limiter, read at each scrape: an
// operator sees when hydration slows for the vendor's limits, and by how much.
func (m *metrics) watchPronetLimits(lp *pronet.Limited) {
	labels := prometheus.Labels{"provider": lp.Name()}
	counter := func(name, help string, value func(pronet.LimitStats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return value(lp.Stats()) })
	}
	m.registry.MustRegister(
		counter("trawl_pronet_limit_waits_total", "Pronet provider calls that waited for the rate limit or a vendor's reset.",
			func(s pronet.LimitStats) float64 { return float64(s.Waits) }),
		counter("trawl_pronet_limit_wait_seconds_total", "Seconds pronet provider calls waited for the rate limit or a vendor's reset.",
			func(s pronet.LimitStats) float64 { return s.WaitSeconds }),
		counter("trawl_pronet_rate_limited_total", "Rate-limit answers (429) of the pronet provider.",
			func(s pronet.LimitStats) float64 { return float64(s.RateLimited) }),
		counter("trawl_pronet_limit_retries_total", "Pronet provider calls tried again after a vendor's reset.",
			func(s pronet.LimitStats) float64 { return float64(s.Retries) }))
}
