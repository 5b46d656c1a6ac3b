package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// HeyReach connects with an API key, sent in the X-API-KEY header
// (docs/integrations/outreach.md).
var HeyReach = &Type{
	Name:        "heyreach",
	DisplayName: "HeyReach",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "a HeyReach API key (Integrations → API → New API key)",
		Required: true,
		MaxLen:   256,
	}},
	DefaultURL:   "https://api.heyreach.io/api/public",
	Probe:        probeHeyReach,
	Authorize:    HeaderAuth("X-API-KEY", "api_key"),
	ErrorMessage: outreachErrorMessage,
	Lookups:      map[string]LookupFunc{"campaigns": heyReachCampaigns},
}

func init() { Register(HeyReach) }

// probeHeyReach asks GET /auth/CheckApiKey, which answers 200 to a valid key.
func probeHeyReach(ctx context.Context, c *Conn) error {
	return c.Do(ctx, Request{Path: "/auth/CheckApiKey"}, nil)
}

// HeyReachPage is a page of POST /campaign/GetAll or POST /list/GetAll.
type HeyReachPage struct {
	TotalCount int `json:"totalCount"`
	Items      []struct {
		ID       json.Number `json:"id"`
		Name     string      `json:"name"`
		Status   string      `json:"status"`
		ListType string      `json:"listType"`
	} `json:"items"`
}

// heyReachCampaigns answers the campaigns lookup with the campaigns and
// the lead lists (both take leads: heyreach_add_lead takes campaign_id or
// list_id), told apart by kind. Lists have no status; their listType
// (USER_LIST, COMPANY_LIST) stands in.
func heyReachCampaigns(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	out := []Campaign{}
	for _, src := range []struct{ path, kind string }{{"/campaign/GetAll", "campaign"}, {"/list/GetAll", "list"}} {
		const limit = 100
		for page := range maxCampaignPages {
			var p HeyReachPage
			body := map[string]any{"offset": page * limit, "limit": limit}
			if err := c.Do(ctx, Request{Method: "POST", Path: src.path, Body: body}, &p); err != nil {
				return nil, fmt.Errorf("listing HeyReach %ss: %w", src.kind, err)
			}
			for _, it := range p.Items {
				status := it.Status
				if src.kind == "list" {
					status = it.ListType
				}
				out = append(out, Campaign{ID: it.ID.String(), Name: it.Name, Status: status, Kind: src.kind})
			}
			if len(p.Items) < limit || (page+1)*limit >= p.TotalCount {
				break
			}
		}
	}
	return out, nil
}
