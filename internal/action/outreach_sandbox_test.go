package action_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// outreachCall runs kind against the sandbox's service with key.
func outreachCall(t *testing.T, srv *httptest.Server, typ, key, kind string, in map[string]any) (map[string]any, error) {
	t.Helper()
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{typ: srv.URL + "/" + typ},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	call := action.Call{Inputs: in, IdempotencyKey: "x/1", Connection: func(_ context.Context, name string) (*integration.Conn, error) {
		if name != typ {
			return nil, integration.ErrNotConnected
		}
		ty, _ := integration.Lookup(typ)
		return k.Conn(ty, integration.Credentials{"api_key": key}, ""), nil
	}}
	return action.Executors(action.Deps{})[kind](t.Context(), call)
}

func firstCampaignID(t *testing.T, srv *httptest.Server, typ, key, kind string) string {
	t.Helper()
	ty, _ := integration.Lookup(typ)
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{typ: srv.URL + "/" + typ}}
	out, err := ty.Lookups["campaigns"](t.Context(), k.Conn(ty, integration.Credentials{"api_key": key}, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.([]integration.Campaign) {
		if c.Kind == kind {
			return c.ID
		}
	}
	t.Fatalf("no %q campaign", kind)
	return ""
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *action.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

// TestOutreachDedupeAcrossCampaigns: a lead another campaign has is
// skipped (skipped_reason) on Smartlead and lemlist by default, and added
// when the step says so.
func TestOutreachDedupeAcrossCampaigns(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	for _, tc := range []struct{ typ, kind, optOut string }{
		{"smartlead", action.KindSmartleadAddLead, "ignore_duplicate_leads_in_other_campaign"},
		{"lemlist", action.KindLemlistAddLead, "deduplicate"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			ty, _ := integration.Lookup(tc.typ)
			k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{tc.typ: srv.URL + "/" + tc.typ}}
			out, _ := ty.Lookups["campaigns"](t.Context(), k.Conn(ty, integration.Credentials{"api_key": "dedupe"}, ""), nil)
			cs := out.([]integration.Campaign)
			first, err := outreachCall(t, srv, tc.typ, "dedupe", tc.kind, map[string]any{"campaign_id": cs[0].ID, "email": "eve@example.com"})
			if err != nil || first["added"] != true {
				t.Fatalf("first: %v, %v", first, err)
			}
			other, err := outreachCall(t, srv, tc.typ, "dedupe", tc.kind, map[string]any{"campaign_id": cs[1].ID, "email": "eve@example.com"})
			if err != nil || other["added"] != false || other["already_in_campaign"] != false || other["skipped_reason"] != "in_other_campaign" {
				t.Fatalf("other campaign: %v, %v", other, err)
			}
			in := map[string]any{"campaign_id": cs[1].ID, "email": "eve@example.com", tc.optOut: tc.optOut != "deduplicate"}
			forced, err := outreachCall(t, srv, tc.typ, "dedupe", tc.kind, in)
			if err != nil || forced["added"] != true {
				t.Fatalf("forced: %v, %v", forced, err)
			}
		})
	}
}

// TestOutreachBadInputs: inputs the action refuses before calling, and a
// Smartlead failure that never carries the key the URL holds.
func TestOutreachBadInputs(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	_, err := outreachCall(t, srv, "smartlead", "k1", action.KindSmartleadAddLead, map[string]any{"campaign_id": "abc", "email": "a@b.co"})
	wantCode(t, err, action.CodeInvalidInput)
	_, err = outreachCall(t, srv, "smartlead", "k1", action.KindSmartleadAddLead, map[string]any{"campaign_id": "1", "email": ""})
	wantCode(t, err, action.CodeInvalidInput)
	_, err = outreachCall(t, srv, "smartlead", "secret-key-42", action.KindSmartleadAddLead, map[string]any{"campaign_id": "1", "email": "a@b.co"})
	wantCode(t, err, action.CodeNotFound)
	if strings.Contains(err.Error(), "secret-key-42") || strings.Contains(err.Error(), "api_key") {
		t.Fatalf("the error carries the key: %v", err)
	}
	_, err = outreachCall(t, srv, "smartlead", "k1", action.KindSmartleadAddLead, map[string]any{"campaign_id": 1.0, "email": "a@b.co", "custom_fields": map[string]any{"x": []any{1}}})
	wantCode(t, err, action.CodeInvalidInput)
	_, err = outreachCall(t, srv, "instantly", "k1", action.KindInstantlyAddLead, map[string]any{"campaign_id": "00000000-0000-7000-a000-000000000000", "email": "a@b.co", "custom_variables": map[string]any{"x": map[string]any{}}})
	wantCode(t, err, action.CodeInvalidInput)
	_, err = outreachCall(t, srv, "instantly", "k1", action.KindInstantlyAddLead, map[string]any{"campaign_id": "c", "email": "a@b.co"})
	wantCode(t, err, action.CodeInvalidInput)
	_, err = outreachCall(t, srv, "lemlist", "k1", action.KindLemlistAddLead, map[string]any{"campaign_id": "c", "email": "a@b.co", "variables": map[string]any{"email": "x"}})
	wantCode(t, err, action.CodeInvalidInput)
	for _, in := range []map[string]any{
		{"profile_url": "https://www.linkedin.com/in/a"},
		{"profile_url": "https://www.linkedin.com/in/a", "list_id": "1", "campaign_id": "2"},
		{"profile_url": "https://www.linkedin.com/in/a", "list_id": "x1"},
	} {
		_, err = outreachCall(t, srv, "heyreach", "k1", action.KindHeyReachAddLead, in)
		wantCode(t, err, action.CodeInvalidInput)
	}
}

// TestHeyReachCampaignLead: a lead goes to a campaign with its sender
// account and custom fields; a second add updates it (already_present).
func TestHeyReachCampaignLead(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	id := firstCampaignID(t, srv, "heyreach", "hr", "campaign")
	in := map[string]any{"campaign_id": id, "linkedin_account_id": 77.0, "profile_url": "https://linkedin.com/in/grace-h",
		"first_name": "Grace", "custom_fields": map[string]any{"topic": "compilers", "score": 9.0}}
	out, err := outreachCall(t, srv, "heyreach", "hr", action.KindHeyReachAddLead, in)
	if err != nil || out["added"] != true || out["already_present"] != false || out["campaign_id"] != id {
		t.Fatalf("first: %v, %v", out, err)
	}
	in["profile_url"] = "https://www.linkedin.com/in/Grace-H/?trk=x"
	out, err = outreachCall(t, srv, "heyreach", "hr", action.KindHeyReachAddLead, in)
	if err != nil || out["added"] != false || out["already_present"] != true {
		t.Fatalf("again: %v, %v", out, err)
	}
	in["custom_fields"] = map[string]any{"bad name": "x"}
	_, err = outreachCall(t, srv, "heyreach", "hr", action.KindHeyReachAddLead, in)
	wantCode(t, err, action.CodeUpstream)
}
