package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// NotionVersion is the API version every request names (Notion-Version).
const NotionVersion = "2022-06-28"

// Notion connects with an internal integration's secret
// (docs/integrations/notion-linear-pipedrive.md).
var Notion = &Type{
	Name:        "notion",
	DisplayName: "Notion",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "token",
		Doc:      "the internal integration secret (secret_… or ntn_…) of a Notion integration (Settings → Connections → Develop or manage integrations); share the databases with it",
		Required: true,
		MaxLen:   512,
	}},
	DefaultURL:   "https://api.notion.com",
	Probe:        probeNotion,
	Authorize:    notionAuth,
	ErrorMessage: NotionErrorMessage,
	Lookups: map[string]LookupFunc{
		"databases": notionDatabases,
		"schema":    notionSchema,
	},
}

func init() { Register(Notion) }

// notionAuth sends the secret as a bearer and pins the API version, which
// Notion requires on every request.
func notionAuth(_ context.Context, c *Conn, req *http.Request) error {
	req.Header.Set("Authorization", "Bearer "+c.Creds["token"])
	req.Header.Set("Notion-Version", NotionVersion)
	return nil
}

// NotionErrorMessage is "code: message" of Notion's error body
// ({"object":"error","status","code","message"}).
func NotionErrorMessage(body []byte) string {
	var e struct {
		Object  string `json:"object"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	switch {
	case e.Code != "" && e.Message != "":
		return e.Code + ": " + e.Message
	case e.Code != "":
		return e.Code
	}
	return e.Message
}

// probeNotion reads the integration's bot user: GET /v1/users/me.
func probeNotion(ctx context.Context, c *Conn) error {
	var me struct {
		Object string `json:"object"`
		ID     string `json:"id"`
	}
	if err := c.Do(ctx, Request{Path: "/v1/users/me"}, &me); err != nil {
		return err
	}
	if me.Object != "user" || me.ID == "" {
		return fmt.Errorf("Notion answered 200 without a user (is its URL Notion's API?)")
	}
	return nil
}

// NotionRichText is the part of a rich text object Trawl reads.
type NotionRichText struct {
	PlainText string `json:"plain_text"`
}

// NotionOption is a select or multi-select option.
type NotionOption struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// NotionProperty is one property of a database's schema.
type NotionProperty struct {
	ID          string                            `json:"id"`
	Name        string                            `json:"name"`
	Type        string                            `json:"type"`
	Select      *struct{ Options []NotionOption } `json:"select,omitempty"`
	MultiSelect *struct{ Options []NotionOption } `json:"multi_select,omitempty"`
	Status      *struct{ Options []NotionOption } `json:"status,omitempty"`
}

// Options are the property's choices (select, multi_select, status).
func (p NotionProperty) Options() []NotionOption {
	for _, o := range []*struct{ Options []NotionOption }{p.Select, p.MultiSelect, p.Status} {
		if o != nil {
			return o.Options
		}
	}
	return nil
}

// NotionDatabase is the part of a database object Trawl reads.
type NotionDatabase struct {
	Object     string                    `json:"object"`
	ID         string                    `json:"id"`
	URL        string                    `json:"url"`
	Title      []NotionRichText          `json:"title"`
	Properties map[string]NotionProperty `json:"properties"`
}

// TitleText is the database's title in plain text.
func (d NotionDatabase) TitleText() string { return plainText(d.Title) }

func plainText(rt []NotionRichText) string {
	var b strings.Builder
	for _, t := range rt {
		b.WriteString(t.PlainText)
	}
	return b.String()
}

var notionIDRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// NotionID tells whether s is a Notion id (a UUID, dashes optional).
func NotionID(s string) bool { return notionIDRE.MatchString(s) }

// NotionGetDatabase reads a database's schema: GET /v1/databases/{id}.
func NotionGetDatabase(ctx context.Context, c *Conn, id string) (*NotionDatabase, error) {
	var db NotionDatabase
	if err := c.Do(ctx, Request{Path: "/v1/databases/" + url.PathEscape(id)}, &db); err != nil {
		return nil, err
	}
	return &db, nil
}

// notionDatabases lists the databases shared with the integration:
// POST /v1/search filtered to databases.
func notionDatabases(ctx context.Context, c *Conn, p url.Values) (any, error) {
	size := 50
	if s := p.Get("page_size"); s != "" && s != "0" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return nil, &ParamError{"page_size", "must be a number from 1 to 100"}
		}
		size = n
	}
	body := map[string]any{"filter": map[string]any{"property": "object", "value": "database"}, "page_size": size}
	if q := p.Get("query"); q != "" {
		body["query"] = q
	}
	if cur := p.Get("cursor"); cur != "" {
		body["start_cursor"] = cur
	}
	var res struct {
		Results    []NotionDatabase `json:"results"`
		HasMore    bool             `json:"has_more"`
		NextCursor *string          `json:"next_cursor"`
	}
	if err := c.Do(ctx, Request{Method: http.MethodPost, Path: "/v1/search", Body: body}, &res); err != nil {
		return nil, err
	}
	type db struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	out := make([]db, 0, len(res.Results))
	for _, d := range res.Results {
		out = append(out, db{d.ID, d.TitleText(), d.URL})
	}
	return map[string]any{"databases": out, "has_more": res.HasMore, "next_cursor": res.NextCursor}, nil
}

// notionSchema answers a database's properties, by name.
func notionSchema(ctx context.Context, c *Conn, p url.Values) (any, error) {
	id := p.Get("database_id")
	if !NotionID(id) {
		return nil, &ParamError{"database_id", "must be a Notion database id (a UUID, dashes optional)"}
	}
	db, err := NotionGetDatabase(ctx, c, id)
	if err != nil {
		return nil, err
	}
	type prop struct {
		Name    string   `json:"name"`
		Type    string   `json:"type"`
		Options []string `json:"options,omitempty"`
	}
	props := make([]prop, 0, len(db.Properties))
	for name, pr := range db.Properties {
		var opts []string
		for _, o := range pr.Options() {
			opts = append(opts, o.Name)
		}
		props = append(props, prop{name, pr.Type, opts})
	}
	slices.SortFunc(props, func(a, b prop) int { return strings.Compare(a.Name, b.Name) })
	return map[string]any{"id": db.ID, "title": db.TitleText(), "properties": props}, nil
}
