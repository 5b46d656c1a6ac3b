package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
)

// metrics are the HTTP layer's Prometheus series, on a registry of the
// server's own (never the global one).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_http_requests_total", Help: "HTTP requests by method, route and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "trawl_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
	}
	m.registry.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(d.Seconds())
}

// watchKeywordMatches adds the series of the keyword matches the
// process keeps for social mapping and creator discovery.
func (m *metrics) watchKeywordMatches(held func() mapping.KeywordMatches) {
	gauge := func(name, help string, value func(mapping.KeywordMatches) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(value(held())) })
	}
	m.registry.MustRegister(
		gauge("trawl_mapping_keyword_matches", "Keywords (at a strength) whose matching posts this process keeps.",
			func(h mapping.KeywordMatches) int { return h.Entries }),
		gauge("trawl_mapping_keyword_match_posts", "Post ids the kept keyword matches hold.",
			func(h mapping.KeywordMatches) int { return h.Posts }),
		gauge("trawl_mapping_keyword_match_bytes", "About how much memory the kept keyword matches take, in bytes; at most the budget but for the lookup being answered.",
			func(h mapping.KeywordMatches) int { return h.Bytes }),
		gauge("trawl_mapping_keyword_match_budget_bytes", "The budget of the kept keyword matches, in bytes (TRAWL_MAPPING_CACHE_BYTES).",
			func(h mapping.KeywordMatches) int { return h.Budget }))
}

// watchKeywordPostings adds the series of the keyword posting lists that
// first mapping queries read on PostgreSQL, read from the database at each
// scrape: an operator sees them cover the pool after the migration that
// adds them, and their size.
func (m *metrics) watchKeywordPostings(held func(context.Context) (store.KeywordPostings, error)) {
	m.registry.MustRegister(&postingsCollector{held: held,
		blocks: prometheus.NewDesc("trawl_mapping_posting_blocks", "Blocks of keyword posting lists built (65,536 post ids each).", nil, nil),
		posts:  prometheus.NewDesc("trawl_mapping_posting_posts", "Posts the keyword posting lists hold, as each block was built.", nil, nil),
		bytes:  prometheus.NewDesc("trawl_mapping_posting_bytes", "Bytes of the keyword posting lists.", nil, nil),
	})
}

type postingsCollector struct {
	held                 func(context.Context) (store.KeywordPostings, error)
	blocks, posts, bytes *prometheus.Desc
}

func (c *postingsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.blocks
	ch <- c.posts
	ch <- c.bytes
}

func (c *postingsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	held, err := c.held(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.blocks, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.blocks, prometheus.GaugeValue, float64(held.Blocks))
	ch <- prometheus.MustNewConstMetric(c.posts, prometheus.GaugeValue, float64(held.Posts))
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(held.Bytes))
}

// Registry lets other parts of the process (workers) add their series.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
