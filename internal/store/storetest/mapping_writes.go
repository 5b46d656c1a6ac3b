package storetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
)

// AwaitRowsPrunable waits until every transaction that wrote the log has
// ended before every running one began: PostgreSQL's pruning spares rows of
// newer transactions (those a running snapshot may not have seen), and other
// tests, or anything else using the database, may have one running.
func AwaitRowsPrunable(t *testing.T, db *sql.DB, log string) {
	t.Helper()
	for range 1000 {
		var prunable bool
		if err := db.QueryRow(`SELECT pg_snapshot_xmin(pg_current_snapshot()) > (SELECT MAX(xid) FROM ` + log + `)`).
			Scan(&prunable); err != nil {
			t.Fatal(err)
		}
		if prunable {
			return
		}
		time.Sleep(10 * time.Millisecond) // another process's transaction, not the service's clock
	}
	t.Fatalf("%s: a transaction older than the log's rows is still running", log)
}

// ChangedQuery asks about revops and a phrase, whose matches
// ChangeMatchedTexts changes.
var ChangedQuery = mapping.Query{Keywords: []string{"revops", "pipeline hygiene"}, Days: 30, Strength: 1, Page: 1, PageSize: 10}

// ChangeMatchedTexts rewrites two posts' texts behind the writers' back:
// one stops mentioning revops, the other mentions it and the phrase.
func ChangeMatchedTexts(ctx context.Context, t *testing.T, s *store.Store, engine store.Dialect) {
	t.Helper()
	for post, text := range map[string]string{"P7": "nothing to see", "P8": "RevOps and #revops: pipeline hygiene, revops at scale"} {
		if _, err := s.DB().ExecContext(ctx, SetPostText(engine), text, FxPostURN(post)); err != nil {
			t.Error(err)
		}
	}
}

// SetPostText is SQL that changes a post's text behind the writers' back
// ($1 the text, $2 the post's URN).
func SetPostText(d store.Dialect) string {
	if d == store.Postgres {
		return `UPDATE pronet_posts SET record = jsonb_set(record, '{text}', to_jsonb($1::text)) WHERE urn = $2`
	}
	return `UPDATE pronet_posts SET record = json_set(record, '$.text', $1) WHERE urn = $2`
}
