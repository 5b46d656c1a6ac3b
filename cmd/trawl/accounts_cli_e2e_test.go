package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/clock"
	"github.com/trawlhq/trawl/internal/store"
)

// End-to-end tests of the account and key administration commands: show,
// re-plan, top up and delete an account; label and expire a key.

// cliAt runs a trawl command with the server's settings on the clock now,
// as an operator's command sees the same time as the server it manages.
func cliAt(t *testing.T, ts *testServer, now func() time.Time, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := execute(context.Background(), args, ts.getenv, &stdout, &stderr, now)
	return stdout.String() + stderr.String(), err
}

type accountJSON struct {
	ID             string `json:"id"`
	Plan           string `json:"plan"`
	MonthlyCredits int64  `json:"monthly_credits"`
	CreditsSource  string `json:"monthly_credits_source"`
	Period         struct {
		Start      time.Time `json:"start"`
		Allocation int64     `json:"allocation"`
		Used       int64     `json:"used"`
		Remaining  int64     `json:"remaining"`
	} `json:"period"`
	Keys       int64 `json:"keys"`
	ActiveKeys int64 `json:"active_keys"`
	Searches   int64 `json:"searches"`
}

func accountCLI(t *testing.T, ts *testServer, now func() time.Time, args ...string) accountJSON {
	t.Helper()
	out, err := cliAt(t, ts, now, append(args, "--json")...)
	if err != nil {
		t.Fatalf("trawl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var a accountJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("trawl %s printed %q", strings.Join(args, " "), out)
	}
	return a
}

// TestAccountsShowReplanTopUp: a re-plan or a new monthly allocation moves
// the current period's allocation by the difference at once (an upgrade's
// credits are there to spend, a downgrade's gone, never below zero), a
// top-up adds to this period alone and survives re-plans, and the next
// period starts from the monthly allocation.
func TestAccountsShowReplanTopUp(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		clk := clock.NewFake(time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC))
		ts := startServerAt(t, serverEnv(t, engine, nil), clk.Now)
		acct := accountCLI(t, ts, clk.Now, "accounts", "create", "--name", "Acme", "--plan", "STARTER", "--credits", "3")
		c := newKey(t, ts, acct.ID, "searches:write,searches:read")
		search := func(want int) {
			t.Helper()
			r := do(t, c, http.MethodPost, "/v1/searches/microblog/posts", map[string]any{"name": "s", "keywords": []string{"crm"}})
			if want == 201 && r.Status != 201 {
				t.Fatalf("create search = %d %s, want 201", r.Status, r.Body)
			}
			if want == 403 {
				wantError(t, r, 403, "INSUFFICIENT_CREDITS")
			}
		}
		search(201)
		search(201)

		check := func(a accountJSON, plan string, monthly int64, source string, allocation, used, remaining int64) {
			t.Helper()
			if a.Plan != plan || a.MonthlyCredits != monthly || a.CreditsSource != source || a.Period.Allocation != allocation || a.Period.Used != used || a.Period.Remaining != remaining {
				t.Fatalf("account %+v, want plan %s, %d monthly (%s), period %d allocated, %d used, %d remaining", a, plan, monthly, source, allocation, used, remaining)
			}
		}
		show := accountCLI(t, ts, clk.Now, "accounts", "show", acct.ID)
		check(show, "STARTER", 3, "account", 3, 2, 1)
		if show.Keys != 1 || show.ActiveKeys != 1 || show.Searches != 2 || !show.Period.Start.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("show: %+v", show)
		}
		out, err := cliAt(t, ts, clk.Now, "accounts", "show", acct.ID)
		if err != nil || !strings.Contains(out, "2026-11-01 to 2026-12-01: 3 allocated, 2 used, 1 remaining") || !strings.Contains(out, "Searches:        2") {
			t.Fatalf("accounts show = %q, %v", out, err)
		}

		// A top-up is this period's; a plan change keeps an override.
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--add-credits", "2"), "STARTER", 3, "account", 5, 2, 3)
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--plan", "enterprise"), "ENTERPRISE", 3, "account", 5, 2, 3)
		// Following the plan again: the period gains the difference, top-up kept.
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--credits", "plan"), "ENTERPRISE", 25000, "plan", 25002, 2, 25000)
		// Down to 1 a month: 1 left this period, spent at once, then refused.
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--credits", "1"), "ENTERPRISE", 1, "account", 3, 2, 1)
		search(201)
		search(403)
		// Below what was spent: nothing left, never less, and a top-up
		// then counts in full.
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--credits", "0"), "ENTERPRISE", 0, "account", 3, 3, 0)
		search(403)
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--add-credits", "1"), "ENTERPRISE", 0, "account", 4, 3, 1)
		search(201)

		// The next period starts from the monthly allocation; the top-ups
		// were the last period's.
		clk.Set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		check(accountCLI(t, ts, clk.Now, "accounts", "show", acct.ID), "ENTERPRISE", 0, "account", 0, 0, 0)
		search(403)
		check(accountCLI(t, ts, clk.Now, "accounts", "update", acct.ID, "--credits", "plan", "--plan", "STARTER"), "STARTER", 1000, "plan", 1000, 0, 1000)
		search(201)

		for _, bad := range []struct {
			args []string
			want string
		}{
			{[]string{"accounts", "update", acct.ID}, "nothing to change"},
			{[]string{"accounts", "update", acct.ID, "--credits", "lots"}, "--credits"},
			{[]string{"accounts", "update", acct.ID, "--credits", "-5"}, "--credits"},
			{[]string{"accounts", "update", acct.ID, "--add-credits", "-5"}, "--add-credits"},
			{[]string{"accounts", "update", acct.ID, "--plan", "GOLD"}, "--plan"},
			{[]string{"accounts", "update", "0190b1a0-0000-7000-8000-000000000000", "--plan", "STARTER"}, "not found"},
			{[]string{"accounts", "show", "nope"}, "not found"},
		} {
			if out, err := cliAt(t, ts, clk.Now, bad.args...); err == nil || !strings.Contains(err.Error()+out, bad.want) {
				t.Errorf("trawl %s: %v, %q; want an error mentioning %q", strings.Join(bad.args, " "), err, out, bad.want)
			}
		}
	})
}

// TestAccountsDelete: deleting an account asks for --yes, then removes it
// and everything it owns on both engines (its keys stop at once), leaves
// the pool of collected posts and people that every account's social
// mapping shares, and touches no other account.
func TestAccountsDelete(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_RATE_LIMIT_ENTERPRISE": "100000"}))
		acctID := newAccount(t, ts, "Doomed", "ENTERPRISE", "")
		c := newKey(t, ts, acctID, "*")
		keep := createSearch(t, ts.Client, map[string]any{"name": "the default account's", "keywords": []string{"crm"}})

		sr := createSearch(t, c, map[string]any{"name": "doomed search", "keywords": []string{"crm"}})
		tp := createTopic(t, c, map[string]any{"name": "doomed topic", "keywords": []string{"revops"}, "max_results": 10})
		mustDo(t, c, http.MethodPost, "/v1/secrets", map[string]any{"name": "TOKEN", "value": "t"}, 201)
		def := `{"trigger":{"kind":"workflows/webhook"},"actions":[{"id":"keep","kind":"builtin:set","inputs":{"values":{"seen":true}}}],"edges":[{"from":"$source","to":"keep"}]}`
		wf := createWorkflow(t, c, map[string]any{"name": "doomed flow", "workflow": json.RawMessage(def), "status": "PUBLISHED", "enabled": true})
		mustDo(t, c, http.MethodPut, "/v1/workflows/"+wf.ID+"/draft", map[string]any{"workflow": json.RawMessage(def)}, 200)
		if status, body := postHook(t, ts.HTTP, *wf.WebhookURL+"?wait=true", http.Header{}, []byte(`{}`)); status != 200 {
			t.Fatalf("webhook = %d %v", status, body)
		}
		waitUntil(t, ts, "the doomed account's collection", func() bool {
			var s savedSearch
			if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+sr.ID, nil, 200).Data(&s); err != nil {
				t.Fatal(err)
			}
			return s.TotalResults > 0 && getTopic(t, c, tp.ID).EngagementsCount > 0
		})

		// Without --yes it only says what it would delete.
		out, err := ts.cli(t, "accounts", "delete", acctID)
		if err == nil || !strings.Contains(out, "1 searches") || !strings.Contains(out, "1 topics") || !strings.Contains(err.Error(), "--yes") {
			t.Fatalf("delete without --yes: %v\n%s", err, out)
		}
		if _, err := c.Usage(t.Context(), "", ""); err != nil {
			t.Fatalf("the account's key stopped without --yes: %v", err)
		}

		db := crashOpenDB(t, ts.env["TRAWL_DATABASE_URL"])
		count := func(query string, args ...any) int64 {
			t.Helper()
			var n int64
			if err := db.QueryRow(query, args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return n
		}
		pool := count(`SELECT COUNT(*) FROM pronet_engagements`)

		out, err = ts.cli(t, "accounts", "delete", acctID, "--yes")
		if err != nil || !strings.Contains(out, "Deleted account "+acctID) {
			t.Fatalf("delete --yes: %v\n%s", err, out)
		}
		_, err = c.Usage(t.Context(), "", "")
		if apiErr, ok := err.(*client.APIError); !ok || apiErr.Status != 401 || apiErr.Code != "INVALID_API_KEY" {
			t.Fatalf("deleted account's key: %v, want 401 INVALID_API_KEY", err)
		}
		for _, args := range [][]string{{"accounts", "show", acctID}, {"keys", "list", "--account", acctID}, {"accounts", "delete", acctID, "--yes"}} {
			if out, err := ts.cli(t, args...); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("trawl %s after the deletion: %v\n%s", strings.Join(args, " "), err, out)
			}
		}

		// Nothing of it is left in any table that names an account, nor in
		// those that hang from its searches, topics, workflows and keys.
		tables := `SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'account_id'`
		if engine == store.Postgres {
			tables = `SELECT table_name FROM information_schema.columns WHERE column_name = 'account_id' AND table_schema = current_schema()`
		}
		rows, err := db.Query(tables)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		rows.Close()
		if len(names) < 10 {
			t.Fatalf("only %d tables name an account: %v", len(names), names)
		}
		for _, name := range names {
			if n := count(`SELECT COUNT(*) FROM `+name+` WHERE account_id = $1`, acctID); n != 0 {
				t.Errorf("%s keeps %d rows of the deleted account", name, n)
			}
		}
		for query, id := range map[string]string{
			`SELECT COUNT(*) FROM search_results WHERE search_id = $1`:              sr.ID,
			`SELECT COUNT(*) FROM topic_posts WHERE topic_id = $1`:                  tp.ID,
			`SELECT COUNT(*) FROM topic_engagements WHERE topic_id = $1`:            tp.ID,
			`SELECT COUNT(*) FROM topic_engagers WHERE topic_id = $1`:               tp.ID,
			`SELECT COUNT(*) FROM workflow_drafts WHERE workflow_id = $1`:           wf.ID,
			`SELECT COUNT(*) FROM workflow_execution_counts WHERE workflow_id = $1`: wf.ID,
		} {
			if n := count(query, id); n != 0 {
				t.Errorf("%s: %d rows left", query, n)
			}
		}
		if n := count(`SELECT COUNT(*) FROM workflow_steps WHERE execution_id NOT IN (SELECT id FROM workflow_executions)`); n != 0 {
			t.Errorf("%d steps of deleted executions left", n)
		}
		if n := count(`SELECT COUNT(*) FROM rate_windows WHERE key_id NOT IN (SELECT id FROM api_keys)`); n != 0 {
			t.Errorf("%d rate windows of deleted keys left", n)
		}
		if n := count(`SELECT COUNT(*) FROM pronet_engagements`); n < pool {
			t.Errorf("the shared pool lost engagements: %d, was %d", n, pool)
		}

		// The other account is untouched.
		var list struct {
			Data []savedSearch `json:"data"`
		}
		if err := json.Unmarshal(mustDo(t, ts.Client, http.MethodGet, "/v1/searches", nil, 200).Body, &list); err != nil || len(list.Data) != 1 || list.Data[0].ID != keep.ID {
			t.Fatalf("the default account's searches after the deletion: %+v, %v", list, err)
		}
	})
}

// TestKeyLabelAndExpiry: a key carries a label and may expire, after a
// duration or at a time; from its expiry on it is a 401 INVALID_API_KEY
// saying so, and keys list shows the label, the expiry and the status.
func TestKeyLabelAndExpiry(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		start := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
		clk := clock.NewFake(start)
		ts := startServerAt(t, serverEnv(t, engine, nil), clk.Now)
		acctID := newAccount(t, ts, "Acme", "STARTER", "")
		type keyJSON struct {
			ID        string     `json:"id"`
			Key       string     `json:"key"`
			Label     string     `json:"label"`
			Status    string     `json:"status"`
			ExpiresAt *time.Time `json:"expires_at"`
		}
		create := func(args ...string) keyJSON {
			t.Helper()
			out, err := cliAt(t, ts, clk.Now, append([]string{"keys", "create", "--account", acctID, "--permissions", "*", "--json"}, args...)...)
			if err != nil {
				t.Fatalf("keys create %v: %v\n%s", args, err, out)
			}
			var k keyJSON
			if err := json.Unmarshal([]byte(out), &k); err != nil {
				t.Fatalf("keys create printed %q", out)
			}
			return k
		}
		hour := create("--label", "CI deploys", "--expires-in", "1h")
		if hour.Label != "CI deploys" || hour.ExpiresAt == nil || !hour.ExpiresAt.Equal(start.Add(time.Hour)) {
			t.Fatalf("key with --expires-in 1h: %+v", hour)
		}
		dated := create("--expires-at", "2026-12-01")
		if dated.ExpiresAt == nil || !dated.ExpiresAt.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("key with --expires-at 2026-12-01: %+v", dated)
		}
		if days := create("--expires-in", "90d"); days.ExpiresAt == nil || !days.ExpiresAt.Equal(start.AddDate(0, 0, 90)) {
			t.Fatalf("key with --expires-in 90d: %+v", days)
		}
		forever := create()
		if forever.ExpiresAt != nil || forever.Label != "" {
			t.Fatalf("plain key: %+v", forever)
		}

		usage := func(k keyJSON) error {
			_, err := ts.Client.WithKey(k.Key).Usage(t.Context(), "", "")
			return err
		}
		wantExpired := func(k keyJSON) {
			t.Helper()
			err := usage(k)
			apiErr, ok := err.(*client.APIError)
			if !ok || apiErr.Status != 401 || apiErr.Code != "INVALID_API_KEY" || !strings.Contains(apiErr.Message, "expired") {
				t.Fatalf("expired key: %v, want 401 INVALID_API_KEY saying it expired", err)
			}
		}
		clk.Set(start.Add(time.Hour - time.Millisecond))
		if err := usage(hour); err != nil {
			t.Fatalf("a key a millisecond before its expiry: %v", err)
		}
		clk.Set(start.Add(time.Hour))
		wantExpired(hour)
		if err := usage(dated); err != nil {
			t.Fatalf("a key that expires next month: %v", err)
		}
		clk.Set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		wantExpired(dated)
		if err := usage(forever); err != nil {
			t.Fatalf("a key without expiry: %v", err)
		}

		out, err := cliAt(t, ts, clk.Now, "keys", "list", "--account", acctID, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var listed []keyJSON
		if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 4 {
			t.Fatalf("keys list --json = %q (%v)", out, err)
		}
		if listed[0].Label != "CI deploys" || listed[0].Status != "expired" || listed[0].ExpiresAt == nil || listed[3].Status != "active" {
			t.Fatalf("keys list --json = %+v", listed)
		}
		out, err = cliAt(t, ts, clk.Now, "keys", "list", "--account", acctID)
		if err != nil || !strings.Contains(out, "LABEL") || !strings.Contains(out, "CI deploys") || !strings.Contains(out, "2026-11-10T10:00:00Z") || strings.Count(out, "expired") != 2 {
			t.Fatalf("keys list = %q, %v", out, err)
		}
		if a := accountCLI(t, ts, clk.Now, "accounts", "show", acctID); a.Keys != 4 || a.ActiveKeys != 2 {
			t.Fatalf("accounts show counts %d keys, %d active; want 4, 2", a.Keys, a.ActiveKeys)
		}

		for _, bad := range []struct {
			args []string
			want string
		}{
			{[]string{"--expires-in", "1h", "--expires-at", "2027-01-01"}, "expires"},
			{[]string{"--expires-in", "-5m"}, "--expires-in"},
			{[]string{"--expires-in", "soon"}, "--expires-in"},
			{[]string{"--expires-at", "2026-11-01"}, "not in the future"},
			{[]string{"--expires-at", "tomorrow"}, "--expires-at"},
		} {
			args := append([]string{"keys", "create", "--account", acctID, "--permissions", "*"}, bad.args...)
			if out, err := cliAt(t, ts, clk.Now, args...); err == nil || !strings.Contains(err.Error()+out, bad.want) {
				t.Errorf("trawl %s: %v, %q; want an error mentioning %q", strings.Join(args, " "), err, out, bad.want)
			}
		}
	})
}
