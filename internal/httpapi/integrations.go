package httpapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/store"
)

// maxIntegrationName bounds a connection's name, in characters.
const maxIntegrationName = 100

// integrationType resolves the {type} path parameter; an unknown type is
// a 404 naming the known ones.
func integrationType(name string) (*integration.Type, error) {
	t, ok := integration.Lookup(strings.ReplaceAll(strings.ToLower(name), "-", "_"))
	if !ok {
		return nil, NewAPIError(http.StatusNotFound, CodeNotFound,
			fmt.Sprintf("No integration type %q: the known types are %s.", name, strings.Join(integration.Names(), ", "))).
			WithSuggestion("Use one of the types GET /v1/integrations lists.")
	}
	return t, nil
}

// integrationOut is a connection: never its credentials.
type integrationOut struct {
	Type      string `json:"type" doc:"The connection type (hubspot)."`
	Name      string `json:"name" doc:"The connection's name; the service's name unless one was given."`
	Source    string `json:"source" doc:"How the credential was obtained: api_key for a pasted key or token."`
	Connected bool   `json:"connected"`
	Created   string `json:"created"`
	Updated   string `json:"updated"`
}

type putIntegrationInput struct {
	Type string `path:"type" doc:"The connection type (hubspot)."`
	Body struct {
		Credentials map[string]string `json:"credentials,omitempty" doc:"The type's credential fields; hubspot: {access_token: a private app's access token}. Never shown again."`
		Name        string            `json:"name,omitempty" doc:"A name for the connection (at most 100 characters); the service's name when absent."`
	}
	typ *integration.Type
}

func (in *putIntegrationInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *putIntegrationInput) check(_ huma.Context, _ *Server, p *problems) error {
	t, err := integrationType(in.Type)
	if err != nil {
		return err
	}
	in.typ = t
	// Messages name the field, never its value.
	for _, fe := range t.Validate(in.Body.Credentials) {
		p.add("body.credentials."+fe.Field, "%s", fe.Message)
	}
	if n := utf8.RuneCountInString(in.Body.Name); n > maxIntegrationName {
		p.add("body.name", "must be at most %d characters", maxIntegrationName)
	}
	if strings.ContainsFunc(in.Body.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		p.add("body.name", "must not contain control characters")
	}
	return nil
}

func (s *Server) handlePutIntegration(ctx context.Context, in *putIntegrationInput) (*createdReply[integrationOut], error) {
	acct := principalFrom(ctx).Account.ID
	t := in.typ
	sealed, err := integration.Seal(s.secrets, in.Body.Credentials, acct, t.Name)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	name := cmp.Or(strings.TrimSpace(in.Body.Name), t.DisplayName)
	c, created, err := s.store.PutIntegration(ctx, acct, t.Name, name, t.Source, sealed)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := createdWith(t.DisplayName+" connected", integrationOut{Type: c.Type, Name: c.Name, Source: c.Source, Connected: true,
		Created: formatTime(c.CreatedAt), Updated: formatTime(c.UpdatedAt)})
	if !created {
		out.Body.Message = t.DisplayName + " connection replaced"
		out.Status = http.StatusOK
	}
	return out, nil
}

// integrationListed is one known type in the list: connected or not.
type integrationListed struct {
	Type      string  `json:"type"`
	Name      string  `json:"name" doc:"The connection's name, or the service's when not connected."`
	Source    *string `json:"source" doc:"How the credential was obtained (api_key); null when not connected."`
	Connected bool    `json:"connected"`
}

func (s *Server) handleListIntegrations(ctx context.Context, _ *struct{}) (*Reply[[]integrationListed], error) {
	conns, err := s.store.ListIntegrations(ctx, principalFrom(ctx).Account.ID)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	byType := make(map[string]store.Integration, len(conns))
	for _, c := range conns {
		byType[c.Type] = c
	}
	types := integration.Types()
	out := make([]integrationListed, 0, len(types))
	for _, t := range types {
		item := integrationListed{Type: t.Name, Name: t.DisplayName}
		if c, ok := byType[t.Name]; ok {
			item.Name, item.Source, item.Connected = c.Name, &c.Source, true
		}
		out = append(out, item)
	}
	return reply("Integrations", out), nil
}

type integrationTypeInput struct {
	Type string `path:"type" doc:"The connection type (hubspot)."`
	typ  *integration.Type
}

func (in *integrationTypeInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *integrationTypeInput) check(_ huma.Context, _ *Server, _ *problems) error {
	t, err := integrationType(in.Type)
	in.typ = t
	return err
}

// Health statuses.
const (
	healthOK           = "ok"
	healthError        = "error"
	healthNotConnected = "not_connected"
)

type integrationHealth struct {
	Type   string `json:"type"`
	Status string `json:"status" enum:"ok,error,not_connected" doc:"ok: the service accepted the credential just now; error: it did not (see error); not_connected: the account has no connection of this type."`
	Error  string `json:"error,omitempty" doc:"Why the probe failed, as the service said it."`
}

func (s *Server) handleIntegrationHealth(ctx context.Context, in *integrationTypeInput) (*Reply[integrationHealth], error) {
	acct := principalFrom(ctx).Account.ID
	t := in.typ
	_, sealed, err := s.store.IntegrationCredentials(ctx, acct, t.Name)
	if errors.Is(err, store.ErrNotFound) {
		return reply(t.DisplayName+" is not connected", integrationHealth{Type: t.Name, Status: healthNotConnected}), nil
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	creds, err := integration.Open(s.secrets, sealed, acct, t.Name)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	if err := t.Probe(ctx, s.connector.Conn(t, creds, acct)); err != nil {
		return reply(t.DisplayName+" connection fails", integrationHealth{Type: t.Name, Status: healthError, Error: err.Error()}), nil
	}
	return reply(t.DisplayName+" connection works", integrationHealth{Type: t.Name, Status: healthOK}), nil
}

type integrationDeleted struct {
	Type    string `json:"type"`
	Deleted bool   `json:"deleted"`
}

func (s *Server) handleDeleteIntegration(ctx context.Context, in *integrationTypeInput) (*Reply[integrationDeleted], error) {
	t := in.typ
	err := s.store.DeleteIntegration(ctx, principalFrom(ctx).Account.ID, t.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NewAPIError(http.StatusNotFound, CodeNotFound, t.DisplayName+" is not connected.")
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply(t.DisplayName+" disconnected", integrationDeleted{Type: t.Name, Deleted: true}), nil
}
