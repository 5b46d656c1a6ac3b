// Package store is Trawl's persistence: plain SQL over database/sql for both
// SQLite (the embedded default) and PostgreSQL (scale-out). Queries are
// written once where the engines agree; where they differ, both versions sit
// side by side behind one method.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/trawlhq/trawl/internal/ident"
)

// Dialect is the SQL engine behind a Store.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

var (
	// ErrNotFound means the row does not exist (or belongs to another account).
	ErrNotFound = errors.New("store: not found")
	// ErrConflict means a uniqueness rule was violated.
	ErrConflict = errors.New("store: conflict")
)

// Store is the database handle shared by every part of the service.
type Store struct {
	dialect Dialect
	// db takes every write and transaction. On SQLite it is a single
	// connection: SQLite has one writer anyway, and one connection turns
	// lock contention (SQLITE_BUSY) into queueing.
	db *sql.DB
	// read serves plain reads; on SQLite a pool of read-only connections that
	// WAL lets run beside the writer, on PostgreSQL the same pool as db.
	read *sql.DB
	// pool is the pgx pool behind db on PostgreSQL (River's driver needs it).
	pool *pgxpool.Pool
	// ckpt copies the WAL into the database file beside the writer (SQLite).
	ckpt *checkpointer
	// path is the SQLite database file.
	path string
	now  func() time.Time
	// owner is this process's id (ProcessID), the lease_owner of its claims;
	// dropOwnerLock releases the SQLite owner lock Register took.
	owner         string
	dropOwnerLock func()
	// jobs enqueues River jobs inside store transactions (SetJobInserter).
	jobs JobInserter
	// eventHook is called after a commit that wrote outbox events.
	eventHook func()
	// stmts and readStmts keep statements prepared on the writer and on
	// the reader pool (SQLite).
	stmts, readStmts stmtCache
	// group folds concurrent SQLite writes into one transaction.
	group groupCommit
	// topicCreated is signalled when this process creates a topic
	// (TopicCreated).
	topicCreated chan struct{}
	// postings, when set (tests), replace the posting lists' constants.
	postings postingsKnobs
	// resultCounts keeps filtered results tables' totals (countResults).
	resultCounts countMemo
}

// Open connects to databaseURL: sqlite://path/to/file.db or postgres://….
func Open(ctx context.Context, databaseURL string, now func() time.Time) (*Store, error) {
	switch {
	case strings.HasPrefix(databaseURL, "sqlite:"):
		sync, err := sqliteSynchronous(databaseURL)
		if err != nil {
			return nil, err
		}
		return openSQLite(ctx, sqlitePath(databaseURL), sync, now)
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		return openPostgres(ctx, databaseURL, now)
	}
	return nil, fmt.Errorf("store: unsupported database URL %q: want sqlite://PATH or postgres://…", redact(databaseURL))
}

// Files are the files of the SQLite database of databaseURL (the database,
// its -wal and -shm files and the lock files); none for PostgreSQL.
func Files(databaseURL string) []string {
	if !strings.HasPrefix(databaseURL, "sqlite:") {
		return nil
	}
	p := sqlitePath(databaseURL)
	if p == "" {
		return nil
	}
	return []string{p, p + "-wal", p + "-shm", p + lockSuffix, p + ownerLockSuffix}
}

// sqlitePath accepts sqlite://relative/path, sqlite:///absolute/path and sqlite:path.
func sqlitePath(u string) string {
	p := strings.TrimPrefix(u, "sqlite:")
	p = strings.TrimPrefix(p, "//")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// sqliteSynchronous reads the URL's synchronous parameter: FULL unless it
// says normal. With FULL a commit is on disk when it returns, so what Trawl
// acknowledges survives a power loss; NORMAL syncs the WAL only at
// checkpoints, so a commit survives a crash of the process but the last
// ones may be lost with the machine. The group commit makes FULL's one
// fsync per transaction cheap (docs/decisions.md).
func sqliteSynchronous(u string) (string, error) {
	i := strings.IndexByte(u, '?')
	if i < 0 {
		return "FULL", nil
	}
	q, err := url.ParseQuery(u[i+1:])
	if err != nil {
		return "", fmt.Errorf("store: sqlite URL parameters: %w", err)
	}
	switch v := strings.ToLower(q.Get("synchronous")); v {
	case "", "full":
		return "FULL", nil
	case "normal":
		return "NORMAL", nil
	default:
		return "", fmt.Errorf("store: sqlite URL: synchronous must be full or normal, got %q", v)
	}
}

func openSQLite(ctx context.Context, path, synchronous string, now func() time.Time) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: sqlite URL has no file path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create database directory: %w", err)
	}
	// The database holds webhook tokens. SQLite would create it 0644 (less
	// the umask) and gives its -wal and -shm files the database's mode, so
	// the file is made first, readable by the service's user alone.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create sqlite database: %w", err)
	}
	f.Close()
	// The driver runs busy_timeout first (switching a new file to WAL must
	// wait for a concurrent opener instead of failing), then the other
	// _pragma values in alphabetical order, whatever their order here, then
	// the shorthand keys (_journal_mode, …).
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(" + synchronous + ")"
	// The writer: statement journals (each multi-row write in a transaction
	// keeps one) stay in memory instead of a temporary file, and the page
	// cache holds what a large collection transaction dirties (2 MB, the
	// default, made SQLite spill pages to the WAL mid-transaction and read
	// them back). page_size stays at the 4 KiB default (an earlier 16 KiB
	// setting never took effect: the driver ran it after the switch to WAL):
	// collection dirties pages all over several B-trees, and each dirty page
	// is written whole to the WAL at commit.
	writerPragmas := "&_pragma=cache_size(-65536)&_pragma=temp_store(MEMORY)&_pragma=wal_autocheckpoint(" + strconv.Itoa(writerCheckpoint) + ")&_journal_mode=WAL"
	writer, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_txlock=immediate"+writerPragmas)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	writer.SetConnMaxLifetime(0)
	// Switching a new file to WAL can fail with SQLITE_BUSY without waiting
	// when another process opens it at the same moment; the lock file
	// serialises first opens.
	unlock, err := lockFile(path + lockSuffix)
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	err = writer.PingContext(ctx)
	unlock()
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	// Readers map the file (SQLite caps it at 2 GiB): a page read is a
	// memory access instead of a pread, shared by every connection, which
	// halves index-probe-heavy reads such as social mapping's.
	reader, err := sql.Open("sqlite", "file:"+path+"?mode=ro&"+pragmas+"&_pragma=mmap_size(2147418112)&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open sqlite reader: %w", err)
	}
	reader.SetMaxOpenConns(8)
	reader.SetMaxIdleConns(8)
	ckpt, err := sql.Open("sqlite", "file:"+path+"?"+pragmas)
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("store: open sqlite checkpointer: %w", err)
	}
	ckpt.SetMaxOpenConns(1)
	return &Store{dialect: SQLite, db: writer, read: reader, path: path, now: now, ckpt: startCheckpointer(ckpt, checkpointEvery),
		topicCreated: make(chan struct{}, 1), owner: ident.New()}, nil
}

// parallelWorkersParam is PostgreSQL's setting of how many parallel
// workers a query may start.
const parallelWorkersParam = "max_parallel_workers_per_gather"

func openPostgres(ctx context.Context, databaseURL string, now func() time.Time) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: parse postgres URL: %w", err)
	}
	if cfg.MaxConns < 10 {
		cfg.MaxConns = 10
	}
	// No parallel query unless the URL asks for it: a parallel worker is a
	// new process, whose first touch of each shared-buffer page is a page
	// fault, so the interactive queries here ran slower with workers than
	// without (docs/decisions.md).
	if _, set := cfg.ConnConfig.RuntimeParams[parallelWorkersParam]; !set {
		cfg.ConnConfig.RuntimeParams[parallelWorkersParam] = "0"
	}
	// No JIT compilation unless the URL asks for it: the planner compiled
	// small joins whose row estimates were off (a lookup reading the 200
	// posts changed since the posting lists were built: 15-60 ms compiled,
	// 3.6 ms not), and the large ones ran no faster compiled.
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect postgres %s: %w", redact(databaseURL), err)
	}
	db := stdlib.OpenDBFromPool(pool)
	return &Store{dialect: Postgres, db: db, read: db, pool: pool, now: now, topicCreated: make(chan struct{}, 1), owner: ident.New()}, nil
}

// Dialect reports the engine.
func (s *Store) Dialect() Dialect { return s.dialect }

// DB is the writer handle (River's SQLite driver runs on it).
func (s *Store) DB() *sql.DB { return s.db }

// PgxPool is the PostgreSQL pool, nil on SQLite.
func (s *Store) PgxPool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	var one int
	if err := s.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Close releases every connection.
func (s *Store) Close() error {
	var errs []error
	s.stmts.close()
	s.readStmts.close()
	if s.ckpt != nil {
		errs = append(errs, s.ckpt.close())
	}
	if s.read != s.db {
		errs = append(errs, s.read.Close())
	}
	errs = append(errs, s.db.Close())
	if s.pool != nil {
		s.pool.Close()
	}
	return errors.Join(errs...)
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.dialect == SQLite {
		s.stmts.prepareWanted(ctx, s.db)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// lostToConcurrent reports whether err is a transaction's loss to a
// concurrent one (deadlock, serialization failure, SQLite busy): the
// database rolled it back whole, and running it again is the cure.
func lostToConcurrent(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 40P01") || strings.Contains(msg, "SQLSTATE 40001") || strings.Contains(msg, "SQLITE_BUSY")
}

// inTxRetried is inTx run again, up to three times in all, while it loses to
// a concurrent transaction: for the rare writes that take their locks in
// another order than collection (posts, then topics), such as deleting an
// account while its topics collect, where PostgreSQL picks one of the two
// as a deadlock's victim.
func (s *Store) inTxRetried(ctx context.Context, fn func(tx *sql.Tx) error) error {
	var err error
	for range 3 {
		if err = s.inTx(ctx, fn); err == nil || !lostToConcurrent(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// redact hides the password of a database URL for messages and logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// ms converts a time to the stored form: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts a stored timestamp back to UTC time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// nullTime converts a nullable stored timestamp.
func nullTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
