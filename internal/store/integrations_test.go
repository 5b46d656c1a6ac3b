package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// TestIntegrationsSealedPerAccount: a connection is stored sealed (the raw
// column does not hold the token), replaced in place, listed and deleted
// per account, and invisible to another account.
func TestIntegrationsSealedPerAccount(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
		s := storetest.Open(t, engine, clk.Now)
		a, b := newAccount(t, s, auth.PlanStarter), newAccount(t, s, auth.PlanStarter)
		box, err := secret.NewBox(bytes.Repeat([]byte{7}, 32))
		if err != nil {
			t.Fatal(err)
		}
		const token = "pat-na1-0123456789abcdef"
		sealed, err := integration.Seal(box, integration.Credentials{"access_token": token}, a.ID, "hubspot")
		if err != nil {
			t.Fatal(err)
		}
		c, created, err := s.PutIntegration(ctx, a.ID, "hubspot", "HubSpot", "api_key", sealed)
		if err != nil || !created || c.Name != "HubSpot" || c.Source != "api_key" || !c.CreatedAt.Equal(clk.Now()) {
			t.Fatalf("put = %+v, %v, %v", c, created, err)
		}

		var raw []byte
		if err := s.DB().QueryRowContext(ctx, `SELECT credentials FROM integrations WHERE account_id = $1 AND type = $2`, a.ID, "hubspot").Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if len(raw) == 0 || bytes.Contains(raw, []byte(token)) || bytes.Contains(raw, []byte("access_token")) {
			t.Fatalf("credentials stored in clear: %q", raw)
		}

		clk.Advance(time.Minute)
		sealed2, _ := integration.Seal(box, integration.Credentials{"access_token": "pat-2"}, a.ID, "hubspot")
		c, created, err = s.PutIntegration(ctx, a.ID, "hubspot", "Sales portal", "api_key", sealed2)
		if err != nil || created || c.Name != "Sales portal" || !c.UpdatedAt.Equal(clk.Now()) || c.CreatedAt.Equal(c.UpdatedAt) {
			t.Fatalf("replace = %+v, %v, %v", c, created, err)
		}
		got, sealedGot, err := s.IntegrationCredentials(ctx, a.ID, "hubspot")
		if err != nil || got.Name != "Sales portal" {
			t.Fatalf("credentials = %+v, %v", got, err)
		}
		if creds, err := integration.Open(box, sealedGot, a.ID, "hubspot"); err != nil || creds["access_token"] != "pat-2" {
			t.Fatalf("open = %v, %v", creds, err)
		}

		list, err := s.ListIntegrations(ctx, a.ID)
		if err != nil || len(list) != 1 || list[0].Type != "hubspot" || list[0].Name != "Sales portal" {
			t.Fatalf("list = %+v, %v", list, err)
		}
		// Another account sees nothing and can delete nothing.
		if list, err := s.ListIntegrations(ctx, b.ID); err != nil || len(list) != 0 {
			t.Fatalf("other account's list = %+v, %v", list, err)
		}
		if _, _, err := s.IntegrationCredentials(ctx, b.ID, "hubspot"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other account's credentials: %v", err)
		}
		if err := s.DeleteIntegration(ctx, b.ID, "hubspot"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other account's delete: %v", err)
		}

		if err := s.DeleteIntegration(ctx, a.ID, "hubspot"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteIntegration(ctx, a.ID, "hubspot"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if list, err := s.ListIntegrations(ctx, a.ID); err != nil || len(list) != 0 {
			t.Fatalf("list after delete = %+v, %v", list, err)
		}
	})
}
