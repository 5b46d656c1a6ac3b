package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// TestTopicKill9DuringHydration is the topics' half of "nothing is lost or
// duplicated when a process is killed". A trawl process is killed with
// SIGKILL while post hydrations are in flight; the next one, on the same
// database, gets two more topics (one on the posts of the first, whose
// engagements are linked at discovery once hydrated, and paid for once per
// account) and is killed in turn while it resumes the queued hydrations. A third process then finishes the work, which ends with every linked
// post hydrated, each engagement stored once and linked once per topic with
// exactly one outbox event, everything linked paid for exactly once per
// account (and the ledger agreeing), and the topics' counters equal to what
// they link. Issue 33: the work resumes within 15 s of the last restart on
// SQLite, within 45 s of the last kill on PostgreSQL (crashCluster).
func TestTopicKill9DuringHydration(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it; skipped with -short")
	}
	bin := crashBuildTrawl(t)
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ctx := context.Background()
		cl := newCrashCluster(t, bin, engine, nil)
		db := crashOpenDB(t, cl.env["TRAWL_DATABASE_URL"])

		// Kill 1: soon after the first hydration commits, while the others
		// run or wait in the queue.
		p := cl.victim()
		ids := topicCrashCreate(t, p.Client, 40, "sales", "crm", "ai", "hiring")
		topicCrashKillMidHydration(t, db, p, engine, "kill 1", 1)

		// Kill 2: the next process resumes the queued hydrations (the
		// lost ones handed back by its start, or the survivor) and gets two
		// new topics, whose discoveries queue behind them; it is killed once
		// it has hydrated a post.
		p = cl.victim()
		ids = append(ids, topicCrashCreate(t, p.Client, 40, "sales", "marketing")...)
		topicCrashKillMidHydration(t, db, p, engine, "kill 2", topicCrashHydratedCount(t, db)+1)

		p, deadline := cl.recover()
		topicCrashWaitHydrated(t, db, p, ids, deadline)
		cl.logRecovered("every topic had run and hydrated its posts")
		topicCrashCheck(t, ctx, db, ids)
	})
}

// topicCrashCreate creates one past-24h topic per keyword.
func topicCrashCreate(t *testing.T, c *client.Client, maxResults int, keywords ...string) []string {
	t.Helper()
	ids := make([]string, 0, len(keywords))
	for _, kw := range keywords {
		body := map[string]any{"name": fmt.Sprintf("crash %s %d", kw, time.Now().UnixNano()), "keywords": []string{kw},
			"time_frame": "past-24h", "max_results": maxResults}
		var v topicView
		if err := mustDo(t, c, http.MethodPost, "/v1/topics", body, http.StatusCreated).Data(&v); err != nil || v.ID == "" {
			t.Fatalf("create topic %q: %v %+v", kw, err, v)
		}
		ids = append(ids, v.ID)
	}
	return ids
}

// topicCrashHydratedCount counts the posts hydrated at least once.
func topicCrashHydratedCount(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(`SELECT COUNT(*) FROM pronet_posts WHERE last_hydrated_at IS NOT NULL`).Scan(&n); err != nil {
		t.Fatalf("count hydrated posts: %v", err)
	}
	return n
}

// topicCrashKillMidHydration polls the database until at least atLeast posts
// have been hydrated, waits a random 0-150 ms more and sends SIGKILL; it
// logs how far the work had gone.
func topicCrashKillMidHydration(t *testing.T, db *sql.DB, p *crashProcess, engine store.Dialect, round string, atLeast int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for topicCrashHydratedCount(t, db) < atLeast {
		if time.Now().After(deadline) {
			p.kill()
			logs := p.stderr.String()
			t.Fatalf("%s: no hydration within 30 s; server log tail:\n%s", round, logs[max(0, len(logs)-6000):])
		}
		time.Sleep(5 * time.Millisecond) // polling for asynchronous work
	}
	time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
	p.kill()

	var linked, hydrated int64
	if err := db.QueryRow(`SELECT COUNT(DISTINCT post_urn), COUNT(DISTINCT CASE WHEN p.last_hydrated_at IS NOT NULL THEN p.urn END)
	                         FROM topic_posts tp JOIN pronet_posts p ON p.urn = tp.post_urn`).Scan(&linked, &hydrated); err != nil {
		t.Fatalf("count posts: %v", err)
	}
	jobs := map[string]int{}
	rows, err := db.Query(`SELECT kind, state, COUNT(*) FROM river_job WHERE kind LIKE 'trawl.topic.%' GROUP BY kind, state ORDER BY kind, state`)
	if err != nil {
		t.Fatalf("count jobs: %v", err)
	}
	for rows.Next() {
		var (
			kind, state string
			n           int
		)
		if err := rows.Scan(&kind, &state, &n); err != nil {
			t.Fatal(err)
		}
		jobs[strings.TrimPrefix(kind, "trawl.topic.")+"/"+state] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	t.Logf("%s: %s: SIGKILL with %d of %d linked posts hydrated; topic jobs by state: %v", engine, round, hydrated, linked, jobs)
}

// topicCrashWaitHydrated polls the API until every topic has run and
// collected engagements and every post it links has had its first
// hydration, which schedules the next one for Day 1, and fails at
// deadline. Hydrations lost with the killed process resume at once.
func topicCrashWaitHydrated(t *testing.T, db *sql.DB, p *crashProcess, ids []string, deadline time.Time) {
	t.Helper()
	for {
		pending := topicCrashPending(t, p.Client, ids)
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			logs := p.stderr.String()
			t.Fatalf("by the recovery deadline still pending: %v\nposts not hydrated:\n%s\nserver log tail:\n%s",
				pending, topicCrashUnhydrated(t, db), logs[max(0, len(logs)-6000):])
		}
		time.Sleep(250 * time.Millisecond) // polling for asynchronous work, not waiting on a schedule
	}
}

// topicCrashUnhydrated describes the linked posts whose first hydration
// has not committed.
func topicCrashUnhydrated(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT urn, COALESCE(hydrate_stage, ''), COALESCE(next_hydrate_at, 0), failures, COALESCE(last_error, '')
	                         FROM pronet_posts WHERE last_hydrated_at IS NULL ORDER BY urn`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var (
			urn, stage, lastErr string
			next                int64
			failures            int
		)
		if err := rows.Scan(&urn, &stage, &next, &failures, &lastErr); err != nil {
			return err.Error()
		}
		fmt.Fprintf(&b, "  %s: stage %s, next_hydrate_at %s, failures %d, last_error %q\n",
			urn, stage, time.UnixMilli(next).UTC().Format(time.RFC3339Nano), failures, lastErr)
	}
	return b.String()
}

func topicCrashPending(t *testing.T, c *client.Client, ids []string) []string {
	t.Helper()
	var pending []string
	for _, id := range ids {
		tp := getTopic(t, c, id)
		if tp.LastRun == nil || tp.PostsCount == 0 || tp.EngagementsCount == 0 {
			msg := fmt.Sprintf("topic %s: last_run %s, posts_count %d, engagements_count %d",
				id, crashDeref(tp.LastRun), tp.PostsCount, tp.EngagementsCount)
			if tp.LastError != nil {
				msg += ", last_error " + *tp.LastError
			}
			pending = append(pending, msg)
			continue
		}
		posts, _ := listAll[topicPost](t, c, "/v1/topics/"+id+"/posts")
		waiting := 0
		for _, post := range posts {
			if post.NextFollowUpAt == nil {
				waiting++
				continue
			}
			next, err := time.Parse(time.RFC3339Nano, *post.NextFollowUpAt)
			if err != nil {
				t.Fatalf("post %s: next_follow_up_at %q: %v", post.URN, *post.NextFollowUpAt, err)
			}
			if time.Until(next) < time.Hour { // a lease ahead, or due: not hydrated yet
				waiting++
			}
		}
		if waiting > 0 || int64(len(posts)) != tp.PostsCount {
			pending = append(pending, fmt.Sprintf("topic %s: %d of %d listed posts (posts_count %d) not hydrated",
				id, waiting, len(posts), tp.PostsCount))
		}
	}
	return pending
}

// topicCrashCheck asserts, in one database snapshot, that nothing collected
// for the topics is lost, doubled or unpaid.
func topicCrashCheck(t *testing.T, ctx context.Context, db *sql.DB, ids []string) {
	t.Helper()
	opts := &sql.TxOptions{ReadOnly: true}
	if _, pg := db.Driver().(*stdlib.Driver); pg {
		// SQLite's read transactions are snapshots already.
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	defer tx.Rollback()
	count := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	zero := func(what, q string, args ...any) {
		t.Helper()
		if n := count(q, args...); n != 0 {
			t.Errorf("%d %s", n, what)
		}
	}

	// Stored once: engagements per (post, person, type), links per topic.
	zero("(post, person, type) with more than one pronet_engagements row",
		`SELECT COUNT(*) FROM (SELECT post_urn, person_urn, type FROM pronet_engagements
		                        GROUP BY post_urn, person_urn, type HAVING COUNT(*) > 1) d`)
	zero("engagements linked more than once to a topic",
		`SELECT COUNT(*) FROM (SELECT topic_id, engagement_id FROM topic_engagements
		                        GROUP BY topic_id, engagement_id HAVING COUNT(*) > 1) d`)
	zero("engagements whose post_urn is not the engagement's post",
		`SELECT COUNT(*) FROM topic_engagements te JOIN pronet_engagements e ON e.id = te.engagement_id
		  WHERE e.post_urn <> te.post_urn OR e.person_urn <> te.person_urn`)
	zero("topic engagements on a post the topic does not link",
		`SELECT COUNT(*) FROM topic_engagements te
		  WHERE NOT EXISTS (SELECT 1 FROM topic_posts tp WHERE tp.topic_id = te.topic_id AND tp.post_urn = te.post_urn)`)
	zero("topic engagers missing from topic_engagers",
		`SELECT COUNT(*) FROM topic_engagements te
		  WHERE NOT EXISTS (SELECT 1 FROM topic_engagers g WHERE g.topic_id = te.topic_id AND g.person_urn = te.person_urn)`)
	zero("posts whose engagements_count differs from their stored engagements",
		`SELECT COUNT(*) FROM pronet_posts p
		  WHERE p.engagements_count <> (SELECT COUNT(*) FROM pronet_engagements e WHERE e.post_urn = p.urn)`)
	zero("linked posts never hydrated",
		`SELECT COUNT(*) FROM topic_posts tp JOIN pronet_posts p ON p.urn = tp.post_urn WHERE p.last_hydrated_at IS NULL`)

	// Paid for: every linked post billed to the topic's account, nothing
	// billed that no topic of the account links. Engagements are billed by
	// their links (an account pays once per engagement its topics link).
	zero("engagement bill rows (the links are the bills)", `SELECT COUNT(*) FROM topic_billing WHERE kind = 'engagement'`)
	zero("linked posts not billed to the topic's account",
		`SELECT COUNT(*) FROM topic_posts tp JOIN topics t ON t.id = tp.topic_id
		  WHERE NOT EXISTS (SELECT 1 FROM topic_billing b WHERE b.account_id = t.account_id AND b.kind = 'post'
		                       AND b.subject_id = tp.post_urn)`)
	zero("billed posts no topic of the account links",
		`SELECT COUNT(*) FROM topic_billing b WHERE b.kind = 'post' AND NOT EXISTS
		   (SELECT 1 FROM topic_posts tp JOIN topics t ON t.id = tp.topic_id
		     WHERE t.account_id = b.account_id AND tp.post_urn = b.subject_id)`)

	// The ledger agrees with the billing, and the balance with the ledger.
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT CAST(account_id AS TEXT) FROM topics`)
	if err != nil {
		t.Fatal(err)
	}
	var accounts []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for _, a := range accounts {
		spent := count(`SELECT COALESCE(SUM(amount), 0) FROM credit_ledger WHERE account_id = $1 AND feature = 'social_topics'`, a)
		billed := count(`SELECT COUNT(*) FROM topic_billing WHERE account_id = $1`, a) +
			count(`SELECT COUNT(DISTINCT te.engagement_id) FROM topic_engagements te JOIN topics t ON t.id = te.topic_id
			        WHERE t.account_id = $1`, a)
		if spent != billed || billed == 0 {
			t.Errorf("account %s: social_topics ledger sums %d credits, for %d billed posts and distinct linked engagements; want equal and > 0", a, spent, billed)
		}
		used := count(`SELECT COALESCE(SUM(used), 0) FROM credit_periods WHERE account_id = $1`, a)
		ledger := count(`SELECT COALESCE(SUM(amount), 0) FROM credit_ledger WHERE account_id = $1`, a)
		if used != ledger {
			t.Errorf("account %s: credit periods used %d, ledger sums %d", a, used, ledger)
		}
	}

	// Counters, and the work resumed for every topic.
	for _, id := range ids {
		var (
			postsCount, engagementsCount int64
			ran                          bool
		)
		if err := tx.QueryRowContext(ctx, `SELECT posts_count, engagements_count, last_run_at IS NOT NULL FROM topics WHERE id = $1`, id).
			Scan(&postsCount, &engagementsCount, &ran); err != nil {
			t.Fatalf("read topic %s: %v", id, err)
		}
		posts := count(`SELECT COUNT(*) FROM topic_posts WHERE topic_id = $1`, id)
		links := count(`SELECT COUNT(*) FROM topic_engagements WHERE topic_id = $1`, id)
		if postsCount != posts || engagementsCount != links || !ran || posts == 0 || links == 0 {
			t.Errorf("topic %s: posts_count %d, linked posts %d; engagements_count %d, linked engagements %d; ran %v; want counters equal to the links, links > 0, ran",
				id, postsCount, posts, engagementsCount, links, ran)
		}
	}
	t.Logf("checked %d topics: %d posts, %d engagements, %d links, %d posts billed",
		len(ids), count(`SELECT COUNT(*) FROM pronet_posts`), count(`SELECT COUNT(*) FROM pronet_engagements`),
		count(`SELECT COUNT(*) FROM topic_engagements`), count(`SELECT COUNT(*) FROM topic_billing`))
}
