package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func attioConn(srv *httptest.Server, key string) *integration.Conn {
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"attio": srv.URL + "/attio"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return k.Conn(integration.Attio, integration.Credentials{"api_key": key}, "")
}

func TestAttioProbeAndLookupsAgainstSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	if fe := integration.Attio.Validate(integration.Credentials{}); len(fe) != 1 || fe[0].Field != "api_key" {
		t.Fatalf("validation = %+v", fe)
	}
	if err := integration.Attio.Probe(t.Context(), attioConn(srv, "attio-good")); err != nil {
		t.Fatalf("good key: %v", err)
	}
	err := integration.Attio.Probe(t.Context(), attioConn(srv, "invalid-key"))
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "unauthorized") {
		t.Fatalf("invalid key: %v", err)
	}
	var ae *integration.Error
	if err := integration.Attio.Probe(t.Context(), attioConn(srv, "ratelimited-key")); !errors.As(err, &ae) || ae.Status != 429 || ae.RetryAfter != time.Second {
		t.Fatalf("rate limited: %v", err)
	}
	c := attioConn(srv, "attio-good")
	out, err := integration.Attio.Lookups["crm-fields"](t.Context(), c, url.Values{})
	s := jsonString(t, out)
	if err != nil || !strings.Contains(s, `"contacts":[`) || !strings.Contains(s, `{"slug":"email_addresses","label":"Email addresses","type":"email-address"}`) ||
		!strings.Contains(s, `"slug":"domains"`) {
		t.Fatalf("crm-fields = %s, %v", s, err)
	}
	opts, err := integration.Attio.Lookups["crm-field-options"](t.Context(), c, url.Values{"object_type": {"companies"}, "field_slug": {"employee_range"}})
	if err != nil || !strings.HasPrefix(jsonString(t, opts), `[{"label":"1-10","value":"1-10"}`) {
		t.Fatalf("options = %s, %v", jsonString(t, opts), err)
	}
	for _, p := range []url.Values{{"object_type": {"deals"}}, {"object_type": {"contacts"}, "field_slug": {"nope"}}, {"object_type": {"contacts"}, "field_slug": {"job_title"}}} {
		var pe *integration.ParamError
		if _, err := integration.Attio.Lookups["crm-field-options"](t.Context(), c, p); !errors.As(err, &pe) {
			t.Fatalf("%v: %v, want a ParamError", p, err)
		}
	}
}

func FuzzAttioErrorMessage(f *testing.F) {
	for _, s := range []string{`{"status_code":401,"type":"auth_error","code":"unauthorized","message":"Invalid"}`, `{}`, `[]`, `{"code":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, ok := integration.ParseAttioError(body)
		msg := integration.Attio.ErrorMessage(body)
		if ok != (msg != "") || !ok && e != (integration.AttioError{}) {
			t.Fatalf("ok %v, message %q, %+v", ok, msg, e)
		}
	})
}
