package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The checkpointer copies committed WAL pages into the database file
// although no commit of the writer reached its own checkpoint threshold.
func TestCheckpointerCopiesTheWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trawl.db")
	s, err := Open(ctx, "sqlite://"+path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// About 2 MiB of rows: 500 pages, far below writerCheckpoint.
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE filler (body TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	row := strings.Repeat("x", 1000)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for range 2000 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO filler (body) VALUES ($1)`, row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if size := fileSize(t, path); size >= 1<<20 {
		t.Fatalf("database file is %d bytes before any checkpoint; want the rows still in the WAL", size)
	}

	// A second checkpointer on a short period stands in for the store's own.
	conn, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	c := startCheckpointer(conn, time.Millisecond)
	defer c.close()
	deadline := time.Now().Add(10 * time.Second)
	for fileSize(t, path) < 1<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("database file is %d bytes after 10 s; want the 2 MB of rows checkpointed into it", fileSize(t, path))
		}
		time.Sleep(time.Millisecond)
	}
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM filler`).Scan(&n); err != nil || n != 2000 {
		t.Fatalf("rows after the checkpoint: %d, %v; want 2000", n, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
