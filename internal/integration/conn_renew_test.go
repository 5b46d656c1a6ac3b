package integration_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/trawlhq/trawl/internal/integration"
)

// TestConnRenewsOnceOn401: a type with Renew gets one renewal per call
// on a 401 and the attempt repeated; a second 401 is the call's error (no
// loop); a Renew that cannot renew leaves the 401 as it is.
func TestConnRenewsOnceOn401(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.Header.Get("Authorization") != "Bearer fresh" || r.URL.Path == "/always401" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	renewals := 0
	canRenew := true
	typ := &integration.Type{Name: "renewing", DisplayName: "Renewing", Authorize: integration.BearerAuth("token"),
		Renew: func(_ context.Context, c *integration.Conn) (bool, error) {
			renewals++
			if !canRenew {
				return false, nil
			}
			c.Creds["token"] = "fresh"
			return true, nil
		}}
	conn := &integration.Conn{Type: typ, Creds: integration.Credentials{"token": "stale"}, BaseURL: srv.URL, HTTP: srv.Client()}
	var out struct{ OK bool }
	if err := conn.Do(t.Context(), integration.Request{Path: "/x"}, &out); err != nil || !out.OK || renewals != 1 || calls != 2 {
		t.Fatalf("err %v, out %+v, renewals %d, calls %d", err, out, renewals, calls)
	}
	calls, renewals = 0, 0
	err := conn.Do(t.Context(), integration.Request{Path: "/always401"}, nil)
	if !errors.Is(err, integration.ErrRejected) || renewals != 1 || calls != 2 {
		t.Fatalf("err %v, renewals %d, calls %d", err, renewals, calls)
	}
	calls, renewals, canRenew = 0, 0, false
	conn.Creds["token"] = "stale"
	if err := conn.Do(t.Context(), integration.Request{Path: "/x"}, nil); !errors.Is(err, integration.ErrRejected) || renewals != 1 || calls != 1 {
		t.Fatalf("err %v, renewals %d, calls %d", err, renewals, calls)
	}
}
