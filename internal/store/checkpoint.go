package store

import (
	"context"
	"database/sql"
	"time"
)

// SQLite checkpoints (copying the WAL back into the database file) ran in
// whichever commit of the writer crossed the WAL threshold: that
// transaction, a hydration or an API write, then read back and wrote again
// thousands of pages and waited for two fsyncs. A connection of its own
// copies them in the background instead, beside the writer, as SQLite's WAL
// documentation suggests. The writer keeps an automatic checkpoint at a
// larger threshold as the backstop: a passive checkpoint never finishes
// while commits keep arriving, and only a finished one lets the WAL start
// over, so under a steady load the writer's checkpoint finds the pages
// copied already and only closes the round.
const (
	checkpointEvery  = time.Second
	writerCheckpoint = 16000 // pages: 64 MiB of WAL
)

// checkpointer runs passive checkpoints until it is closed.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(db *sql.DB, every time.Duration) *checkpointer {
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run(every)
	return c
}

func (c *checkpointer) run(every time.Duration) {
	defer close(c.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			// A failed round leaves its pages to the next one or to the
			// writer's backstop.
			_, _ = c.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}
}

func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
