package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// HubSpot connects with a private app's access token (docs/integrations.md).
var HubSpot = &Type{
	Name:        "hubspot",
	DisplayName: "HubSpot",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "access_token",
		Doc:      "the access token of a HubSpot private app (Settings → Integrations → Private apps)",
		Required: true,
		MaxLen:   1024,
	}},
	DefaultURL: "https://api.hubapi.com",
	Probe:      probeHubSpot,
}

func init() { Register(HubSpot) }

// hubSpotError is HubSpot's error body; every field may be missing.
type hubSpotError struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId"`
	Category      string `json:"category"`
}

// HubSpotAccount is the part of GET /account-info/v3/details the probe reads.
type HubSpotAccount struct {
	PortalID    int64  `json:"portalId"`
	AccountType string `json:"accountType"`
	UIDomain    string `json:"uiDomain"`
}

// probeHubSpot reads the account's details, which every valid token may:
// GET /account-info/v3/details with the token as a bearer.
func probeHubSpot(ctx context.Context, creds Credentials, hc *http.Client, baseURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(baseURL, "/")+"/account-info/v3/details", nil)
	if err != nil {
		return fmt.Errorf("HubSpot: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+creds["access_token"])
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("HubSpot did not answer: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("HubSpot: reading its answer: %w", err)
	}
	if resp.StatusCode == http.StatusOK {
		var acct HubSpotAccount
		if err := json.Unmarshal(body, &acct); err != nil || acct.PortalID == 0 {
			return fmt.Errorf("HubSpot answered 200 without account details (is TRAWL_HUBSPOT_API_URL HubSpot's API?)")
		}
		return nil
	}
	var e hubSpotError
	_ = json.Unmarshal(body, &e)
	// said is what HubSpot said, after the status: " CATEGORY: message".
	said := ""
	if e.Category != "" {
		said = " " + e.Category
	}
	if e.Message != "" {
		said += ": " + e.Message
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("HubSpot: %w (401%s)", ErrRejected, said)
	case http.StatusForbidden:
		return fmt.Errorf("HubSpot: the token lacks a scope this needs (403%s)", said)
	case http.StatusTooManyRequests:
		return fmt.Errorf("HubSpot: rate limited (429%s)", said)
	default:
		return fmt.Errorf("HubSpot answered %d%s", resp.StatusCode, said)
	}
}
