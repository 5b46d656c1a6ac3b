package integration_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// outreachTypes are the outreach tools' connection types.
var outreachTypes = []*integration.Type{integration.Smartlead, integration.Instantly, integration.Lemlist, integration.HeyReach}

func TestOutreachTypesRegistered(t *testing.T) {
	for _, typ := range outreachTypes {
		got, ok := integration.Lookup(typ.Name)
		if !ok || got != typ || typ.Lookups["campaigns"] == nil || typ.DefaultURL == "" || !strings.HasPrefix(typ.DefaultURL, "https://") {
			t.Fatalf("%s: Lookup = %+v, %v", typ.Name, got, ok)
		}
		if p := typ.Validate(integration.Credentials{"api_key": "k-123"}); len(p) != 0 {
			t.Fatalf("%s: a key is invalid: %+v", typ.Name, p)
		}
		for _, bad := range []integration.Credentials{nil, {"api_key": " "}, {"api_key": "a\nb"}, {"api_key": strings.Repeat("x", 600)}, {"api_key": "k", "token": "t"}} {
			p := typ.Validate(bad)
			if len(p) == 0 {
				t.Fatalf("%s: %v is valid", typ.Name, bad)
			}
			for _, fe := range p {
				if strings.Contains(fe.Message, "xxxx") {
					t.Fatalf("%s: %q echoes the value", typ.Name, fe.Message)
				}
			}
		}
	}
}

// outreachConn is a connection of typ to the sandbox with key; retries
// do not wait.
func outreachConn(srv *httptest.Server, typ *integration.Type, key string) *integration.Conn {
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{typ.Name: srv.URL + "/" + typ.Name},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return k.Conn(typ, integration.Credentials{"api_key": key}, "")
}

// TestOutreachProbesAndLookupsAgainstSandbox: each type's probe accepts a
// key, names a rejected one (401, never the key) and a rate-limited one
// (429 after its attempts); the campaigns lookup answers id, name and
// status (and kind on HeyReach).
func TestOutreachProbesAndLookupsAgainstSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	for _, typ := range outreachTypes {
		t.Run(typ.Name, func(t *testing.T) {
			conn := func(key string) *integration.Conn { return outreachConn(srv, typ, key) }
			if err := typ.Probe(t.Context(), conn("good-key-1")); err != nil {
				t.Fatalf("good key: %v", err)
			}
			err := typ.Probe(t.Context(), conn("invalid-key-secret"))
			if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "key-secret") {
				t.Fatalf("invalid key: %v", err)
			}
			var e *integration.Error
			err = typ.Probe(t.Context(), conn("ratelimited-key"))
			if !errors.As(err, &e) || e.Status != 429 || e.RetryAfter != time.Second || strings.Contains(err.Error(), "ratelimited-key") {
				t.Fatalf("rate-limited key: %v", err)
			}
			out, err := typ.Lookups["campaigns"](t.Context(), conn("good-key-1"), nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := out.([]integration.Campaign)
			if len(cs) < 3 {
				t.Fatalf("campaigns = %+v", out)
			}
			for _, c := range cs {
				if c.ID == "" || c.Name == "" || c.Status == "" || (typ == integration.HeyReach) != (c.Kind != "") {
					t.Fatalf("campaign %+v", c)
				}
			}
			again, _ := typ.Lookups["campaigns"](t.Context(), conn("good-key-1"), nil)
			other, _ := typ.Lookups["campaigns"](t.Context(), conn("good-key-2"), nil)
			if again.([]integration.Campaign)[0] != cs[0] || other.([]integration.Campaign)[0].ID == cs[0].ID {
				t.Fatal("a key does not name the same workspace every time, or two keys share one")
			}
		})
	}
}

func TestOutreachErrorMessages(t *testing.T) {
	for body, want := range map[string]string{
		`{"statusCode":401,"error":"Unauthorized","message":"Invalid API key"}`: "Invalid API key",
		`{"errorMessage":"List not found"}`:                                     "List not found",
		`{"error":"Campaign not found"}`:                                        "Campaign not found",
		`Lead already in the campaign`:                                          "Lead already in the campaign",
		`<html><body>Bad gateway</body></html>`:                                 "",
		`{"ok":false}`:                                                          "",
		``:                                                                      "",
	} {
		if got := integration.Smartlead.ErrorMessage([]byte(body)); got != want {
			t.Errorf("ErrorMessage(%q) = %q, want %q", body, got, want)
		}
	}
	if got := integration.Lemlist.ErrorMessage([]byte(strings.Repeat("é", 400))); len(got) > 310 || !utf8.ValidString(got) {
		t.Errorf("a long body gives %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

func TestParseLemlistCampaigns(t *testing.T) {
	for _, body := range []string{
		`[{"_id":"cam_1","name":"A","status":"running"}]`,
		`{"campaigns":[{"_id":"cam_1","name":"A","status":"running"}],"pagination":{"page":1}}`,
	} {
		cs, err := integration.ParseLemlistCampaigns([]byte(body))
		if err != nil || len(cs) != 1 || cs[0].ID != "cam_1" || cs[0].Status != "running" {
			t.Fatalf("%s: %+v, %v", body, cs, err)
		}
	}
	if _, err := integration.ParseLemlistCampaigns([]byte(`"x"`)); err == nil {
		t.Fatal("a string parsed as campaigns")
	}
}

func FuzzOutreachErrorMessage(f *testing.F) {
	for _, s := range []string{`{"message":"x"}`, `{"errorMessage":1}`, "plain", "<html>", "", `{"error":{"a":1}}`, "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range outreachTypes {
			got := typ.ErrorMessage(body)
			if len(got) > 303 || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r") {
				t.Fatalf("%s: ErrorMessage gives %q", typ.Name, got)
			}
		}
	})
}

func FuzzParseLemlistCampaigns(f *testing.F) {
	for _, s := range []string{`[]`, `[{"_id":"cam_1"}]`, `{"campaigns":null}`, `{"campaigns":[{"_id":5}]}`, `null`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cs, err := integration.ParseLemlistCampaigns(body)
		if err != nil && cs != nil {
			t.Fatalf("an error with campaigns: %v", err)
		}
	})
}
