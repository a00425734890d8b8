package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"modernc.org/sqlite" // the pure-Go SQLite driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the index database's name in the user's data directory.
const FileName = "index.db"

// schemaVersion is stored in PRAGMA user_version; a database with another
// version is rebuilt.
const schemaVersion = 3

// BusyTimeout is how long a writer waits for another writer's lock.
const BusyTimeout = 30 * time.Second

// ErrClosed is returned by the methods of a closed Index.
var ErrClosed = errors.New("index: closed")

// DefaultPath is ~/.claude-code/index.db for home directory home.
func DefaultPath(home string) string {
	return filepath.Join(home, ".claude-code", FileName)
}

// Index is an open recall index. It is safe for concurrent use, and any
// number of processes may open the same file.
type Index struct {
	db   *sql.DB
	path string
	home string
	mu   sync.Mutex // guards key
	key  *archive.AuthKey
	// Rebuilt is set when Open found the database damaged and started a
	// new one (the damaged file is kept beside it).
	Rebuilt string
}

// Options control Open.
type Options struct {
	// Home is the user's home directory: the fallback stores under
	// ~/.claude-code/contexts/ are scanned from there. Required.
	Home string
	// Path is the database file; empty means DefaultPath(Home).
	Path string
	// Key authenticates the archives (see Trusted); nil means the key of
	// the user whose home is Home (store.LoadOrCreateAuthKey).
	Key *archive.AuthKey
}

const schema = `
CREATE TABLE IF NOT EXISTS projects (
	id    INTEGER PRIMARY KEY,
	dir   TEXT NOT NULL UNIQUE,
	added INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS archives (
	id         INTEGER PRIMARY KEY,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	path       TEXT NOT NULL UNIQUE,
	hash       TEXT NOT NULL,
	size       INTEGER NOT NULL,
	mtime      INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	status     TEXT NOT NULL,
	problem    TEXT NOT NULL DEFAULT '',
	session    TEXT NOT NULL DEFAULT '',
	assistant  TEXT NOT NULL DEFAULT '',
	title      TEXT NOT NULL DEFAULT '',
	first_ts   INTEGER NOT NULL DEFAULT 0,
	last_ts    INTEGER NOT NULL DEFAULT 0,
	nrows      INTEGER NOT NULL DEFAULT 0,
	source     TEXT NOT NULL DEFAULT '',
	trust      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS pulled (
	hash TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS settings (
	k TEXT PRIMARY KEY,
	v TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS archives_hash ON archives(hash);
CREATE INDEX IF NOT EXISTS archives_project ON archives(project_id);
CREATE TABLE IF NOT EXISTS texts (
	id INTEGER PRIMARY KEY,
	h  INTEGER NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS docs (
	id         INTEGER PRIMARY KEY,
	archive_id INTEGER NOT NULL REFERENCES archives(id),
	pos        INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	role       TEXT NOT NULL,
	ts         INTEGER NOT NULL,
	text_id    INTEGER NOT NULL REFERENCES texts(id)
);
CREATE INDEX IF NOT EXISTS docs_archive ON docs(archive_id, pos);
CREATE INDEX IF NOT EXISTS docs_text ON docs(text_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize='trigram');
`

// The text of a row is stored once however many archives hold it (the
// current context, checkpoints, history and snapshots of one session
// repeat most of it): texts maps the hash of a row's kind and text to the
// FTS row that holds the text (same id), and each docs row points to it.
// A text leaves fts when the last row pointing to it goes.

// Open opens (creating it if needed) the index database. A file that is not
// a SQLite database, is damaged or has a newer schema version is moved
// aside and a new, empty index is created (Index.Rebuilt names the old
// file); one of an older schema version is emptied in place. The next
// Update fills it again.
func Open(opts Options) (*Index, error) {
	if opts.Home == "" {
		return nil, fmt.Errorf("index: open: no home directory")
	}
	path := opts.Path
	if path == "" {
		path = DefaultPath(opts.Home)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("index: open %s: %w", path, err)
	}
	x, err := open(path)
	if err == nil {
		x.home, x.key = opts.Home, opts.Key
		return x, nil
	}
	if !damaged(err) {
		return nil, err
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
	if rerr := os.Rename(path, aside); rerr != nil {
		return nil, fmt.Errorf("index: %s is damaged (%w) and could not be moved aside: %w", path, err, rerr)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		_ = os.Rename(path+ext, aside+ext)
	}
	x, err = open(path)
	if err != nil {
		return nil, err
	}
	x.home, x.key, x.Rebuilt = opts.Home, opts.Key, aside
	return x, nil
}

// errDamaged marks a database that must be rebuilt.
var errDamaged = errors.New("index: database damaged")

// damaged reports whether err says the file is not a usable database:
// errDamaged, or SQLite's SQLITE_CORRUPT or SQLITE_NOTADB (with any
// extended code).
func damaged(err error) bool {
	if errors.Is(err, errDamaged) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB
}

func open(path string) (*Index, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("index: %s is not a regular file (a symlink or device is never opened)", path)
	case errors.Is(err, os.ErrNotExist):
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("index: create %s: %w", path, err)
		}
		if f != nil {
			f.Close()
		}
	case err != nil:
		return nil, fmt.Errorf("index: %s: %w", path, err)
	default:
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return nil, fmt.Errorf("index: chmod %s: %w", path, err)
			}
		}
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "synchronous(normal)")
	q.Add("_pragma", "foreign_keys(on)")
	q.Add("_pragma", "cache_size(-32768)")
	q.Add("_pragma", "mmap_size(268435456)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %w", path, err)
	}
	x := &Index{db: db, path: path}
	// Two processes opening a new database at once can meet where SQLite
	// returns SQLITE_BUSY without waiting (the switch to WAL, a schema
	// upgrade from a shared lock): such an open is tried again until
	// BusyTimeout.
	for deadline := time.Now().Add(BusyTimeout); ; time.Sleep(20 * time.Millisecond) {
		err = x.init()
		if err == nil {
			return x, nil
		}
		if !busy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, fmt.Errorf("index: open %s: %w", path, err)
		}
	}
}

// busy reports whether err is SQLite's SQLITE_BUSY (primary result code
// 5, whatever its extended code).
func busy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

func (x *Index) init() error {
	ctx := context.Background()
	var v int
	if err := x.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > schemaVersion {
		return fmt.Errorf("%w: schema version %d, want %d", errDamaged, v, schemaVersion)
	}
	if v == schemaVersion {
		return nil
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v != 0 {
		// An older schema: the index is derived data, built again by the
		// next Update.
		for _, t := range []string{"fts", "docs", "texts", "archives", "projects", "pulled", "settings"} {
			if err := execAll(ctx, tx, "DROP TABLE IF EXISTS "+t); err != nil {
				return err
			}
		}
	}
	if err := execAll(ctx, tx, schema, fmt.Sprintf("PRAGMA user_version=%d", schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// Path is the database file.
func (x *Index) Path() string { return x.path }

// Close closes the database.
func (x *Index) Close() error {
	if x.db == nil {
		return ErrClosed
	}
	err := x.db.Close()
	x.db = nil
	return err
}

// AddProject records project directory dir (absolute) so that Update scans
// its store from now on.
func (x *Index) AddProject(ctx context.Context, dir string) error {
	_, err := x.projectID(ctx, x.db, dir)
	return err
}

// column reads the one column of every row of a query's result (rows,
// err: what QueryContext returned) and closes the rows.
func column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// inTx runs fn in one transaction and commits it. An error, fn's or the
// database's, is wrapped as "index: what: …".
func (x *Index) inTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		if err = fn(tx); err == nil {
			err = tx.Commit()
		}
	}
	if err != nil {
		return fmt.Errorf("index: %s: %w", what, err)
	}
	return nil
}

// execAll runs each statement of queries in tx, in order.
func execAll(ctx context.Context, tx *sql.Tx, queries ...string) error {
	for _, q := range queries {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (x *Index) projectID(ctx context.Context, e execer, dir string) (int64, error) {
	if _, err := e.ExecContext(ctx, `INSERT INTO projects(dir, added) VALUES(?, ?) ON CONFLICT(dir) DO NOTHING`, dir, time.Now().Unix()); err != nil {
		return 0, fmt.Errorf("index: record project %s: %w", dir, err)
	}
	var id int64
	if err := e.QueryRowContext(ctx, `SELECT id FROM projects WHERE dir = ?`, dir).Scan(&id); err != nil {
		return 0, fmt.Errorf("index: project %s: %w", dir, err)
	}
	return id, nil
}
