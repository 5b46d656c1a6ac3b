package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trawlhq/trawl/internal/app"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/config"
)

type keysCmd struct {
	Create keysCreateCmd `cmd:"" help:"Create an API key; the key is printed once."`
	List   keysListCmd   `cmd:"" help:"List an account's keys."`
	Revoke keysRevokeCmd `cmd:"" help:"Revoke a key; it stops working on the next request."`
}

type keysCreateCmd struct {
	Account     string `required:"" help:"Account id."`
	Permissions string `required:"" help:"Comma-separated permissions, or '*' for all."`
	FullArchive bool   `name:"full-archive" help:"Allow use_full_archive searches."`
	Label       string `help:"What the key is for (shown by keys list)."`
	ExpiresIn   string `name:"expires-in" placeholder:"DURATION" xor:"expiry" help:"Expire the key after this long: 90d, 12h, 30m."`
	ExpiresAt   string `name:"expires-at" placeholder:"TIME" xor:"expiry" help:"Expire the key at this time: RFC 3339 (2027-01-31T18:00:00Z) or a date (its first instant, UTC)."`
	JSON        bool   `name:"json" help:"Print JSON."`
	storeFlags  `embed:""`
}

func (c keysCreateCmd) Run(cfg *config.Config, e env) error {
	perms, err := auth.ParsePermissions(c.Permissions)
	if err != nil {
		return fmt.Errorf("--permissions: %w (known: *, %s)", err, joinPerms(auth.Permissions()))
	}
	expires, err := c.expiry(e.now())
	if err != nil {
		return err
	}
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	k := auth.Key{AccountID: c.Account, Permissions: perms, FullArchive: c.FullArchive, Label: strings.TrimSpace(c.Label), ExpiresAt: expires}
	secret, err := st.CreateKey(e.ctx, &k)
	if err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": k.ID, "key": secret, "prefix": k.Prefix, "account_id": k.AccountID,
			"label": k.Label, "permissions": k.Permissions, "full_archive": k.FullArchive, "expires_at": k.ExpiresAt})
	}
	until := ""
	if k.ExpiresAt != nil {
		until = ", valid until " + k.ExpiresAt.Format(time.RFC3339)
	}
	fmt.Fprintf(e.stdout, "Created key %s for account %s%s. It is shown only this once:\n\n    %s\n\n", k.ID, k.AccountID, until, secret)
	return nil
}

// expiry is when the key expires (nil: never), from --expires-in or
// --expires-at, which must lie ahead of now.
func (c keysCreateCmd) expiry(now time.Time) (*time.Time, error) {
	var at time.Time
	switch {
	case c.ExpiresIn != "":
		d, err := parseLifetime(c.ExpiresIn)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--expires-in must be a positive duration such as 90d, 12h or 30m, got %q", c.ExpiresIn)
		}
		at = now.Add(d)
	case c.ExpiresAt != "":
		t, err := time.Parse(time.RFC3339, c.ExpiresAt)
		if err != nil {
			t, err = time.Parse(time.DateOnly, c.ExpiresAt)
		}
		if err != nil {
			return nil, fmt.Errorf("--expires-at must be an RFC 3339 time (2027-01-31T18:00:00Z) or a date (2027-01-31), got %q", c.ExpiresAt)
		}
		if !t.After(now) {
			return nil, fmt.Errorf("--expires-at %s is not in the future", t.UTC().Format(time.RFC3339))
		}
		at = t
	default:
		return nil, nil
	}
	at = at.UTC().Truncate(time.Millisecond)
	return &at, nil
}

// parseLifetime is a Go duration, or a whole number of days ("90d").
func parseLifetime(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n > 100*365 {
			return 0, fmt.Errorf("bad number of days %q", days)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

func joinPerms(ps []auth.Permission) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

type keysListCmd struct {
	Account    string `required:"" help:"Account id."`
	JSON       bool   `name:"json" help:"Print JSON."`
	storeFlags `embed:""`
}

func (c keysListCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := st.Keys(e.ctx, c.Account)
	if err != nil {
		return err
	}
	now := e.now()
	if c.JSON {
		out := make([]map[string]any, 0, len(keys))
		for _, k := range keys {
			out = append(out, map[string]any{"id": k.ID, "prefix": k.Prefix, "label": k.Label, "permissions": k.Permissions, "full_archive": k.FullArchive,
				"status": k.Status(now), "created_at": k.CreatedAt, "expires_at": k.ExpiresAt, "last_used_at": k.LastUsedAt, "revoked_at": k.RevokedAt})
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tLABEL\tSTATUS\tPERMISSIONS\tFULL ARCHIVE\tEXPIRES\tLAST USED\tREVOKED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%t\t%s\t%s\t%s\n", k.ID, k.Prefix, orDashString(k.Label), k.Status(now), joinPerms(k.Permissions),
			k.FullArchive, orDash(k.ExpiresAt), orDash(k.LastUsedAt), orDash(k.RevokedAt))
	}
	return tw.Flush()
}

func orDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

func orDashString(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type keysRevokeCmd struct {
	KeyID      string `arg:"" name:"key-id" help:"Id of the key to revoke."`
	storeFlags `embed:""`
}

func (c keysRevokeCmd) Run(cfg *config.Config, e env) error {
	st, err := app.OpenStore(e.ctx, cfg, appOptions(cfg, e))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RevokeKey(e.ctx, c.KeyID); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked key %s.\n", c.KeyID)
	return nil
}
