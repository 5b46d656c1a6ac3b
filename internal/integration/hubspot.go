package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	DefaultURL:   "https://api.hubapi.com",
	Probe:        probeHubSpot,
	Authorize:    BearerAuth("access_token"),
	ErrorMessage: hubSpotErrorMessage,
	Lookups:      hubSpotLookups(),
}

func init() { Register(HubSpot) }

// BearerAuth sends the credential field as a bearer token.
func BearerAuth(field string) func(ctx context.Context, c *Conn, req *http.Request) error {
	return func(_ context.Context, c *Conn, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+c.Creds[field])
		return nil
	}
}

// hubSpotError is HubSpot's error body; every field may be missing.
type hubSpotError struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId"`
	Category      string `json:"category"`
}

// hubSpotErrorMessage is "CATEGORY: message" of HubSpot's error body.
func hubSpotErrorMessage(body []byte) string {
	var e hubSpotError
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	switch {
	case e.Category != "" && e.Message != "":
		return e.Category + ": " + e.Message
	case e.Category != "":
		return e.Category
	}
	return e.Message
}

// HubSpotAccount is the part of GET /account-info/v3/details the probe reads.
type HubSpotAccount struct {
	PortalID    int64  `json:"portalId"`
	AccountType string `json:"accountType"`
	UIDomain    string `json:"uiDomain"`
}

// probeHubSpot reads the account's details, which every valid token may:
// GET /account-info/v3/details.
func probeHubSpot(ctx context.Context, c *Conn) error {
	var acct HubSpotAccount
	err := c.Do(ctx, Request{Path: "/account-info/v3/details"}, &acct)
	var e *Error
	switch {
	case errors.As(err, &e) && e.Status == http.StatusForbidden:
		return fmt.Errorf("HubSpot: the token lacks a scope this needs (403 %s)", e.Message)
	case err != nil:
		return err
	case acct.PortalID == 0:
		return fmt.Errorf("HubSpot answered 200 without account details (is its URL HubSpot's API?)")
	}
	return nil
}
