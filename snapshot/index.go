package snapshot

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ben10ctx/ben10/store"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// IndexVersion is the version of index.json's schema.
const IndexVersion = "1"

// Snapshot is one pre-compaction snapshot's metadata: the PRD's
// CompactionSnapshot schema, as stored in index.json.
type Snapshot struct {
	ID        string    `json:"id"`   // pre-compact-YYYYMMDD-HHMMSS-<session prefix>
	File      string    `json:"file"` // file name inside compaction-snapshots/
	CreatedAt time.Time `json:"created_at"`
	SessionID string    `json:"session_id"`

	PreCompaction  PreCompaction  `json:"pre_compaction"`
	PostCompaction PostCompaction `json:"post_compaction"`

	Trigger string `json:"compaction_trigger"` // threshold | manual | memory_pressure
	Source  string `json:"source,omitempty"`   // hook | watcher | cli
	// HoldUntil: until then, a later snapshot of the same session replaces
	// this one instead of adding another (the watcher's cooldown, shared
	// with the PreCompact hook). Zero = only snapshot_debounce applies.
	HoldUntil time.Time `json:"hold_until,omitzero"`
	Ratio     float64   `json:"compaction_ratio"` // post/pre tokens; 0 until known

	ContentHash       string `json:"content_hash"` // SHA-256 of the archive file
	CompressedBytes   int64  `json:"compressed_size_bytes"`
	UncompressedBytes int64  `json:"uncompressed_size_bytes"`
	Level             string `json:"level,omitempty"` // compression level the file is stored at

	Pinned bool     `json:"pinned"`
	Tags   []string `json:"tags"`
	Notes  string   `json:"notes"`

	// Ben10's additions.
	Transcript   string `json:"transcript,omitempty"`    // the transcript the snapshot was taken from
	Harness      string `json:"harness,omitempty"`       // claude | codex | gemini | kimi
	FileContents int    `json:"file_contents,omitempty"` // project files captured
	Redactions   int    `json:"redactions,omitempty"`    // secrets replaced in the snapshot (also in lines copied from the archive it built on)

	placeholder bool // a pin remembered from .pinned while the index is rebuilt
}

// PreCompaction are the metrics of the context before compaction.
type PreCompaction struct {
	TokenCount         int64 `json:"token_count"`
	MessageCount       int   `json:"message_count"`
	FileCount          int   `json:"file_count"`
	ToolExecutionCount int   `json:"tool_execution_count"`
}

// PostCompaction are the metrics after compaction, once known.
type PostCompaction struct {
	TokenCount   int64 `json:"token_count"`
	MessageCount int   `json:"message_count"`
}

// Index is index.json: the PRD's CompactionSnapshotIndex.
type Index struct {
	Version        string     `json:"version"`
	Snapshots      []Snapshot `json:"snapshots"` // oldest first
	TotalSizeBytes int64      `json:"total_size_bytes"`
	LastPruned     time.Time  `json:"last_pruned"`
}

// IndexSummary is the first line of index.json: what status lines need,
// readable without decoding the snapshot list (see ReadSummary).
type IndexSummary struct {
	Version        string    `json:"version"`
	TotalSizeBytes int64     `json:"total_size_bytes"`
	LastPruned     time.Time `json:"last_pruned"`
	Count          int       `json:"snapshot_count"`
	Pinned         int       `json:"pinned_count"`
}

// summaryPrefix is how much of index.json ReadSummary reads.
const summaryPrefix = 4096

// MaxIndexBytes bounds index.json: a larger file (or a link, a FIFO, a
// device in its place) is refused before it is read.
const MaxIndexBytes = 256 << 20

// ReadSummary reads the counts at the head of index.json without decoding
// the snapshot list: status --brief stays fast however many snapshots
// there are. An index written otherwise (by hand, or an older build) is
// decoded whole. A missing file is an empty summary.
func ReadSummary(path string) (IndexSummary, error) {
	f, err := store.OpenFileRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return IndexSummary{Version: IndexVersion}, nil
	}
	if err != nil {
		return IndexSummary{}, err
	}
	defer f.Close()
	buf := make([]byte, summaryPrefix)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return IndexSummary{}, err
	}
	buf = buf[:n]
	if i := bytes.Index(buf, []byte(`,"snapshots":[`)); i > 0 && bytes.Contains(buf[:i], []byte(`"snapshot_count"`)) {
		var sum IndexSummary
		if json.Unmarshal(append(buf[:i:i], '}'), &sum) == nil && sum.Version == IndexVersion {
			return sum, nil
		}
	}
	data, err := store.ReadFileBounded(path, MaxIndexBytes)
	if err != nil {
		return IndexSummary{}, err
	}
	ix, err := ParseIndex(data)
	if err != nil {
		return IndexSummary{}, err
	}
	return IndexSummary{Version: ix.Version, TotalSizeBytes: ix.total(), LastPruned: ix.LastPruned, Count: len(ix.Snapshots), Pinned: ix.pinned()}, nil
}

// ErrNotFound and ErrAmbiguous are returned by Index.Resolve.
var (
	ErrNotFound  = errors.New("no such snapshot")
	ErrAmbiguous = errors.New("ambiguous snapshot id")
)

// ParseIndex decodes index.json. Empty input is an empty index.
func ParseIndex(data []byte) (*Index, error) {
	ix := &Index{Version: IndexVersion}
	if len(strings.TrimSpace(string(data))) == 0 {
		return ix, nil
	}
	if err := json.Unmarshal(data, ix); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	if ix.Version != IndexVersion {
		return nil, fmt.Errorf("index.json: version %q is not supported (this ben10 reads %q)", ix.Version, IndexVersion)
	}
	ix.sort()
	return ix, nil
}

// Marshal encodes the index as indented JSON, recomputing its total.
func (ix *Index) Marshal() []byte {
	ix.sort()
	ix.TotalSizeBytes = 0
	for i := range ix.Snapshots {
		ix.TotalSizeBytes += ix.Snapshots[i].CompressedBytes
		if ix.Snapshots[i].Tags == nil {
			ix.Snapshots[i].Tags = []string{}
		}
	}
	if ix.Snapshots == nil {
		ix.Snapshots = []Snapshot{}
	}
	// One line per snapshot: readable, diff-friendly, and about a third
	// smaller than indented JSON, which list commands parse on every run.
	var b bytes.Buffer
	head, _ := json.Marshal(IndexSummary{ix.Version, ix.TotalSizeBytes, ix.LastPruned, len(ix.Snapshots), ix.pinned()})
	b.Write(head[:len(head)-1])
	b.WriteString(`,"snapshots":[`)
	for i := range ix.Snapshots {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		line, _ := json.Marshal(&ix.Snapshots[i]) // plain data always encodes
		b.Write(line)
	}
	if len(ix.Snapshots) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// total is the snapshots' compressed size.
func (ix *Index) total() int64 {
	var n int64
	for _, s := range ix.Snapshots {
		n += s.CompressedBytes
	}
	return n
}

// pinned counts the pinned snapshots.
func (ix *Index) pinned() int {
	n := 0
	for _, s := range ix.Snapshots {
		if s.Pinned {
			n++
		}
	}
	return n
}

func (ix *Index) sort() {
	slices.SortStableFunc(ix.Snapshots, func(a, b Snapshot) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
}

// ShortID is the part of a snapshot id users type: the session-prefix
// suffix is not unique across snapshots, so the short form is the
// timestamp and session prefix without the "pre-compact-" stem.
func ShortID(id string) string { return strings.TrimPrefix(id, "pre-compact-") }

// Resolve finds the snapshot whose id (with or without the "pre-compact-"
// stem) starts with prefix, or whose session-prefix suffix equals it, like
// git's short hashes. It returns the position in ix.Snapshots.
func (ix *Index) Resolve(prefix string) (int, error) {
	p := ShortID(strings.TrimSpace(prefix))
	if p == "" {
		return -1, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	var hits []int
	for i, s := range ix.Snapshots {
		short := ShortID(s.ID)
		if short == p || s.ID == prefix {
			return i, nil
		}
		if strings.HasPrefix(short, p) || strings.HasSuffix(short, "-"+p) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return -1, fmt.Errorf("%w %q", ErrNotFound, prefix)
	case 1:
		return hits[0], nil
	}
	ids := make([]string, 0, len(hits))
	for _, i := range hits {
		ids = append(ids, ShortID(ix.Snapshots[i].ID))
	}
	return -1, fmt.Errorf("%w %q matches %d snapshots: %s", ErrAmbiguous, prefix, len(hits), strings.Join(ids, ", "))
}

// NewID names a snapshot taken at t of session: pre-compact-YYYYMMDD-HHMMSS-
// followed by the first 6 characters of the session id (hex digits and
// letters only; "nosess" when there is none). A clash with an existing id
// gets a numeric suffix.
func (ix *Index) NewID(t time.Time, session string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(session) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			if b.Len() == 6 {
				break
			}
		}
	}
	pfx := b.String()
	if pfx == "" {
		pfx = "nosess"
	}
	base := "pre-compact-" + t.UTC().Format("20060102-150405") + "-" + pfx
	id := base
	for n := 2; slices.ContainsFunc(ix.Snapshots, func(s Snapshot) bool { return s.ID == id }); n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// Policy is the retention policy for compaction snapshots (PRD FR-7.4).
type Policy struct {
	RetentionCount int           // keep at most this many unpinned; 0 = no count limit
	RetentionAge   time.Duration // delete unpinned older than this; 0 = no age limit
	MaxBytes       int64         // total size limit; 0 = no size limit
}

// Plan is what Prune would do: the ids to delete, oldest first, and
// warnings (for example when pinned snapshots alone exceed a limit).
type Plan struct {
	Delete   []string
	Warnings []string
}

// PlanPrune applies p to ix at time now without changing it. Pinned
// snapshots are never deleted; unpinned ones go oldest first until every
// limit holds. When the pinned ones alone exceed a limit, a warning says so.
func PlanPrune(ix *Index, p Policy, now time.Time) Plan {
	ix.sort()
	var plan Plan
	del := map[string]bool{}
	total := ix.total()
	for _, s := range ix.Snapshots { // age
		if p.RetentionAge > 0 && !s.Pinned && now.Sub(s.CreatedAt) > p.RetentionAge {
			del[s.ID] = true
			total -= s.CompressedBytes
		}
	}
	kept := len(ix.Snapshots) - len(del)
	for _, s := range ix.Snapshots { // count (pinned ones count too), oldest first
		if p.RetentionCount <= 0 || kept <= p.RetentionCount {
			break
		}
		if !s.Pinned && !del[s.ID] {
			del[s.ID] = true
			kept--
			total -= s.CompressedBytes
		}
	}
	for _, s := range ix.Snapshots { // size, oldest first
		if p.MaxBytes <= 0 || total <= p.MaxBytes {
			break
		}
		if !s.Pinned && !del[s.ID] {
			del[s.ID] = true
			total -= s.CompressedBytes
		}
	}
	if p.MaxBytes > 0 && total > p.MaxBytes {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("pinned snapshots alone take %s, over the %s limit: unpin some or raise compaction_snapshots.max_storage_mb", store.FormatBytes(total), store.FormatBytes(p.MaxBytes)))
	}
	if kept = len(ix.Snapshots) - len(del); p.RetentionCount > 0 && kept > p.RetentionCount {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%d snapshots kept, over retention_count %d, because pinned snapshots are never pruned", kept, p.RetentionCount))
	}
	for _, s := range ix.Snapshots {
		if del[s.ID] {
			plan.Delete = append(plan.Delete, s.ID)
		}
	}
	return plan
}

// Debounced returns the position of a snapshot of session taken within
// window before now, or still held (now before its HoldUntil), which a new
// snapshot should replace instead of adding another, or -1. Pinned
// snapshots are never replaced.
func (ix *Index) Debounced(session string, window time.Duration, now time.Time) int {
	if session == "" {
		return -1
	}
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		s := ix.Snapshots[i]
		if s.SessionID != session || s.Pinned {
			continue
		}
		age := now.Sub(s.CreatedAt)
		if (age >= 0 && age < window) || (age >= 0 && now.Before(s.HoldUntil)) {
			return i
		}
	}
	return -1
}
