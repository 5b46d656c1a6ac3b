package action_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// hubSpotHarness runs HubSpot executors against the sandbox's HubSpot.
type hubSpotHarness struct {
	t     testing.TB
	srv   *httptest.Server
	specs map[string]action.Spec
	token string
}

func newHubSpotHarness(t testing.TB, token string) *hubSpotHarness {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	h := &hubSpotHarness{t: t, srv: srv, specs: map[string]action.Spec{}, token: token}
	for _, s := range action.NewCatalogue().List(action.CategoryCRM) {
		h.specs[s.Kind] = s
	}
	return h
}

func (h *hubSpotHarness) call(kind string, inputs map[string]any) action.Call {
	k := &integration.Connector{HTTP: h.srv.Client(), URLs: map[string]string{"hubspot": h.srv.URL + "/hubspot"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return action.Call{AccountID: "acct", Inputs: inputs, IdempotencyKey: "x:" + kind,
		Connection: func(_ context.Context, typ string) (*integration.Conn, error) {
			if h.token == "" {
				return nil, fmt.Errorf("hubspot: %w", integration.ErrNotConnected)
			}
			return k.Conn(integration.HubSpot, integration.Credentials{"access_token": h.token}, "acct"), nil
		}}
}

func (h *hubSpotHarness) run(kind string, inputs map[string]any) (map[string]any, *action.Error) {
	h.t.Helper()
	spec, ok := h.specs[kind]
	if !ok || spec.Run == nil {
		h.t.Fatalf("no executor for %s", kind)
	}
	out, err := spec.Run(context.Background(), h.call(kind, inputs))
	if err != nil {
		var ae *action.Error
		if !errors.As(err, &ae) {
			h.t.Fatalf("%s: %v is not an action error", kind, err)
		}
		return out, ae
	}
	return out, nil
}

func (h *hubSpotHarness) ok(kind string, inputs map[string]any) map[string]any {
	h.t.Helper()
	out, err := h.run(kind, inputs)
	if err != nil {
		h.t.Fatalf("%s: %v", kind, err)
	}
	return out
}

func TestHubSpotActionsAgainstSandbox(t *testing.T) {
	h := newHubSpotHarness(t, "pat-na1-actions")
	first := h.ok(action.KindHubSpotUpsertContact, map[string]any{"email": "jane@acme.com", "firstname": "Jane", "linkedin_url": "https://www.linkedin.com/in/jane",
		"properties": map[string]any{"lifecyclestage": "lead", "hs_email_optout": false}})
	id, _ := first["id"].(string)
	props, _ := first["properties"].(map[string]any)
	if id == "" || first["created"] != true || props["firstname"] != "Jane" || props["hs_linkedin_url"] != "https://www.linkedin.com/in/jane" || props["hs_email_optout"] != "false" {
		t.Fatalf("first upsert: %v", first)
	}
	again := h.ok(action.KindHubSpotUpsertContact, map[string]any{"email": "jane@acme.com", "lastname": "Doe"})
	if again["id"] != id || again["created"] != false {
		t.Fatalf("second upsert: %v", again)
	}

	assoc := h.ok(action.KindHubSpotAssociateCompany, map[string]any{"contact_id": id, "company_domain": "https://www.Acme.com/about", "company_name": "Acme"})
	company, _ := assoc["company_id"].(string)
	if company == "" || assoc["company_created"] != true || assoc["associated"] != true {
		t.Fatalf("associate: %v", assoc)
	}
	if again := h.ok(action.KindHubSpotAssociateCompany, map[string]any{"contact_id": id, "company_domain": "acme.com"}); again["company_id"] != company || again["company_created"] != false {
		t.Fatalf("associate again: %v", again)
	}
	if _, err := h.run(action.KindHubSpotAssociateCompany, map[string]any{"contact_id": "missing-1", "company_id": company}); err == nil || err.Code != action.CodeNotFound {
		t.Fatalf("associate a missing contact: %v", err)
	}

	note := h.ok(action.KindHubSpotCreateNote, map[string]any{"contact_id": id, "body": "Met at the fair"})
	if note["id"] == "" || note["created"] != true {
		t.Fatalf("note: %v", note)
	}
	if again := h.ok(action.KindHubSpotCreateNote, map[string]any{"contact_id": id, "body": "Met at the fair"}); again["id"] != note["id"] || again["created"] != false {
		t.Fatalf("note again: %v", again)
	}
	task := h.ok(action.KindHubSpotCreateTask, map[string]any{"contact_id": id, "subject": "Call Jane", "due": "2026-12-01T09:00:00Z", "priority": "HIGH"})
	if task["id"] == "" || task["created"] != true {
		t.Fatalf("task: %v", task)
	}
	if again := h.ok(action.KindHubSpotCreateTask, map[string]any{"contact_id": id, "subject": "Call Jane", "due": "1796115600000"}); again["id"] != task["id"] {
		t.Fatalf("task again (same due in ms): %v", again)
	}
	if other := h.ok(action.KindHubSpotCreateTask, map[string]any{"contact_id": id, "subject": "Call Jane", "due": "2026-12-02"}); other["id"] == task["id"] {
		t.Fatalf("a task due another day is the same: %v", other)
	}

	// Errors.
	if _, err := h.run(action.KindHubSpotUpsertContact, map[string]any{"email": "not-an-email"}); err == nil || err.Code != action.CodeUpstream || err.Retryable ||
		!strings.Contains(err.Message, "Email address not-an-email is invalid") {
		t.Fatalf("bad email: %v", err)
	}
	if _, err := h.run(action.KindHubSpotUpsertContact, map[string]any{"email": "x@acme.com", "properties": map[string]any{"nope": 1}}); err == nil || !strings.Contains(err.Message, "nope") {
		t.Fatalf("unknown property: %v", err)
	}
	if _, err := h.run(action.KindHubSpotCreateTask, map[string]any{"contact_id": id, "subject": "x", "priority": "URGENT"}); err == nil || err.Code != action.CodeInvalidInput {
		t.Fatalf("bad priority: %v", err)
	}
	if out := h.ok(action.KindHubSpotUpsertContact, map[string]any{"email": "flaky-1@acme.com"}); out["created"] != true {
		t.Fatalf("flaky: %v", out)
	}
	for token, code := range map[string]string{"invalid-x": action.CodeRejected, "": action.CodeNotConnected} {
		h.token = token
		if _, err := h.run(action.KindHubSpotUpsertContact, map[string]any{"email": "a@acme.com"}); err == nil || err.Code != code {
			t.Fatalf("token %q: %v, want %s", token, err, code)
		}
	}
	h.token = "ratelimited-1"
	if _, err := h.run(action.KindHubSpotCreateNote, map[string]any{"contact_id": id, "body": "x"}); err == nil || err.Code != action.CodeUpstream || !err.Retryable || err.RetryAfter != time.Second {
		t.Fatalf("rate limited: %+v", err)
	}
}

func TestHubSpotAssociateCompanyCheck(t *testing.T) {
	spec, _ := action.NewCatalogue().Lookup(action.KindHubSpotAssociateCompany)
	for _, in := range []map[string]any{{"contact_id": "1"}, {"contact_id": "1", "company_id": "2", "company_domain": "a.com"}} {
		if len(spec.Check(in)) == 0 {
			t.Errorf("%v passes the check", in)
		}
	}
	if p := spec.Check(map[string]any{"contact_id": "1", "company_domain": action.Dynamic{}}); len(p) != 0 {
		t.Errorf("a templated domain: %v", p)
	}
}

// BenchmarkHubSpotUpsertContact is one upsert step against the sandbox's
// HubSpot on loopback: the executor's cost plus the sandbox's and the
// round trip (bench/integrations subtracts the service's share).
func BenchmarkHubSpotUpsertContact(b *testing.B) {
	h := newHubSpotHarness(b, "pat-na1-bench")
	spec := h.specs[action.KindHubSpotUpsertContact]
	call := h.call(action.KindHubSpotUpsertContact, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// The same few contacts: the sandbox's portal stays small.
		call.Inputs = map[string]any{"email": fmt.Sprintf("lead-%d@example.com", i%64), "firstname": "Jane", "lastname": "Doe", "jobtitle": "VP Sales"}
		if _, err := spec.Run(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}
