package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// Smartlead connects with an API key, sent as the api_key query parameter
// (docs/integrations/outreach.md).
var Smartlead = &Type{
	Name:        "smartlead",
	DisplayName: "Smartlead",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "the API key of a Smartlead account (Settings → API Key)",
		Required: true,
		MaxLen:   256,
	}},
	DefaultURL:   "https://server.smartlead.ai/api/v1",
	Probe:        probeSmartlead,
	Authorize:    QueryAuth("api_key", "api_key"),
	ErrorMessage: outreachErrorMessage,
	Lookups:      map[string]LookupFunc{"campaigns": smartleadCampaigns},
}

func init() { Register(Smartlead) }

// SmartleadCampaign is the part of a GET /campaigns item Trawl reads.
type SmartleadCampaign struct {
	ID     json.Number `json:"id"`
	Name   string      `json:"name"`
	Status string      `json:"status"`
}

// probeSmartlead lists the account's campaigns (GET /campaigns), which
// every valid key may; Smartlead has no "who am I" call.
func probeSmartlead(ctx context.Context, c *Conn) error {
	var out []SmartleadCampaign
	if err := c.Do(ctx, Request{Path: "/campaigns"}, &out); err != nil {
		return err
	}
	return nil
}

// smartleadCampaigns answers the campaigns lookup: GET /campaigns answers
// them all in one array.
func smartleadCampaigns(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	var raw []SmartleadCampaign
	if err := c.Do(ctx, Request{Path: "/campaigns"}, &raw); err != nil {
		return nil, fmt.Errorf("listing Smartlead campaigns: %w", err)
	}
	out := make([]Campaign, 0, len(raw))
	for _, r := range raw {
		out = append(out, Campaign{ID: r.ID.String(), Name: r.Name, Status: r.Status})
	}
	return out, nil
}
