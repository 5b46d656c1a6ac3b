package integration_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/secret"
)

func TestRegistryKnowsHubSpot(t *testing.T) {
	h, ok := integration.Lookup("hubspot")
	if !ok || h != integration.HubSpot || h.DisplayName != "HubSpot" || h.Source != integration.SourceAPIKey {
		t.Fatalf("Lookup(hubspot) = %+v, %v", h, ok)
	}
	if !slices.Equal(h.FieldNames(), []string{"access_token"}) || !h.Fields[0].Required {
		t.Fatalf("hubspot fields = %+v", h.Fields)
	}
	if !slices.Contains(integration.Names(), "hubspot") {
		t.Fatalf("Names() = %v", integration.Names())
	}
	if _, ok := integration.Lookup("nope"); ok {
		t.Fatal("Lookup(nope) found a type")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering hubspot twice did not panic")
		}
	}()
	integration.Register(&integration.Type{Name: "hubspot", DisplayName: "x", Source: "api_key",
		Fields: []integration.Field{{Name: "k"}}, Probe: func(context.Context, *integration.Conn) error { return nil }})
}

func TestHubSpotValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		creds integration.Credentials
		want  []string // fields with problems
	}{
		{"ok", integration.Credentials{"access_token": "pat-na1-123"}, nil},
		{"nil", nil, []string{"access_token"}},
		{"blank", integration.Credentials{"access_token": "  "}, []string{"access_token"}},
		{"too long", integration.Credentials{"access_token": strings.Repeat("x", 1025)}, []string{"access_token"}},
		{"line break", integration.Credentials{"access_token": "pat\nx"}, []string{"access_token"}},
		{"unknown field", integration.Credentials{"access_token": "pat", "api_key": "k"}, []string{"api_key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, fe := range integration.HubSpot.Validate(tc.creds) {
				got = append(got, fe.Field)
				if fe.Message == "" || strings.Contains(fe.Message, "pat") {
					t.Errorf("message %q is empty or echoes the value", fe.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("problems in %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSealBindsAccountAndType(t *testing.T) {
	box, err := secret.NewBox(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := integration.Seal(box, integration.Credentials{"access_token": "pat-secret"}, "acct-1", "hubspot")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "pat-secret") {
		t.Fatal("sealed credentials hold the token in clear")
	}
	c, err := integration.Open(box, sealed, "acct-1", "hubspot")
	if err != nil || c["access_token"] != "pat-secret" {
		t.Fatalf("Open = %v, %v", c, err)
	}
	if _, err := integration.Open(box, sealed, "acct-2", "hubspot"); !errors.Is(err, secret.ErrCorrupt) {
		t.Fatalf("opened under another account: %v", err)
	}
}

func TestHubSpotProbeAgainstSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	probeAt := func(base, token string) error {
		k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"hubspot": base},
			Sleep: func(context.Context, time.Duration) error { return nil }}
		return integration.HubSpot.Probe(t.Context(), k.Conn(integration.HubSpot, integration.Credentials{"access_token": token}, ""))
	}
	probe := func(token string) error { return probeAt(srv.URL+"/hubspot", token) }
	if err := probe("pat-na1-good"); err != nil {
		t.Fatalf("good token: %v", err)
	}
	err := probe("invalid-token")
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "token rejected") ||
		!strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "INVALID_AUTHENTICATION") {
		t.Fatalf("invalid token: %v", err)
	}
	if err := probe(""); !errors.Is(err, integration.ErrRejected) {
		t.Fatalf("missing token: %v", err)
	}
	// Not HubSpot at that URL: a named failure, not a rejection.
	err = probeAt(srv.URL+"/nothing", "pat")
	if err == nil || errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("wrong URL: %v", err)
	}
	// Unreachable.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if err := probeAt(dead.URL, "pat"); err == nil ||
		!strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("unreachable: %v", err)
	}
}
