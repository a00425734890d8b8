package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Highlight marks surround the matched text in Hit.Snippet.
const (
	MarkStart = "«"
	MarkEnd   = "»"
)

// ErrBadQuery is returned for a query that cannot match anything.
var ErrBadQuery = errors.New("index: bad query")

// ErrNoRef is returned by Show for a reference the index does not hold.
var ErrNoRef = errors.New("index: no such reference")

// Query is a search.
type Query struct {
	// Text is matched as substrings: every whitespace-separated term (or
	// "quoted phrase") must occur, case-insensitively; each needs at
	// least three characters.
	Text string
	// Project limits the search to one project directory (canonical).
	Project string
	// Assistant limits it to one assistant ("claude", "codex", …).
	Assistant string
	// Session limits it to sessions whose id starts with Session.
	Session string
	// Kinds limits it to rows of these kinds (Kind constants).
	Kinds []string
	// ArchiveKinds limits it to archives of these kinds (ArchiveCurrent,
	// ArchiveSnapshot, …).
	ArchiveKinds []string
	// Since drops rows older than Since.
	Since time.Time
	// Limit is the number of hits (default 10).
	Limit int
	// Unauthenticated includes hits from archives that are not trusted
	// (see Trusted), marked by Hit.Trust. Without it they are left out
	// and counted in Result.Withheld.
	Unauthenticated bool
}

// Result is what Search returns.
type Result struct {
	Hits []Hit `json:"hits"`
	// Withheld counts the distinct hits left out because their archive
	// is not trusted (among the candidates Search read).
	Withheld Withheld `json:"withheld,omitempty"`
}

// Hit is one search result.
type Hit struct {
	Ref       string `json:"ref"` // for Show: archive hash prefix ":" position
	Project   string `json:"project"`
	Session   string `json:"session"`
	Assistant string `json:"assistant"`
	Title     string `json:"title,omitempty"`
	Archive   string `json:"archive"`
	// Source is where the archive came from when it is not one of this
	// user's own saves: "remote:<remote name>/<project key>" for an
	// archive pulled from a team remote into the pull area.
	Source string `json:"source,omitempty"`
	// Trust is the archive's (TrustUser, TrustTeam, …).
	Trust   string    `json:"trust"`
	Kind    string    `json:"kind"`
	Role    string    `json:"role"`
	Time    time.Time `json:"time"`
	Snippet string    `json:"snippet"`
	Score   float64   `json:"score"`
}

// refHashLen is how many hex digits of the archive hash a Ref carries.
const refHashLen = 16

// FTSQuery turns a user query into an FTS5 match expression: each term a
// quoted string (so flags, paths and operators are literal) that must
// occur. A term of fewer than three characters cannot use the trigram
// index: a query with one ("go test") is matched as one substring, the
// whole query, instead. A long query is narrowed to its longest words (at
// most maxMatchTerms, each cut to maxMatchLen bytes) for the index; Search
// then checks the whole query against each candidate.
func FTSQuery(q string) (string, error) {
	terms := queryTerms(q)
	if len(terms) == 0 {
		return "", fmt.Errorf("%w: %q: give at least three characters", ErrBadQuery, q)
	}
	terms = matchTerms(terms)
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " "), nil
}

const (
	maxMatchTerms = 4
	maxMatchLen   = 48
)

// matchTerms narrows terms for the index: short ones stay as they are;
// otherwise the longest words of them, cut to maxMatchLen.
func matchTerms(terms []string) []string {
	long := false
	for _, t := range terms {
		long = long || len(t) > maxMatchLen
	}
	if len(terms) <= maxMatchTerms && !long {
		return terms
	}
	var words []string
	seen := map[string]bool{}
	for _, t := range terms {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '"' }) {
			if len(w) > maxMatchLen {
				w = w[:maxMatchLen]
				for len(w) > 0 && !utf8.ValidString(w) {
					w = w[:len(w)-1]
				}
			}
			if utf8.RuneCountInString(w) >= 3 && !seen[strings.ToLower(w)] {
				seen[strings.ToLower(w)] = true
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		return terms
	}
	sort.SliceStable(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	return words[:min(len(words), maxMatchTerms)]
}

// contains tells whether text holds every term, ignoring case.
func containsAll(text string, terms []string) bool {
	lt := strings.ToLower(text)
	for _, t := range terms {
		if !strings.Contains(lt, strings.ToLower(t)) && !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

// queryTerms are the substrings a query looks for.
func queryTerms(q string) []string {
	terms := splitTerms(q)
	for _, t := range terms {
		if len([]rune(t)) < 3 {
			whole := strings.TrimSpace(q)
			if len([]rune(whole)) < 3 {
				return nil
			}
			return []string{whole}
		}
	}
	return terms
}

// splitTerms splits on whitespace, keeping "quoted phrases" together.
func splitTerms(q string) []string {
	var out []string
	for q = strings.TrimSpace(q); q != ""; q = strings.TrimSpace(q) {
		if q[0] == '"' {
			if end := strings.IndexByte(q[1:], '"'); end >= 0 {
				out = append(out, q[1:1+end])
				q = q[end+2:]
				continue
			}
			q = q[1:]
			continue
		}
		end := strings.IndexAny(q, " \t\r\n")
		if end < 0 {
			end = len(q)
		}
		out = append(out, q[:end])
		q = q[end:]
	}
	return out
}

// Search returns the best hits for q, best first: bm25 rank, then the most
// recent. The same text of the same session (kept in several archives: the
// current context, checkpoints, history, snapshots) is one hit, from its
// newest trusted archive. Hits from archives that are not trusted are
// left out and counted unless q.Unauthenticated.
func (x *Index) Search(ctx context.Context, q Query) (Result, error) {
	if x.db == nil {
		return Result{}, ErrClosed
	}
	match, err := FTSQuery(q.Text)
	if err != nil {
		return Result{}, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	terms := queryTerms(q.Text)
	cond, args := "", []any{match}
	add := func(c string, vals ...any) { cond, args = cond+" AND "+c, append(args, vals...) }
	if q.Project != "" {
		add("p.dir = ?", q.Project)
	}
	if q.Assistant != "" {
		add("a.assistant = ?", q.Assistant)
	}
	if q.Session != "" {
		add("a.session LIKE ? ESCAPE '\\'", likePrefix(q.Session))
	}
	if !q.Since.IsZero() {
		add("d.ts >= ?", unixMilli(q.Since))
	}
	if len(q.Kinds) > 0 {
		c, vals := inList("d.kind", q.Kinds)
		add(c, vals...)
	}
	if len(q.ArchiveKinds) > 0 {
		c, vals := inList("a.kind", q.ArchiveKinds)
		add(c, vals...)
	}
	// Fetch more than asked: duplicates across archives collapse below,
	// and candidates that lack the query are dropped; when too few are
	// left, ask again for more.
	for fetch := limit*8 + 16; ; fetch *= 4 {
		res, n, err := x.searchRows(ctx, q, match, cond, append(args[:len(args):len(args)], fetch), terms, limit)
		if err != nil || len(res.Hits) >= limit || n < fetch || fetch >= maxFetch {
			if len(res.Hits) > limit {
				res.Hits = res.Hits[:limit]
			}
			return res, err
		}
	}
}

// maxFetch bounds the candidate rows one search reads.
const maxFetch = 1 << 16

// searchRows runs the search for at most fetch candidate rows; it returns
// the distinct hits among them, best first (at most limit), those
// withheld, and the number of rows read.
//
// The ranked query reads no text: SQLite's sorter would copy the text of
// every matching row. The texts of the hits returned are read afterwards,
// each once.
func (x *Index) searchRows(ctx context.Context, q Query, match, cond string, args []any, terms []string, limit int) (Result, int, error) {
	rows, err := x.db.QueryContext(ctx, `
		SELECT bm25(fts) AS score, d.pos, d.kind, d.role, d.ts, d.text_id,
		       a.session, a.assistant, a.title, a.hash, a.path, a.last_ts, p.dir, a.source, a.trust
		FROM fts
		JOIN docs d ON d.text_id = fts.rowid
		JOIN archives a ON a.id = d.archive_id
		JOIN projects p ON p.id = a.project_id
		WHERE fts MATCH ?`+cond+`
		ORDER BY score, d.ts DESC, a.path, d.pos
		LIMIT ?`, args...)
	if err != nil {
		return Result{}, 0, fmt.Errorf("index: search %q: %w", q.Text, err)
	}
	defer rows.Close()
	type key struct {
		project, session string
		h                int64
	}
	type cand struct {
		Hit
		pos, tid, last int64
		hash           string
	}
	best := map[key]int{}
	withheld := map[key]string{}
	var cands []cand
	n := 0
	for rows.Next() {
		n++
		var c cand
		var ts int64
		if err := rows.Scan(&c.Score, &c.pos, &c.Kind, &c.Role, &ts, &c.tid, &c.Session, &c.Assistant, &c.Title, &c.hash, &c.Archive, &c.last, &c.Project, &c.Source, &c.Trust); err != nil {
			return Result{}, n, fmt.Errorf("index: search %q: %w", q.Text, err)
		}
		c.Time = fromMilli(ts)
		k := key{c.Project, c.Session, c.tid}
		if c.Session == "" {
			k.session = c.Archive
		}
		trusted := Trusted(c.Trust)
		if !trusted && !q.Unauthenticated {
			withheld[k] = c.Trust
			continue
		}
		if i, ok := best[k]; ok {
			// The newest trusted archive holding this text.
			if old := Trusted(cands[i].Trust); trusted && !old || trusted == old && c.last > cands[i].last {
				c.Score = cands[i].Score
				cands[i] = c
			}
			continue
		}
		best[k] = len(cands)
		cands = append(cands, c)
	}
	if err := rows.Err(); err != nil {
		return Result{}, n, fmt.Errorf("index: search %q: %w", q.Text, err)
	}
	rows.Close()
	var res Result
	texts := map[int64]string{}
	for _, c := range cands {
		if len(res.Hits) == limit {
			break
		}
		text, ok := texts[c.tid]
		if !ok {
			if text, err = x.text(ctx, c.tid); err != nil {
				return Result{}, n, fmt.Errorf("index: search %q: %w", q.Text, err)
			}
			texts[c.tid] = text
		}
		if !containsAll(text, terms) {
			continue // a candidate of the narrowed match that lacks the whole query
		}
		h := c.Hit
		h.Snippet = Snippet(text, terms, SnippetLen)
		h.Ref = c.hash[:min(refHashLen, len(c.hash))] + ":" + strconv.FormatInt(c.pos, 10)
		res.Hits = append(res.Hits, h)
	}
	res.Withheld = withheldOf(withheld, best) // not the texts a trusted archive holds too
	return res, n, nil
}

// text is the text of full-text row id.
func (x *Index) text(ctx context.Context, id int64) (string, error) {
	texts, err := column[string](x.db.QueryContext(ctx, `SELECT text FROM fts WHERE rowid = ?`, id))
	if err == nil && len(texts) == 0 {
		err = fmt.Errorf("no text %d", id)
	}
	if err != nil {
		return "", err
	}
	return texts[0], nil
}

// SnippetLen is the length of a Hit's snippet, in bytes, about.
const SnippetLen = 240

// Snippet cuts text to about n bytes around the first occurrence of one of
// terms (case-insensitive) and marks every occurrence in it with MarkStart
// and MarkEnd.
func Snippet(text string, terms []string, n int) string {
	lower := strings.ToLower(text)
	if len(lower) != len(text) { // case folding moved bytes: match as is
		lower = text
	}
	first := -1
	for _, t := range terms {
		if i := strings.Index(lower, strings.ToLower(t)); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	start, end := 0, len(text)
	if len(text) > n {
		start = max(0, first-n/3)
		end = min(len(text), start+n)
		for start > 0 && !utf8.RuneStart(text[start]) {
			start--
		}
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	win, lwin := text[start:end], lower[start:end]
	for i := 0; i < len(win); {
		mlen := 0
		for _, t := range terms {
			if lt := strings.ToLower(t); lt != "" && strings.HasPrefix(lwin[i:], lt) && len(lt) > mlen {
				mlen = len(lt)
			}
		}
		if mlen > 0 {
			b.WriteString(MarkStart + win[i:i+mlen] + MarkEnd)
			i += mlen
			continue
		}
		b.WriteByte(win[i])
		i++
	}
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// inList is the condition "col IN (?, …)" for vals, and its arguments.
func inList(col string, vals []string) (string, []any) {
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",") + ")", args
}

func likePrefix(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s) + "%"
}

// Context is what Show returns: the rows around a reference.
type Context struct {
	Ref       string    `json:"ref"`
	Project   string    `json:"project"`
	Session   string    `json:"session"`
	Assistant string    `json:"assistant"`
	Title     string    `json:"title,omitempty"`
	Archive   string    `json:"archive"`
	Source    string    `json:"source,omitempty"` // as in Hit
	Trust     string    `json:"trust"`            // as in Hit
	Rows      []ShowRow `json:"rows"`
}

// ShowRow is one row of a Context.
type ShowRow struct {
	Ref  string    `json:"ref"`
	Pos  int       `json:"pos"`
	Kind string    `json:"kind"`
	Role string    `json:"role"`
	Time time.Time `json:"time"`
	Text string    `json:"text"`
	Hit  bool      `json:"hit,omitempty"`
}

// ParseRef splits a reference "HASH:POS".
func ParseRef(ref string) (hash string, pos int, err error) {
	h, p, ok := strings.Cut(strings.TrimSpace(ref), ":")
	if !ok || len(h) < 8 || strings.Trim(strings.ToLower(h), "0123456789abcdef") != "" {
		return "", 0, fmt.Errorf("%w: %q is not a reference (HASH:POSITION, as search prints it)", ErrBadQuery, ref)
	}
	pos, err = strconv.Atoi(p)
	if err != nil || pos < 0 {
		return "", 0, fmt.Errorf("%w: %q: bad position %q", ErrBadQuery, ref, p)
	}
	return strings.ToLower(h), pos, nil
}

// ErrUnauthenticated is returned by Show for a reference into an archive
// that is not trusted (see Trusted); ShowAny serves it.
var ErrUnauthenticated = errors.New("index: archive not authenticated as this user's")

// Show returns the rows of ref's archive from before rows before it to after
// rows after it. A reference into an archive that is not trusted is an
// error wrapping ErrUnauthenticated, with the returned Context's header
// (no rows) saying which archive and its trust.
func (x *Index) Show(ctx context.Context, ref string, before, after int) (Context, error) {
	return x.show(ctx, ref, before, after, false)
}

// ShowAny is Show serving archives that are not trusted too (marked by
// Context.Trust): for a user who asks for them explicitly.
func (x *Index) ShowAny(ctx context.Context, ref string, before, after int) (Context, error) {
	return x.show(ctx, ref, before, after, true)
}

func (x *Index) show(ctx context.Context, ref string, before, after int, all bool) (Context, error) {
	if x.db == nil {
		return Context{}, ErrClosed
	}
	hash, pos, err := ParseRef(ref)
	if err != nil {
		return Context{}, err
	}
	var c Context
	var aid int64
	var full string
	err = x.db.QueryRowContext(ctx, `SELECT a.id, a.hash, a.session, a.assistant, a.title, a.path, p.dir, a.source, a.trust
		FROM archives a JOIN projects p ON p.id = a.project_id
		WHERE a.hash >= ? AND a.hash < ? AND a.status = ?
		ORDER BY a.trust IN (?, ?) DESC, a.last_ts DESC LIMIT 1`,
		hash, hash+"g", StatusIndexed, TrustUser, TrustTeam).Scan(&aid, &full, &c.Session, &c.Assistant, &c.Title, &c.Archive, &c.Project, &c.Source, &c.Trust)
	if errors.Is(err, sql.ErrNoRows) {
		return Context{}, fmt.Errorf("%w: %s (the archive left the index; search again)", ErrNoRef, ref)
	}
	if err != nil {
		return Context{}, fmt.Errorf("index: show %s: %w", ref, err)
	}
	c.Ref = ref
	if !all && !Trusted(c.Trust) {
		return c, fmt.Errorf("%w: %s is from %s (%s)", ErrUnauthenticated, ref, c.Archive, TrustReason(c.Trust))
	}
	before, after = max(before, 0), max(after, 0)
	rows, err := x.db.QueryContext(ctx, `SELECT d.pos, d.kind, d.role, d.ts, fts.text FROM docs d JOIN fts ON fts.rowid = d.text_id
		WHERE d.archive_id = ? AND d.pos BETWEEN ? AND ? ORDER BY d.pos`, aid, pos-before, pos+after)
	if err != nil {
		return Context{}, fmt.Errorf("index: show %s: %w", ref, err)
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var r ShowRow
		var ts int64
		if err := rows.Scan(&r.Pos, &r.Kind, &r.Role, &ts, &r.Text); err != nil {
			return Context{}, fmt.Errorf("index: show %s: %w", ref, err)
		}
		r.Time = fromMilli(ts)
		r.Ref = full[:min(refHashLen, len(full))] + ":" + strconv.Itoa(r.Pos)
		r.Hit = r.Pos == pos
		found = found || r.Hit
		c.Rows = append(c.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return Context{}, fmt.Errorf("index: show %s: %w", ref, err)
	}
	if !found {
		return Context{}, fmt.Errorf("%w: %s (no position %d in that archive)", ErrNoRef, ref, pos)
	}
	return c, nil
}

// Session is one archived session of a project, for listings.
type Session struct {
	Session   string    `json:"session"`
	Assistant string    `json:"assistant"`
	Title     string    `json:"title,omitempty"`
	Kind      string    `json:"kind"` // the newest archive's kind
	Archive   string    `json:"archive"`
	Size      int64     `json:"size"`
	First     time.Time `json:"first_activity"`
	Last      time.Time `json:"last_activity"`
	Request   string    `json:"first_request,omitempty"`
	Archives  int       `json:"archives"`
	Trust     string    `json:"trust"` // the newest archive's
}

// Sessions lists the sessions of project (all projects when empty) found in
// trusted archives (see Trusted) of the given kinds (all when empty),
// newest first; the sessions found only in archives that are not trusted
// are counted in the Withheld.
func (x *Index) Sessions(ctx context.Context, project string, kinds ...string) ([]Session, Withheld, error) {
	if x.db == nil {
		return nil, nil, ErrClosed
	}
	q := `SELECT a.session, a.assistant, a.title, a.kind, a.path, a.size, a.first_ts, a.last_ts, a.id, a.trust
		FROM archives a JOIN projects p ON p.id = a.project_id WHERE a.status = ?`
	args := []any{StatusIndexed}
	if project != "" {
		q += ` AND p.dir = ?`
		args = append(args, project)
	}
	if len(kinds) > 0 {
		in, vals := inList("a.kind", kinds)
		q, args = q+" AND "+in, append(args, vals...)
	}
	q += ` ORDER BY a.last_ts DESC, a.mtime DESC`
	rows, err := x.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("index: sessions: %w", err)
	}
	var out []Session
	ids := []int64{}
	bySession := map[string]int{}
	untrusted := map[string]string{}
	for rows.Next() {
		var s Session
		var first, last, id int64
		if err := rows.Scan(&s.Session, &s.Assistant, &s.Title, &s.Kind, &s.Archive, &s.Size, &first, &last, &id, &s.Trust); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("index: sessions: %w", err)
		}
		key := s.Session
		if key == "" {
			key = s.Archive
		}
		if !Trusted(s.Trust) {
			if _, ok := untrusted[key]; !ok {
				untrusted[key] = s.Trust
			}
			continue
		}
		if i, ok := bySession[key]; ok {
			out[i].Archives++
			continue
		}
		s.First, s.Last, s.Archives = fromMilli(first), fromMilli(last), 1
		bySession[key] = len(out)
		out = append(out, s)
		ids = append(ids, id)
	}
	rows.Close()
	for i, id := range ids {
		var text string
		err := x.db.QueryRowContext(ctx, `SELECT fts.text FROM docs d JOIN fts ON fts.rowid = d.text_id
			WHERE d.archive_id = ? AND d.kind = ? ORDER BY d.pos LIMIT 1`, id, KindUser).Scan(&text)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, nil, fmt.Errorf("index: sessions: %w", err)
		}
		out[i].Request = cut(text, 300)
	}
	return out, withheldOf(untrusted, bySession), nil
}

// Status describes the index.
type Status struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"` // database file and its WAL
	Projects  int    `json:"projects"`
	Archives  int    `json:"archives"`
	Indexed   int    `json:"indexed"`
	Encrypted int    `json:"encrypted"`
	Skipped   int    `json:"skipped"`
	Pulled    int    `json:"pulled"` // archives of the pull area (teammates'), any status
	// Trust counts the indexed archives by trust (TrustUser, TrustTeam,
	// TrustNoTag, …): only TrustUser and TrustTeam are served unasked.
	Trust    map[string]int `json:"trust"`
	Rows     int            `json:"rows"`
	Texts    int            `json:"texts"` // distinct texts: a text several archives hold is stored once
	Kinds    map[string]int `json:"kinds"`
	Problems []string       `json:"problems,omitempty"` // the skipped archives and why
}

// Status counts what the index holds.
func (x *Index) Status(ctx context.Context) (Status, error) {
	if x.db == nil {
		return Status{}, ErrClosed
	}
	s := Status{Path: x.path, Kinds: map[string]int{}, Trust: map[string]int{}}
	for _, ext := range []string{"", "-wal"} {
		if fi, err := os.Stat(x.path + ext); err == nil {
			s.Bytes += fi.Size()
		}
	}
	if err := x.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM projects p WHERE EXISTS (SELECT 1 FROM archives a WHERE a.project_id = p.id)),
		(SELECT count(*) FROM archives),
		(SELECT count(*) FROM archives WHERE status = ?),
		(SELECT count(*) FROM archives WHERE status = ?),
		(SELECT count(*) FROM archives WHERE status = ?),
		(SELECT count(*) FROM archives WHERE kind = ?),
		(SELECT count(*) FROM docs),
		(SELECT count(*) FROM texts)`, StatusIndexed, StatusEncrypted, StatusSkipped, ArchivePulled).
		Scan(&s.Projects, &s.Archives, &s.Indexed, &s.Encrypted, &s.Skipped, &s.Pulled, &s.Rows, &s.Texts); err != nil {
		return s, fmt.Errorf("index: status: %w", err)
	}
	for _, c := range []struct {
		q string
		m map[string]int
	}{
		{`SELECT kind, count(*) FROM docs GROUP BY kind`, s.Kinds},
		{`SELECT trust, count(*) FROM archives WHERE status = '` + StatusIndexed + `' GROUP BY trust`, s.Trust},
	} {
		rows, err := x.db.QueryContext(ctx, c.q)
		if err != nil {
			return s, fmt.Errorf("index: status: %w", err)
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return s, fmt.Errorf("index: status: %w", err)
			}
			c.m[k] = n
		}
		rows.Close()
	}
	probs, err := column[string](x.db.QueryContext(ctx, `SELECT path || ': ' || problem FROM archives WHERE status = ? ORDER BY path`, StatusSkipped))
	if err != nil {
		return s, fmt.Errorf("index: status: %w", err)
	}
	s.Problems = probs
	return s, nil
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Integrity string   `json:"integrity"` // "ok" or SQLite's findings
	Archives  int      `json:"archives"`
	Stale     []string `json:"stale,omitempty"`   // archives whose bytes changed since indexed
	Missing   []string `json:"missing,omitempty"` // archives gone from disk
	Problems  []string `json:"problems,omitempty"`
	// Unauthenticated lists the indexed archives that are not trusted
	// ("path: why"): their hits are withheld unless asked for. They do
	// not make the report fail: the index is right about them.
	Unauthenticated []string `json:"unauthenticated,omitempty"`
}

// OK tells a clean report.
func (r VerifyReport) OK() bool {
	return r.Integrity == "ok" && len(r.Stale) == 0 && len(r.Missing) == 0 && len(r.Problems) == 0
}

// Verify checks the database's integrity (SQLite's and the full-text
// index's) and that every indexed archive is still on disk with the bytes
// it was indexed from (by hash). It writes nothing.
func (x *Index) Verify(ctx context.Context) (VerifyReport, error) {
	if x.db == nil {
		return VerifyReport{}, ErrClosed
	}
	var r VerifyReport
	found, err := column[string](x.db.QueryContext(ctx, `PRAGMA integrity_check`))
	if err != nil {
		return r, fmt.Errorf("index: verify: %w", err)
	}
	r.Integrity = strings.Join(found, "; ")
	if _, err := x.db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)`); err != nil {
		r.Problems = append(r.Problems, "full-text index: "+err.Error())
	}
	var n int
	if err := x.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM texts) - (SELECT count(*) FROM fts)`).Scan(&n); err != nil {
		return r, fmt.Errorf("index: verify: %w", err)
	} else if n != 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d texts without their full-text row", n))
	}
	if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM docs d WHERE NOT EXISTS (SELECT 1 FROM texts t WHERE t.id = d.text_id)`).Scan(&n); err != nil {
		return r, fmt.Errorf("index: verify: %w", err)
	} else if n != 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d rows without their text", n))
	}
	ar, err := x.db.QueryContext(ctx, `SELECT path, hash, status, trust FROM archives ORDER BY path`)
	if err != nil {
		return r, fmt.Errorf("index: verify: %w", err)
	}
	type pa struct{ path, hash string }
	var all []pa
	for ar.Next() {
		var p pa
		var status, trust string
		if err := ar.Scan(&p.path, &p.hash, &status, &trust); err != nil {
			ar.Close()
			return r, fmt.Errorf("index: verify: %w", err)
		}
		all = append(all, p)
		if status == StatusIndexed && !Trusted(trust) {
			r.Unauthenticated = append(r.Unauthenticated, p.path+": "+TrustReason(trust))
		}
	}
	ar.Close()
	for _, p := range all {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.Archives++
		sum, err := fileHash(p.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			r.Missing = append(r.Missing, p.path)
		case err != nil:
			r.Problems = append(r.Problems, err.Error())
		case sum != p.hash:
			r.Stale = append(r.Stale, p.path)
		}
	}
	return r, nil
}

func textHash(kind, text string) int64 {
	return int64(xxhash.Sum64String(kind + "\x00" + text))
}

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
