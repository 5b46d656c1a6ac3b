package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// Lemlist connects with an API key, sent as the password of HTTP Basic
// auth with an empty user (docs/integrations/outreach.md).
var Lemlist = &Type{
	Name:        "lemlist",
	DisplayName: "lemlist",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "the API key of a lemlist team (Settings → Integrations → API)",
		Required: true,
		MaxLen:   256,
	}},
	DefaultURL:   "https://api.lemlist.com/api",
	Probe:        probeLemlist,
	Authorize:    BasicPasswordAuth("api_key"),
	ErrorMessage: outreachErrorMessage,
	Lookups:      map[string]LookupFunc{"campaigns": lemlistCampaigns},
}

func init() { Register(Lemlist) }

// LemlistTeam is the part of GET /team the probe reads.
type LemlistTeam struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
}

// probeLemlist reads the key's team: GET /team.
func probeLemlist(ctx context.Context, c *Conn) error {
	var team LemlistTeam
	if err := c.Do(ctx, Request{Path: "/team"}, &team); err != nil {
		return err
	}
	if team.ID == "" {
		return errors.New("lemlist answered 200 without a team (is its URL lemlist's API?)")
	}
	return nil
}

// LemlistCampaign is a GET /campaigns item.
type LemlistCampaign struct {
	ID     string `json:"_id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// ParseLemlistCampaigns reads a GET /campaigns answer: the documented
// array, or the paged object ({campaigns: [...]}) of its version=v2.
func ParseLemlistCampaigns(body []byte) ([]LemlistCampaign, error) {
	var arr []LemlistCampaign
	if err := json.Unmarshal(body, &arr); err == nil {
		return arr, nil
	}
	var obj struct {
		Campaigns []LemlistCampaign `json:"campaigns"`
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("lemlist campaigns: %w", err)
	}
	return obj.Campaigns, nil
}

// lemlistCampaigns answers the campaigns lookup, paging by offset and
// limit (100, lemlist's maximum) until a short page.
func lemlistCampaigns(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	const limit = 100
	out := []Campaign{}
	for page := range maxCampaignPages {
		var raw json.RawMessage
		q := url.Values{"offset": {strconv.Itoa(page * limit)}, "limit": {strconv.Itoa(limit)}}
		if err := c.Do(ctx, Request{Path: "/campaigns", Query: q}, &raw); err != nil {
			return nil, fmt.Errorf("listing lemlist campaigns: %w", err)
		}
		items, err := ParseLemlistCampaigns(raw)
		if err != nil {
			return nil, &Error{Service: "lemlist", Status: 502, Message: err.Error()}
		}
		for _, it := range items {
			out = append(out, Campaign{ID: it.ID, Name: it.Name, Status: it.Status})
		}
		if len(items) < limit {
			break
		}
	}
	return out, nil
}
