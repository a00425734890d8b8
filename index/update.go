package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"

	// The Claude Code importer rebuilds a conversation stored as pointers
	// into the raw transcript (archive.RegisterDeriver).
	_ "github.com/ben10ctx/ben10/transcript/claude"
)

// Archive statuses.
const (
	StatusIndexed   = "indexed"
	StatusEncrypted = "encrypted" // not indexed: its text stays encrypted
	StatusSkipped   = "skipped"   // unreadable: corrupt, truncated or unknown
)

// Archive kinds, from where the archive sits in its store.
const (
	ArchiveCurrent    = "current"
	ArchiveCheckpoint = "checkpoint"
	ArchiveHistory    = "history"
	ArchiveSnapshot   = "snapshot"
	ArchiveNamed      = "named"
)

// Stats count what an Update did.
type Stats struct {
	Projects  int      `json:"projects"`
	Added     int      `json:"added"`     // archives indexed for the first time or again after a change
	Unchanged int      `json:"unchanged"` // archives already indexed as they are
	Removed   int      `json:"removed"`   // archives gone from disk, dropped from the index
	Encrypted int      `json:"encrypted"` // encrypted archives seen (never indexed)
	Skipped   int      `json:"skipped"`   // unreadable archives seen
	Rows      int      `json:"rows"`      // rows written
	Problems  []string `json:"problems,omitempty"`
}

// UpdateOptions control Update.
type UpdateOptions struct {
	// Projects are project directories to scan (and to remember).
	Projects []string
	// Only scans just Projects; otherwise every project the index knows
	// and every fallback store under ~/.claude-code/contexts/ is scanned
	// too, and archives gone from disk are dropped.
	Only bool
}

// Update brings the index up to date with the archives on disk: new and
// changed archives are indexed, archives gone from disk are dropped.
// Unreadable and encrypted archives are counted, not indexed. Update
// stops early with ctx's error when ctx is cancelled; what it wrote until
// then is consistent (one transaction per archive).
func (x *Index) Update(ctx context.Context, opts UpdateOptions) (Stats, error) {
	if x.db == nil {
		return Stats{}, ErrClosed
	}
	var st Stats
	noted, pulled, taken := takeNotes(x.home)
	key := x.authKey()
	if err := x.checkKey(ctx, key); err != nil {
		return st, err
	}
	if err := x.addPulled(ctx, pulled); err != nil {
		return st, err
	}
	known, err := x.indexed(ctx)
	if err != nil {
		return st, err
	}
	for _, p := range noted {
		if c, err := store.CanonicalDir(p); err == nil {
			opts.Projects = append(opts.Projects[:len(opts.Projects):len(opts.Projects)], c)
		} // a project gone since: the full scan drops its archives
	}
	projects, err := x.projects(ctx, opts)
	if err != nil {
		return st, err
	}
	seen := map[string]bool{}
	if !opts.Only {
		if err := x.updatePulled(ctx, seen, known, &st); err != nil {
			return st, err
		}
	}
	for _, dir := range projects {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		files, err := x.storeFiles(dir)
		if err != nil {
			st.Problems = append(st.Problems, err.Error())
			continue
		}
		if err := x.indexProject(ctx, dir, files, seen, known, &st); err != nil {
			return st, err
		}
	}
	for _, f := range taken {
		_ = os.Remove(f) // their projects are indexed
	}
	if !opts.Only {
		n, err := x.dropMissing(ctx, seen)
		st.Removed += n
		if err != nil {
			return st, err
		}
	}
	if st.Added+st.Removed > 0 {
		return st, x.mergeIfFragmented(ctx)
	}
	return st, nil
}

// indexProject indexes files, the archives of project directory dir (a
// project of the index once it has one), marking each seen.
func (x *Index) indexProject(ctx context.Context, dir string, files []storeFile, seen map[string]bool, known map[string]archiveRow, st *Stats) error {
	if len(files) == 0 {
		return nil
	}
	st.Projects++
	pid, err := x.projectID(ctx, x.db, dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		seen[f.path] = true
		if err := x.indexFile(ctx, pid, f, known, st); err != nil {
			return err
		}
	}
	return nil
}

// Each indexed archive adds a segment to the full-text index (SQLite
// merges four of a level into one of the next), and a search seeks every
// term in every segment: with the 9 segments a rebuild of a 1 GB history
// left, searches took twice the CPU of one segment. An Update that leaves
// more than maxSegments merges them toward one, about mergePages pages
// (4 KiB each) per Update, so that no single save pays for rewriting a
// large index; the next Updates finish the merge.
const (
	maxSegments = 8
	mergePages  = 2000
)

// mergeIfFragmented merges the full-text index when it has more than
// maxSegments segments.
func (x *Index) mergeIfFragmented(ctx context.Context) error {
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM fts_idx`).Scan(&n); err != nil {
		return fmt.Errorf("index: counting the full-text index's segments: %w", err)
	}
	if n <= maxSegments {
		return nil
	}
	return x.merge(ctx, mergePages)
}

// merge merges the full-text index's segments toward one, writing at
// most about pages pages; pages < 0 merges them all (FTS5's 'optimize').
func (x *Index) merge(ctx context.Context, pages int) error {
	var err error
	if pages < 0 {
		_, err = x.db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES('optimize')`)
	} else {
		_, err = x.db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES('merge', ?)`, -pages)
	}
	if err != nil {
		return fmt.Errorf("index: merging the full-text index: %w", err)
	}
	return nil
}

// projects lists the project directories to scan, canonical and deduplicated.
func (x *Index) projects(ctx context.Context, opts UpdateOptions) ([]string, error) {
	set := map[string]bool{}
	for _, p := range opts.Projects {
		c, err := store.CanonicalDir(p)
		if err != nil {
			return nil, fmt.Errorf("index: project %s: %w", p, err)
		}
		set[c] = true
	}
	if !opts.Only {
		dirs, err := column[string](x.db.QueryContext(ctx, `SELECT dir FROM projects`))
		if err != nil {
			return nil, fmt.Errorf("index: list projects: %w", err)
		}
		for _, d := range dirs {
			if !inPullArea(x.home, d) { // scanned by updatePulled
				set[d] = true
			}
		}
		for _, d := range FallbackProjects(x.home) {
			set[d] = true
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// FallbackProjects lists the projects of the fallback stores under
// ~/.claude-code/contexts/ (each records its project in a file "project").
func FallbackProjects(home string) []string {
	base := filepath.Join(home, ".claude-code", "contexts")
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		b, err := store.ReadFileBounded(filepath.Join(base, e.Name(), store.ProjectName), 4096)
		if err != nil {
			continue
		}
		if p := strings.TrimSpace(string(b)); filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

type storeFile struct {
	path   string
	kind   string
	size   int64
	mod    time.Time
	source string // where the archive came from, when not this user's own saves
}

// storeFiles lists the archives of dir's stores (primary and fallback):
// what snapshot.Archives lists in each.
func (x *Index) storeFiles(dir string) ([]storeFile, error) {
	roots := []string{}
	if s, err := store.Open(dir, store.Options{Home: x.home, ReadOnly: true}); err == nil {
		roots = append(roots, s.Root(), s.PrimaryDir())
	} else if _, serr := os.Stat(dir); serr == nil {
		return nil, fmt.Errorf("index: store of %s: %w", dir, err)
	}
	roots = append(roots, store.FallbackDir(x.home, dir))
	var out []storeFile
	done := map[string]bool{}
	for _, r := range roots {
		if done[r] {
			continue
		}
		done[r] = true
		if fi, err := os.Lstat(r); err != nil || !fi.IsDir() {
			continue
		}
		all, _ := snapshot.Archives(r) // what cannot be listed is not indexed
		for _, a := range all {
			if a.Path != "" {
				out = append(out, storeFile{path: a.Path, kind: a.Kind, size: a.Size, mod: a.ModTime})
			}
		}
	}
	return out, nil
}

// ctxFiles lists the archives (regular *.ctx files, not a writer's
// temporary file) in directory d, of kind and source.
func ctxFiles(d, kind, source string) []storeFile {
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var out []storeFile
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".ctx") || strings.HasPrefix(e.Name(), store.TempPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			out = append(out, storeFile{path: filepath.Join(d, e.Name()), kind: kind, size: fi.Size(), mod: fi.ModTime(), source: source})
		}
	}
	return out
}

type archiveRow struct {
	id          int64
	hash        string
	size, mtime int64
	status      string
}

// indexed maps the path of every archive in the index to its row: an
// Update reads them once (one query, not two per archive).
func (x *Index) indexed(ctx context.Context) (map[string]archiveRow, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT path, id, hash, size, mtime, status FROM archives`)
	if err != nil {
		return nil, fmt.Errorf("index: list archives: %w", err)
	}
	defer rows.Close()
	m := map[string]archiveRow{}
	for rows.Next() {
		var p string
		var r archiveRow
		if err := rows.Scan(&p, &r.id, &r.hash, &r.size, &r.mtime, &r.status); err != nil {
			return nil, fmt.Errorf("index: list archives: %w", err)
		}
		m[p] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: list archives: %w", err)
	}
	return m, nil
}

// indexFile indexes one archive unless it is unchanged (known holds the
// indexed archives, see indexed).
func (x *Index) indexFile(ctx context.Context, pid int64, f storeFile, known map[string]archiveRow, st *Stats) error {
	old, isKnown := known[f.path]
	if isKnown && old.size == f.size && old.mtime == f.mod.UnixNano() {
		st.Unchanged++
		countStatus(old.status, st)
		return nil
	}
	// skip counts the archive as unreadable, saying why.
	skip := func(why any) error {
		st.Skipped++
		st.Problems = append(st.Problems, fmt.Sprintf("%s: %v", f.path, why))
		return nil
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return skip(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return skip("not a regular file")
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(fh, 0, fi.Size())); err != nil {
		return skip(err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if isKnown && old.hash == sum {
		st.Unchanged++
		if _, err := x.db.ExecContext(ctx, `UPDATE archives SET size = ?, mtime = ? WHERE id = ?`, fi.Size(), fi.ModTime().UnixNano(), old.id); err != nil {
			return fmt.Errorf("index: %s: %w", f.path, err)
		}
		countStatus(old.status, st)
		return nil
	}
	rec := archiveRecord{pid: pid, path: f.path, hash: sum, size: fi.Size(), mtime: fi.ModTime().UnixNano(), kind: f.kind, source: f.source}
	team := f.source != ""
	if !team {
		if team, err = x.isPulled(ctx, sum); err != nil {
			return err
		}
	}
	rows, err := readArchive(fh, fi.Size(), &rec, x.authKey(), team)
	switch rec.status {
	case StatusEncrypted:
		st.Encrypted++
	case StatusSkipped:
		skip(err)
	default:
		st.Added++
		st.Rows += len(rows)
	}
	return x.write(ctx, rec, rows)
}

// countStatus counts an unchanged archive of status s in st.
func countStatus(s string, st *Stats) {
	switch s {
	case StatusEncrypted:
		st.Encrypted++
	case StatusSkipped:
		st.Skipped++
	}
}

type archiveRecord struct {
	pid                int64
	path, hash, kind   string
	size, mtime        int64
	status, problem    string
	session, assistant string
	title, source      string
	trust              string
	firstTS, lastTS    int64
}

// readArchive opens the archive and extracts its rows, setting rec's
// status, identity and trust (authenticated with key; team: pulled team
// content). A hostile archive is an error, never a panic.
func readArchive(ra io.ReaderAt, size int64, rec *archiveRecord, key *archive.AuthKey, team bool) (rows []Row, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("archive decoder panicked: %v", p)
			rec.status, rec.problem = StatusSkipped, err.Error()
		}
	}()
	a, err := archive.Open(ra, size, archive.OpenOptions{})
	if err != nil {
		if errors.Is(err, ctxfmt.ErrKeyRequired) {
			rec.status = StatusEncrypted
			return nil, nil
		}
		rec.status, rec.problem = StatusSkipped, err.Error()
		return nil, err
	}
	defer a.Close()
	if a.Container().Encrypted() {
		rec.status = StatusEncrypted
		return nil, nil
	}
	rec.trust = TrustOf(a, key, team)
	m := a.Meta()
	rec.session, rec.assistant, rec.title = m.SessionID, string(m.Harness), m.Title
	rec.firstTS, rec.lastTS = unixMilli(m.FirstActivity), unixMilli(m.LastActivity)
	rows, err = Extract(a)
	if err != nil {
		rec.status, rec.problem = StatusSkipped, err.Error()
		return nil, err
	}
	rec.status = StatusIndexed
	return rows, nil
}

// write replaces the archive's rows in one transaction.
func (x *Index) write(ctx context.Context, rec archiveRecord, rows []Row) error {
	return x.inTx(ctx, rec.path, func(tx *sql.Tx) error {
		// The texts the old version held are dropped only after the new
		// rows are in: a grown current.ctx keeps the full-text rows it
		// shares.
		old, err := deleteArchive(ctx, tx, rec.path)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO archives(project_id, path, hash, size, mtime, kind, status, problem, session, assistant, title, first_ts, last_ts, nrows, source, trust)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			rec.pid, rec.path, rec.hash, rec.size, rec.mtime, rec.kind, rec.status, rec.problem, rec.session, rec.assistant, rec.title, rec.firstTS, rec.lastTS, len(rows), rec.source, rec.trust)
		if err != nil {
			return err
		}
		aid, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			if err := insertRows(ctx, tx, aid, rows); err != nil {
				return err
			}
		}
		return dropUnused(ctx, tx, old)
	})
}

// insertRows adds the rows of archive aid, each text stored once.
func insertRows(ctx context.Context, tx *sql.Tx, aid int64, rows []Row) error {
	find, err := tx.PrepareContext(ctx, `SELECT id FROM texts WHERE h = ?`)
	if err != nil {
		return err
	}
	defer find.Close()
	addText, err := tx.PrepareContext(ctx, `INSERT INTO texts(h) VALUES(?)`)
	if err != nil {
		return err
	}
	defer addText.Close()
	ft, err := tx.PrepareContext(ctx, `INSERT INTO fts(rowid, text) VALUES(?,?)`)
	if err != nil {
		return err
	}
	defer ft.Close()
	doc, err := tx.PrepareContext(ctx, `INSERT INTO docs(archive_id, pos, kind, role, ts, text_id) VALUES(?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	defer doc.Close()
	for _, r := range rows {
		h := textHash(r.Kind, r.Text)
		var tid int64
		err := find.QueryRowContext(ctx, h).Scan(&tid)
		if errors.Is(err, sql.ErrNoRows) {
			res, err := addText.ExecContext(ctx, h)
			if err != nil {
				return fmt.Errorf("row %d: %w", r.Pos, err)
			}
			if tid, err = res.LastInsertId(); err != nil {
				return fmt.Errorf("row %d: %w", r.Pos, err)
			}
			if _, err := ft.ExecContext(ctx, tid, r.Text); err != nil {
				return fmt.Errorf("row %d: %w", r.Pos, err)
			}
		} else if err != nil {
			return fmt.Errorf("row %d: %w", r.Pos, err)
		}
		if _, err := doc.ExecContext(ctx, aid, r.Pos, r.Kind, r.Role, unixMilli(r.Time), tid); err != nil {
			return fmt.Errorf("row %d: %w", r.Pos, err)
		}
	}
	return nil
}

// deleteArchive drops the archive at path and its rows; it returns the
// texts those rows pointed to, for dropUnused.
func deleteArchive(ctx context.Context, tx *sql.Tx, path string) ([]int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM archives WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	tids, err := column[int64](tx.QueryContext(ctx, `SELECT DISTINCT text_id FROM docs WHERE archive_id = ?`, id))
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE archive_id = ?`, id); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM archives WHERE id = ?`, id)
	return tids, err
}

// dropUnused removes the texts among tids that no row points to any more.
func dropUnused(ctx context.Context, tx *sql.Tx, tids []int64) error {
	if len(tids) == 0 {
		return nil
	}
	used, err := tx.PrepareContext(ctx, `SELECT EXISTS (SELECT 1 FROM docs WHERE text_id = ?)`)
	if err != nil {
		return err
	}
	defer used.Close()
	for _, t := range tids {
		var still bool
		if err := used.QueryRowContext(ctx, t).Scan(&still); err != nil {
			return err
		}
		if still {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM fts WHERE rowid = ?`, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM texts WHERE id = ?`, t); err != nil {
			return err
		}
	}
	return nil
}

// dropMissing removes the archives not seen in this scan whose file is gone.
func (x *Index) dropMissing(ctx context.Context, seen map[string]bool) (int, error) {
	paths, err := column[string](x.db.QueryContext(ctx, `SELECT path FROM archives`))
	if err != nil {
		return 0, fmt.Errorf("index: list archives: %w", err)
	}
	var gone []string
	for _, p := range paths {
		if _, err := os.Lstat(p); !seen[p] && errors.Is(err, os.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	for _, p := range gone {
		if err := x.Remove(ctx, p); err != nil {
			return 0, err
		}
	}
	return len(gone), nil
}

// Remove drops the archive at path from the index.
func (x *Index) Remove(ctx context.Context, path string) error {
	return x.inTx(ctx, "remove "+path, func(tx *sql.Tx) error {
		tids, err := deleteArchive(ctx, tx, path)
		if err != nil {
			return err
		}
		return dropUnused(ctx, tx, tids)
	})
}

// Rebuild empties the index (keeping the projects it knows) and indexes
// every archive again. Its result equals an incremental Update's.
func (x *Index) Rebuild(ctx context.Context, opts UpdateOptions) (Stats, error) {
	if x.db == nil {
		return Stats{}, ErrClosed
	}
	err := x.inTx(ctx, "rebuild", func(tx *sql.Tx) error {
		return execAll(ctx, tx, `DELETE FROM fts`, `DELETE FROM docs`, `DELETE FROM texts`, `DELETE FROM archives`)
	})
	if err != nil {
		return Stats{}, err
	}
	opts.Only = false
	st, err := x.Update(ctx, opts)
	if err != nil {
		return st, err
	}
	return st, x.merge(ctx, -1)
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
