package integration

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// Instantly connects with an API v2 key, sent as a bearer token
// (docs/integrations/outreach.md).
var Instantly = &Type{
	Name:        "instantly",
	DisplayName: "Instantly",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "an Instantly API v2 key with the campaigns and leads scopes (Settings → Integrations → API Keys)",
		Required: true,
		MaxLen:   512,
	}},
	DefaultURL:   "https://api.instantly.ai",
	Probe:        probeInstantly,
	Authorize:    BearerAuth("api_key"),
	ErrorMessage: outreachErrorMessage,
	Lookups:      map[string]LookupFunc{"campaigns": instantlyCampaigns},
}

func init() { Register(Instantly) }

// InstantlyCampaignPage is a page of GET /api/v2/campaigns.
type InstantlyCampaignPage struct {
	Items []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Status int    `json:"status"`
	} `json:"items"`
	NextStartingAfter string `json:"next_starting_after"`
}

// instantlyStatuses are the documented campaign status codes.
var instantlyStatuses = map[int]string{
	0: "draft", 1: "active", 2: "paused", 3: "completed", 4: "running_subsequences",
	-99: "suspended", -1: "accounts_unhealthy", -2: "bounce_protect",
}

// InstantlyStatus names a campaign status code (its number when unknown).
func InstantlyStatus(code int) string {
	if s, ok := instantlyStatuses[code]; ok {
		return s
	}
	return strconv.Itoa(code)
}

// probeInstantly reads one campaign, which a key with the campaigns scope
// may (a key without it is refused 401/403 as any other call would be).
func probeInstantly(ctx context.Context, c *Conn) error {
	var page InstantlyCampaignPage
	return c.Do(ctx, Request{Path: "/api/v2/campaigns", Query: url.Values{"limit": {"1"}}}, &page)
}

// instantlyCampaigns answers the campaigns lookup, following the cursor
// (starting_after ← next_starting_after) for at most maxCampaignPages pages.
func instantlyCampaigns(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	out := []Campaign{}
	after := ""
	for range maxCampaignPages {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("starting_after", after)
		}
		var page InstantlyCampaignPage
		if err := c.Do(ctx, Request{Path: "/api/v2/campaigns", Query: q}, &page); err != nil {
			return nil, fmt.Errorf("listing Instantly campaigns: %w", err)
		}
		for _, it := range page.Items {
			out = append(out, Campaign{ID: it.ID, Name: it.Name, Status: InstantlyStatus(it.Status)})
		}
		if page.NextStartingAfter == "" || page.NextStartingAfter == after || len(page.Items) == 0 {
			break
		}
		after = page.NextStartingAfter
	}
	return out, nil
}
