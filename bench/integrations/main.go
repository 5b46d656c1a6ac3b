// Command integrations measures what an integration step costs beyond the
// service's own latency (issue 38): for every action that acts through a
// connection, -calls steps one at a time, each on a new record, against the
// sandbox of the service's protocol in a child process (so that its garbage
// collection does not land on Trawl). A step is what the engine's executor
// does: open the account's connection (read and unseal it from a SQLite
// store), build the requests, send them through the connection's client,
// decode and check the answers. Each step's requests are recorded and sent
// again by a bare HTTP client that decodes nothing: the service's own
// latency, loopback included. A step's overhead is its time minus that
// replay's. Prints p50/p95/p99 per action against the 1 ms target.
//
//	go run ./bench/integrations
//	go run ./bench/integrations -calls 1000 -kinds hubspot_upsert_contact
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
)

func main() {
	var (
		calls    = flag.Int("calls", 500, "steps per action")
		kinds    = flag.String("kinds", "", "comma-separated action kinds (default: every one of the table)")
		sbServer = flag.String("serve-sandbox", "", "internal: serve the sandbox on this address")
	)
	flag.Parse()
	if *sbServer != "" {
		if err := benchkit.ServeSandbox(*sbServer); err != nil {
			fmt.Fprintln(os.Stderr, "integrations:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), *calls, *kinds); err != nil {
		fmt.Fprintln(os.Stderr, "integrations:", err)
		os.Exit(1)
	}
}

// step is one action of the bench: the connection it needs and the
// inputs of its i-th step (a new record each time).
type step struct {
	kind, typ string
	creds     integration.Credentials
	inputs    func(i int) map[string]any
}

func steps() []step {
	email := func(i int) string { return fmt.Sprintf("lead-%d@example.com", i) }
	return []step{
		{"hubspot_upsert_contact", "hubspot", integration.Credentials{"access_token": "pat-na1-bench"}, func(i int) map[string]any {
			return map[string]any{"email": email(i), "firstname": "Jane", "lastname": "Doe", "jobtitle": "VP Sales"}
		}},
		{"salesforce_upsert_lead", "salesforce", integration.Credentials{"instance_url": "https://bench.my.salesforce.com", "access_token": "bench-session"},
			func(i int) map[string]any {
				return map[string]any{"external_id": fmt.Sprintf("https://www.linkedin.com/in/lead-%d", i), "LastName": "Doe", "Company": "Acme", "Email": email(i)}
			}},
		{"pipedrive_upsert_person", "pipedrive", integration.Credentials{"api_token": "bench-token"}, func(i int) map[string]any {
			return map[string]any{"email": email(i), "name": "Jane Doe"}
		}},
		{"attio_assert_person", "attio", integration.Credentials{"api_key": "bench-key"}, func(i int) map[string]any {
			return map[string]any{"email": email(i), "first_name": "Jane", "last_name": "Doe"}
		}},
		{"slack_send_channel_message", "slack", integration.Credentials{"bot_token": "xoxb-1-2-bench"}, func(i int) map[string]any {
			return map[string]any{"channel": "#sales", "text": fmt.Sprintf("lead %d engaged", i)}
		}},
	}
}

func run(ctx context.Context, calls int, only string) error {
	base, stop, err := benchkit.StartSandbox(ctx, "/hubspot/account-info/v3/details")
	if err != nil {
		return err
	}
	defer stop()

	dir, err := os.MkdirTemp("", "trawl-bench-integrations-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "trawl.db"), time.Now)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	acct := &auth.Account{Name: "bench", Plan: auth.PlanEnterprise}
	if err := st.CreateAccount(ctx, acct); err != nil {
		return err
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	box, err := secret.NewBox(key)
	if err != nil {
		return err
	}

	rec := &benchkit.Recorder{}
	urls := map[string]string{}
	for _, name := range integration.Names() {
		urls[name] = base + "/" + name
	}
	k := &integration.Connector{HTTP: &http.Client{Timeout: 30 * time.Second, Transport: rec}, URLs: urls, Now: time.Now,
		Load: func(ctx context.Context, accountID, typ string) (integration.Credentials, error) {
			_, sealed, err := st.IntegrationCredentials(ctx, accountID, typ)
			if err != nil {
				return nil, err
			}
			return integration.Open(box, sealed, accountID, typ)
		}}
	executors := action.Executors(action.Deps{})
	catalogue := action.NewCatalogue()

	fmt.Printf("Integration step overhead beyond the service's own latency (%d steps each, one at a time, loopback):\n\n", calls)
	var rows []benchkit.Result
	for _, s := range steps() {
		if only != "" && !strings.Contains(","+only+",", ","+s.kind+",") {
			continue
		}
		if _, ok := catalogue.Lookup(s.kind); !ok {
			return fmt.Errorf("%s is not in the catalogue", s.kind)
		}
		sealed, err := integration.Seal(box, s.creds, acct.ID, s.typ)
		if err != nil {
			return err
		}
		if _, _, err := st.PutIntegration(ctx, acct.ID, s.typ, s.typ, integration.SourceAPIKey, sealed); err != nil {
			return err
		}
		exec := executors[s.kind]
		do := func(i int) error {
			_, err := exec(ctx, action.Call{AccountID: acct.ID, Inputs: s.inputs(i), IdempotencyKey: fmt.Sprintf("bench:%s:%d", s.kind, i),
				Connection: func(ctx context.Context, typ string) (*integration.Conn, error) { return k.Open(ctx, acct.ID, typ) }})
			return err
		}
		// One warm-up step opens the connection.
		if err := do(calls); err != nil {
			return fmt.Errorf("%s: %w", s.kind, err)
		}
		rec.Take()
		r := benchkit.Result{Name: s.kind}
		for i := range calls {
			start := time.Now()
			if err := do(i); err != nil {
				return fmt.Errorf("%s #%d: %w", s.kind, i, err)
			}
			took := time.Since(start)
			upstream, err := benchkit.Replay(ctx, rec.Take())
			if err != nil {
				return fmt.Errorf("%s #%d: replay: %w", s.kind, i, err)
			}
			r.Latencies = append(r.Latencies, max(took-upstream, 0))
		}
		rows = append(rows, r)
	}
	benchkit.PrintTable(os.Stdout, rows, time.Millisecond)
	return nil
}
