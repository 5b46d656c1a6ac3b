package httpapi

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source"
)

type usageInput struct {
	From string `query:"from" doc:"Start of the period (ISO 8601); default the start of the current billing month (UTC)." example:"2026-11-01T00:00:00Z"`
	To   string `query:"to" doc:"End of the period (ISO 8601); default now." example:"2026-11-22T12:00:00Z"`

	from, to time.Time
}

func (in *usageInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *usageInput) check(_ huma.Context, s *Server, p *problems) error {
	now := s.now().UTC()
	in.from, in.to = period(in.From, in.To, credits.PeriodStart(now), now, p)
	return nil
}

type usagePeriod struct {
	Start string `json:"start" doc:"Start of the period."`
	End   string `json:"end" doc:"End of the period."`
	From  string `json:"from" doc:"Same as start (the spec's response skeleton uses from/to)."`
	To    string `json:"to" doc:"Same as end."`
}

// usageCredits carries, beside the credits, what the period cost in money at the upstream
// vendors: each adapter knows its vendor's price (TRAWL_PRONET_PRICES) and every operation
// records what its calls cost with its credits, a failed call the vendor billed included.
type usageCredits struct {
	TotalConsumed         int64             `json:"total_consumed"`
	ByFeature             map[string]int64  `json:"by_feature" doc:"Credits per feature; every feature is listed, 0 included."`
	UpstreamCost          string            `json:"upstream_cost_usd" doc:"What the period's upstream calls cost at the vendors, in USD with 6 decimals (a Trawl addition)." example:"1.254000"`
	UpstreamCostByFeature map[string]string `json:"upstream_cost_by_feature" doc:"The same per feature, every feature listed (0.000000 included): a saved search's runs count under search_create, topic collection under social_topics, workflow steps under workflow_execution."`
}

type usageMonitors struct {
	Active int64 `json:"active"`
	Total  int64 `json:"total" doc:"All monitors, paused and completed included."`
}

type usageResults struct {
	TotalCollected int64 `json:"total_collected"`
}

type usageData struct {
	Period   usagePeriod   `json:"period"`
	Credits  usageCredits  `json:"credits"`
	Monitors usageMonitors `json:"monitors"`
	Results  usageResults  `json:"results"`
}

func (s *Server) handleUsage(ctx context.Context, in *usageInput) (*Reply[usageData], error) {
	from, to := in.from, in.to
	p := principalFrom(ctx)
	u, err := s.store.Usage(ctx, p.Account.ID, from, to)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	by := make(map[string]int64, len(credits.Features()))
	cost := make(map[string]string, len(credits.Features()))
	for _, f := range credits.Features() {
		by[string(f)] = u.ByFeature[f]
		cost[string(f)] = source.Micros(u.UpstreamByFeature[f]).USD()
	}
	return reply("Usage summary", usageData{
		Period: usagePeriod{Start: formatTime(from), End: formatTime(to), From: formatTime(from), To: formatTime(to)},
		Credits: usageCredits{TotalConsumed: u.TotalConsumed, ByFeature: by,
			UpstreamCost: source.Micros(u.UpstreamCost).USD(), UpstreamCostByFeature: cost},
		Monitors: usageMonitors{Active: u.MonitorsActive, Total: u.MonitorsTotal},
		Results:  usageResults{TotalCollected: u.ResultsTotal},
	}), nil
}

// parseTimestamp accepts RFC 3339 (with or without fractional seconds) and a
// bare date, which means its first instant in UTC.
func parseTimestamp(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errBadTimestamp
}

// formatTime is the one timestamp format of the API: RFC 3339 UTC with milliseconds.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
