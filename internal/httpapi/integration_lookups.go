package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/integration"
)

// Lookups answer the questions a workflow's author asks while building
// it (a CRM's fields, a base's tables, a Slack channel's id) from the live
// service, through the account's connection. Each route names its type
// (or takes {type}) and its lookup; internal/integration answers.

// lookupInput is the input of one lookup route: the type it asks (""
// for the route's fixed type) and its parameters.
type lookupInput interface {
	lookupType() string
	lookupParams() url.Values
}

// lookup makes the handler of the lookup name of type fixedType (or of
// the {type} path parameter when fixedType is "").
func lookup[I any, P interface {
	*I
	lookupInput
}](s *Server, fixedType, name string) func(context.Context, *I) (*Reply[json.RawMessage], error) {
	return func(ctx context.Context, in *I) (*Reply[json.RawMessage], error) {
		p := P(in)
		typ := fixedType
		if typ == "" {
			typ = p.lookupType()
		}
		t, err := integrationType(typ)
		if err != nil {
			return nil, err
		}
		run, ok := t.Lookups[name]
		if !ok {
			return nil, NewAPIError(http.StatusNotFound, CodeNotFound,
				fmt.Sprintf("%s has no %s lookup; the types that have one are %s.", t.DisplayName, name, strings.Join(typesWithLookup(name), ", ")))
		}
		acct := principalFrom(ctx).Account.ID
		conn, err := s.connector.Open(ctx, acct, t.Name)
		if errors.Is(err, integration.ErrNotConnected) {
			return nil, NewAPIError(http.StatusNotFound, CodeNotFound, t.DisplayName+" is not connected.").
				WithSuggestion("Connect it first: POST /v1/integrations/" + t.Name + ".")
		}
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		out, err := run(ctx, conn, p.lookupParams())
		if err != nil {
			return nil, s.lookupFailure(ctx, err)
		}
		// The services' shapes differ by lookup: the answer is JSON as
		// the lookup made it (the hosted API leaves them untyped too).
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, s.fail(ctx, fmt.Errorf("lookup %s %s: %w", t.Name, name, err))
		}
		return reply(t.DisplayName+" "+name, json.RawMessage(raw)), nil
	}
}

// typesWithLookup names the types that answer a lookup.
func typesWithLookup(name string) []string {
	var out []string
	for _, t := range integration.Types() {
		if _, ok := t.Lookups[name]; ok {
			out = append(out, t.Name)
		}
	}
	if len(out) == 0 {
		return []string{"none yet"}
	}
	return out
}

// lookupFailure maps a lookup's failure: a bad parameter is the caller's
// 400, a credential the service refuses or any other refusal a 502 that
// says what the service said, its rate limit a 429 with its wait.
func (s *Server) lookupFailure(ctx context.Context, err error) error {
	var (
		pe *integration.ParamError
		se *integration.Error
	)
	switch {
	case errors.As(err, &pe):
		return validationError(Detail{Field: "query." + pe.Param, Message: pe.Message})
	case errors.As(err, &se) && se.Status == http.StatusNotFound:
		return NewAPIError(http.StatusNotFound, CodeNotFound, se.Error()+".")
	case errors.As(err, &se) && se.Status == http.StatusTooManyRequests:
		e := NewAPIError(http.StatusTooManyRequests, CodeRateLimited, se.Error()+".")
		if secs := int64(se.RetryAfter.Seconds()); secs > 0 {
			e = e.RetryAfter(secs)
		}
		return e
	case errors.As(err, &se):
		return NewAPIError(http.StatusBadGateway, CodeUpstream, se.Error()+".").
			WithSuggestion("GET /v1/integrations/" + strings.ToLower(strings.ReplaceAll(se.Service, " ", "_")) + "/health probes the connection.")
	}
	return s.fail(ctx, err)
}

// lookupErrors are the answers a lookup may give beyond every route's.
func lookupErrors() func(*huma.Operation) {
	return alsoErrors(http.StatusNotFound, http.StatusBadGateway)
}

// Inputs of the lookup routes: one per set of parameters.

type lookupByType struct {
	Type string `path:"type" doc:"The connection type."`
}

func (in *lookupByType) lookupType() string       { return in.Type }
func (in *lookupByType) lookupParams() url.Values { return url.Values{} }

type crmFieldOptionsInput struct {
	Type       string `path:"type" doc:"The CRM's connection type (hubspot, salesforce, pipedrive, attio)."`
	ObjectType string `query:"object_type" required:"true" enum:"contacts,companies" doc:"The CRM object the field belongs to."`
	FieldSlug  string `query:"field_slug" required:"true" maxLength:"200" doc:"The field's name (its API name in the CRM)."`
}

func (in *crmFieldOptionsInput) lookupType() string { return in.Type }
func (in *crmFieldOptionsInput) lookupParams() url.Values {
	return url.Values{"object_type": {in.ObjectType}, "field_slug": {in.FieldSlug}}
}

type slackChannelsInput struct {
	Search     string `query:"search" maxLength:"200" doc:"Only channels whose name contains this (case-insensitive)."`
	MemberOnly bool   `query:"member_only" doc:"Only channels the bot is a member of (it can post there)."`
}

func (in *slackChannelsInput) lookupType() string { return "" }
func (in *slackChannelsInput) lookupParams() url.Values {
	return url.Values{"search": {in.Search}, "member_only": {strconv.FormatBool(in.MemberOnly)}}
}

type lookupSearchInput struct {
	Search string `query:"search" maxLength:"200" doc:"Only entries whose name or email contains this (case-insensitive)."`
}

func (in *lookupSearchInput) lookupType() string       { return "" }
func (in *lookupSearchInput) lookupParams() url.Values { return url.Values{"search": {in.Search}} }

type linearUsersInput struct {
	TeamID string `query:"team_id" maxLength:"100" doc:"Only members of this team."`
	Search string `query:"search" maxLength:"200" doc:"Only users whose name or email contains this (case-insensitive)."`
}

func (in *linearUsersInput) lookupType() string { return "" }
func (in *linearUsersInput) lookupParams() url.Values {
	return url.Values{"team_id": {in.TeamID}, "search": {in.Search}}
}

type linearStatesInput struct {
	TeamID string `query:"team_id" required:"true" maxLength:"100" doc:"The team whose workflow states are listed."`
}

func (in *linearStatesInput) lookupType() string       { return "" }
func (in *linearStatesInput) lookupParams() url.Values { return url.Values{"team_id": {in.TeamID}} }

type notionDatabasesInput struct {
	Query    string `query:"query" maxLength:"200" doc:"Only databases whose title contains this."`
	PageSize int    `query:"page_size" minimum:"1" maximum:"100" default:"50" doc:"Most databases in one answer."`
	Cursor   string `query:"cursor" maxLength:"200" doc:"next_cursor of the previous answer."`
}

func (in *notionDatabasesInput) lookupType() string { return "" }
func (in *notionDatabasesInput) lookupParams() url.Values {
	return url.Values{"query": {in.Query}, "page_size": {strconv.Itoa(in.PageSize)}, "cursor": {in.Cursor}}
}

type notionSchemaInput struct {
	DatabaseID string `path:"database_id" maxLength:"100" doc:"The Notion database's id."`
}

func (in *notionSchemaInput) lookupType() string { return "" }
func (in *notionSchemaInput) lookupParams() url.Values {
	return url.Values{"database_id": {in.DatabaseID}}
}

type noParams struct{}

func (in *noParams) lookupType() string       { return "" }
func (in *noParams) lookupParams() url.Values { return url.Values{} }

type airtableTablesInput struct {
	BaseID string `path:"base_id" maxLength:"100" doc:"The Airtable base's id (app…)."`
}

func (in *airtableTablesInput) lookupType() string       { return "" }
func (in *airtableTablesInput) lookupParams() url.Values { return url.Values{"base_id": {in.BaseID}} }

type airtableFieldsInput struct {
	BaseID  string `query:"base_id" required:"true" maxLength:"100" doc:"The Airtable base's id (app…)."`
	TableID string `query:"table_id" required:"true" maxLength:"100" doc:"The table's id (tbl…) or name."`
}

func (in *airtableFieldsInput) lookupType() string { return "" }
func (in *airtableFieldsInput) lookupParams() url.Values {
	return url.Values{"base_id": {in.BaseID}, "table_id": {in.TableID}}
}

type sheetsOfDocumentInput struct {
	DocumentID string `path:"document_id" maxLength:"200" doc:"The spreadsheet's id (from its URL)."`
}

func (in *sheetsOfDocumentInput) lookupType() string { return "" }
func (in *sheetsOfDocumentInput) lookupParams() url.Values {
	return url.Values{"document_id": {in.DocumentID}}
}

type sheetColumnsInput struct {
	DocumentID string `query:"document_id" required:"true" maxLength:"200" doc:"The spreadsheet's id (from its URL)."`
	SheetID    string `query:"sheet_id" required:"true" maxLength:"200" doc:"The sheet's id (gid) or title."`
}

func (in *sheetColumnsInput) lookupType() string { return "" }
func (in *sheetColumnsInput) lookupParams() url.Values {
	return url.Values{"document_id": {in.DocumentID}, "sheet_id": {in.SheetID}}
}
