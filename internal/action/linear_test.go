package action_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

// sandboxCall is a Call whose connection of typ reaches the sandbox.
func sandboxCall(t *testing.T, typ string, creds integration.Credentials, key string, in map[string]any) action.Call {
	t.Helper()
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	t.Cleanup(srv.Close)
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{typ: srv.URL + "/" + typ},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	return action.Call{Inputs: in, IdempotencyKey: key, Connection: func(_ context.Context, name string) (*integration.Conn, error) {
		tt, _ := integration.Lookup(name)
		return k.Conn(tt, creds, "acct"), nil
	}}
}

// TestLinearCreateIssueRetried: a step tried again with the same key (its
// first answer lost) finds the issue it created instead of adding one.
func TestLinearCreateIssueRetried(t *testing.T) {
	call := sandboxCall(t, "linear", integration.Credentials{"api_key": "lin_api_unit"}, "exec-1/step/0",
		map[string]any{"team_id": "ENG", "title": "Call back"})
	spec, _ := action.NewCatalogue().Lookup(action.KindLinearCreateIssue)
	linearCreateIssueRun := spec.Run
	first, err := linearCreateIssueRun(t.Context(), call)
	if err != nil || first["created"] != true || first["identifier"] != "ENG-1" {
		t.Fatalf("first = %v, %v", first, err)
	}
	again, err := linearCreateIssueRun(t.Context(), call)
	if err != nil || again["created"] != false || again["id"] != first["id"] || again["identifier"] != "ENG-1" {
		t.Fatalf("again = %v, %v", again, err)
	}
	call.IdempotencyKey = "exec-2/step/0"
	other, err := linearCreateIssueRun(t.Context(), call)
	if err != nil || other["identifier"] != "ENG-2" {
		t.Fatalf("another step = %v, %v", other, err)
	}
}
