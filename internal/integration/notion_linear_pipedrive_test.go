package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// sandboxConn is a connection of type t with creds to the sandbox's service.
func sandboxConn(t *testing.T, typ *integration.Type, creds integration.Credentials) *integration.Conn {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{typ.Name: srv.URL + "/" + typ.Name},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return k.Conn(typ, creds, "")
}

func TestNotionLinearPipedriveRegistered(t *testing.T) {
	for name, fields := range map[string][]string{"notion": {"token"}, "linear": {"api_key"}, "pipedrive": {"api_token", "company_domain"}} {
		typ, ok := integration.Lookup(name)
		if !ok || !slices.Equal(typ.FieldNames(), fields) || !typ.Fields[0].Required || typ.Source != integration.SourceAPIKey {
			t.Fatalf("%s: %+v, %v", name, typ, ok)
		}
	}
	if fe := integration.Pipedrive.Validate(integration.Credentials{"api_token": "x"}); len(fe) != 0 {
		t.Fatalf("company_domain is optional: %v", fe)
	}
	if fe := integration.Linear.Validate(integration.Credentials{"token": "x"}); len(fe) != 2 {
		t.Fatalf("linear with a notion field: %v", fe)
	}
}

func TestPipedriveCredentialURL(t *testing.T) {
	k := &integration.Connector{}
	for in, want := range map[string]string{
		"":                            "https://api.pipedrive.com",
		"acme":                        "https://acme.pipedrive.com",
		"https://Acme.pipedrive.com/": "https://acme.pipedrive.com",
		"evil.com/x":                  "https://api.pipedrive.com",
		"a.b":                         "https://api.pipedrive.com",
	} {
		if got := k.URL(integration.Pipedrive, integration.Credentials{"company_domain": in}); got != want {
			t.Errorf("company_domain %q: %s, want %s", in, got, want)
		}
	}
}

func TestNotionLinearPipedriveProbes(t *testing.T) {
	for _, tc := range []struct {
		typ   *integration.Type
		field string
	}{{integration.Notion, "token"}, {integration.Linear, "api_key"}, {integration.Pipedrive, "api_token"}} {
		t.Run(tc.typ.Name, func(t *testing.T) {
			probe := func(v string) error {
				return tc.typ.Probe(t.Context(), sandboxConn(t, tc.typ, integration.Credentials{tc.field: v}))
			}
			if err := probe("good-key-1"); err != nil {
				t.Fatalf("good: %v", err)
			}
			if err := probe("invalid-key"); !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "401") {
				t.Fatalf("invalid: %v", err)
			}
			var e *integration.Error
			if err := probe("ratelimited-key"); !errors.As(err, &e) || e.Status != 429 || !e.Retryable() {
				t.Fatalf("ratelimited: %v", err)
			}
		})
	}
}

func lookupJSON(t *testing.T, typ *integration.Type, c *integration.Conn, name string, p url.Values) map[string]any {
	t.Helper()
	out, err := typ.Lookups[name](t.Context(), c, p)
	if err != nil {
		t.Fatalf("%s %s: %v", typ.Name, name, err)
	}
	raw, _ := json.Marshal(out)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNotionLookupsAgainstSandbox(t *testing.T) {
	c := sandboxConn(t, integration.Notion, integration.Credentials{"token": "ntn_one"})
	dbs := lookupJSON(t, integration.Notion, c, "databases", url.Values{"page_size": {"1"}})
	list, _ := dbs["databases"].([]any)
	if len(list) != 1 || dbs["has_more"] != true || dbs["next_cursor"] == nil {
		t.Fatalf("databases page 1 = %v", dbs)
	}
	first := list[0].(map[string]any)
	next := lookupJSON(t, integration.Notion, c, "databases", url.Values{"page_size": {"1"}, "cursor": {dbs["next_cursor"].(string)}})
	if l, _ := next["databases"].([]any); len(l) != 1 || next["has_more"] != false || l[0].(map[string]any)["id"] == first["id"] {
		t.Fatalf("databases page 2 = %v", next)
	}
	schema := lookupJSON(t, integration.Notion, c, "schema", url.Values{"database_id": {first["id"].(string)}})
	props, _ := schema["properties"].([]any)
	if schema["title"] != first["title"] || len(props) == 0 {
		t.Fatalf("schema = %v", schema)
	}
	if _, err := integration.Notion.Lookups["schema"](t.Context(), c, url.Values{"database_id": {"nope"}}); !errors.As(err, new(*integration.ParamError)) {
		t.Fatalf("bad id: %v", err)
	}
	var e *integration.Error
	if _, err := integration.Notion.Lookups["schema"](t.Context(), c, url.Values{"database_id": {"00000000-0000-4000-8000-000000000000"}}); !errors.As(err, &e) || e.Status != 404 || !strings.Contains(e.Message, "object_not_found") {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestLinearLookupsAgainstSandbox(t *testing.T) {
	c := sandboxConn(t, integration.Linear, integration.Credentials{"api_key": "lin_api_one"})
	teams := lookupJSON(t, integration.Linear, c, "teams", nil)["teams"].([]any)
	if len(teams) != 2 || teams[0].(map[string]any)["key"] != "ENG" {
		t.Fatalf("teams = %v", teams)
	}
	ops := teams[1].(map[string]any)["id"].(string)
	if u := lookupJSON(t, integration.Linear, c, "users", url.Values{"team_id": {ops}})["users"].([]any); len(u) != 2 {
		t.Fatalf("OPS users = %v", u)
	}
	if u := lookupJSON(t, integration.Linear, c, "users", url.Values{"search": {"GRACE"}})["users"].([]any); len(u) != 1 {
		t.Fatalf("users matching grace = %v", u)
	}
	if s := lookupJSON(t, integration.Linear, c, "states", url.Values{"team_id": {ops}})["states"].([]any); len(s) != 5 {
		t.Fatalf("states = %v", s)
	}
	if _, err := integration.Linear.Lookups["states"](t.Context(), c, url.Values{}); !errors.As(err, new(*integration.ParamError)) {
		t.Fatalf("states without team: %v", err)
	}
	var e *integration.Error
	if _, err := integration.Linear.Lookups["states"](t.Context(), c, url.Values{"team_id": {"missing-team"}}); !errors.As(err, &e) || e.Status != 404 {
		t.Fatalf("unknown team: %v", err)
	}
}

func TestPipedriveLookupsAgainstSandbox(t *testing.T) {
	c := sandboxConn(t, integration.Pipedrive, integration.Credentials{"api_token": "tok-one"})
	fields := lookupJSON(t, integration.Pipedrive, c, "crm-fields", nil)
	contacts, _ := fields["contacts"].([]any)
	companies, _ := fields["companies"].([]any)
	if len(contacts) < 5 || len(companies) < 3 {
		t.Fatalf("crm-fields = %v", fields)
	}
	var enum string
	for _, f := range contacts {
		if m := f.(map[string]any); m["type"] == "enum" {
			enum = m["slug"].(string)
		}
	}
	opts := lookupJSON(t, integration.Pipedrive, c, "crm-field-options", url.Values{"object_type": {"contacts"}, "field_slug": {enum}})
	if o, _ := opts["options"].([]any); len(o) != 3 {
		t.Fatalf("options = %v", opts)
	}
	for _, p := range []url.Values{
		{"object_type": {"deals"}, "field_slug": {"x"}},
		{"object_type": {"contacts"}, "field_slug": {"name"}},
		{"object_type": {"contacts"}, "field_slug": {"nope"}},
	} {
		if _, err := integration.Pipedrive.Lookups["crm-field-options"](t.Context(), c, p); !errors.As(err, new(*integration.ParamError)) {
			t.Fatalf("%v: %v", p, err)
		}
	}
}
