package store

import (
	"context"
	"database/sql"
	"sync"
)

// groupCommit lets writes that arrive while the SQLite writer is busy
// share one transaction. SQLite has one writer: concurrent writers queue
// for it anyway, and each commit costs a WAL append per dirty page and
// per commit record. Folding the queue into one transaction writes a page
// that several of them touch (the same index leaf, the table's last page)
// once, and commits once. Each caller still returns only after the commit
// that holds its write.
//
// The first caller to find no transaction under way leads: it takes the
// queue, runs it, commits, and hands the lead to the first caller that
// queued meanwhile, so no caller waits behind more than one batch it is
// not part of.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*groupWrite
	leading bool
}

type groupWrite struct {
	fn    func(tx *sql.Tx) error
	err   error
	lead  bool
	ready chan struct{} // closed when err is set or when lead passes to it
}

// maxGroup bounds the writes of one transaction.
const maxGroup = 64

// inGroupTx runs fn in a transaction that may hold other callers' writes
// too and returns once that transaction committed or failed. fn must only
// write through tx: if it fails, the others' writes are run again, each in
// a transaction of its own, so fn may run twice and must not keep state
// across runs. On PostgreSQL, where writers run side by side, it is inTx.
func (s *Store) inGroupTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.dialect != SQLite {
		return s.inTx(ctx, fn)
	}
	g := &s.group
	w := &groupWrite{fn: fn, ready: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	if g.leading {
		g.mu.Unlock()
		// Not abandoned on ctx's end: the write may be in a transaction
		// under way, and the caller must learn whether it committed.
		<-w.ready
		if !w.lead {
			return w.err
		}
		g.mu.Lock()
	}
	g.leading = true
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	s.commitGroup(context.WithoutCancel(ctx), batch)
	for _, o := range batch {
		if o != w {
			close(o.ready)
		}
	}

	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		next.lead = true
		close(next.ready)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return w.err
}

// inGroupJobTx is inJobTx through inGroupTx on SQLite, where a job
// transaction is a plain one on the writer.
func (s *Store) inGroupJobTx(ctx context.Context, fn func(tx JobTx) error) error {
	if s.dialect != SQLite {
		return s.inJobTx(ctx, fn)
	}
	return s.inGroupTx(ctx, func(tx *sql.Tx) error { return fn(JobTx{SQL: tx}) })
}

// commitGroup runs the batch in one transaction; when any write or the
// commit fails, it runs each write in a transaction of its own instead,
// so one write's error is its caller's alone.
func (s *Store) commitGroup(ctx context.Context, batch []*groupWrite) {
	if len(batch) > 1 {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			for _, w := range batch {
				if err := w.fn(tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			return
		}
	}
	for _, w := range batch {
		w.err = s.inTx(ctx, w.fn)
	}
}
