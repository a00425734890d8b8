package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// PullOptions control Pull and PullDir.
type PullOptions struct {
	// Project is the project's key in the bucket; "" means
	// ProjectKey(st.ProjectDir()) (required for PullDir).
	Project string
	// Session keeps only entries whose session id starts with it.
	Session string
}

// PullStats says what a pull did.
type PullStats struct {
	Project  string
	Entries  int      // entries in the remote's manifests
	Pulled   []string // files written
	Skipped  int      // entries already here
	Bytes    int64    // object bytes read
	Failed   []error  // entries that could not be pulled, each naming its object
	Warnings []string
}

// stateName is the file, in a store or pull directory, that lists the
// entries already pushed from or pulled into it.
const stateName = "remote-entries.json"

type localState struct {
	Entries map[string]string `json:"entries"` // entry id -> local file or "pushed"
}

func readState(dir string) localState {
	s := localState{Entries: map[string]string{}}
	if b, err := store.ReadFileBounded(filepath.Join(dir, stateName), 64<<20); err == nil {
		_ = json.Unmarshal(b, &s)
		if s.Entries == nil {
			s.Entries = map[string]string{}
		}
	}
	return s
}

func writeState(dir string, s localState) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return store.WriteFileAtomic(filepath.Join(dir, stateName), b)
}

// Pull brings the project's entries that st's store lacks into it: each
// entry's chunks are fetched and authenticated (an object that fails is
// reported in PullStats.Failed with its name, and the pull goes on with
// the other entries), the raw transcript is rebuilt and saved as the
// local configuration says (redaction, compression, encryption): a
// compaction snapshot as a snapshot of the store (listed by `context
// compaction list`), any other entry as a history file (listed by
// `context list`, restorable with `context restore --from`).
func (c *Client) Pull(ctx context.Context, st *store.Store, opts PullOptions) (PullStats, error) {
	if opts.Project == "" {
		opts.Project = ProjectKey(st.ProjectDir())
	}
	return c.pull(ctx, st.Root(), opts, func(e Entry, dir, main string) (string, error) {
		return saveIntoStore(ctx, st, e, dir, main)
	})
}

// PullDir is Pull into a plain directory, for a project that has no
// checkout here (a teammate's project): each entry becomes
// <kind>-<name>.ctx in dir, which Ben10 never writes otherwise.
func (c *Client) PullDir(ctx context.Context, dir string, opts PullOptions) (PullStats, error) {
	if opts.Project == "" {
		return PullStats{}, errors.New("remote: PullDir needs a project key")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return PullStats{}, fmt.Errorf("remote: %w", err)
	}
	return c.pull(ctx, dir, opts, func(e Entry, tmp, main string) (string, error) {
		eopt, _, err := snapshot.EncodeOptions(nil, 0)
		if err != nil {
			return "", err
		}
		target := filepath.Join(dir, e.Kind+"-"+safeName(e.Name)+"-"+e.ID[:8]+".ctx")
		return target, saveArchive(ctx, target, e, main, archive.ImportOptions{}, eopt)
	})
}

var unsafeRe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func safeName(s string) string {
	s = unsafeRe.ReplaceAllString(s, "_")
	if len(s) > 80 {
		s = s[:80]
	}
	return strings.Trim(s, ".")
}

func (c *Client) pull(ctx context.Context, stateDir string, opts PullOptions, place func(e Entry, dir, main string) (string, error)) (PullStats, error) {
	stats := PullStats{Project: opts.Project}
	entries, bad, err := c.entries(ctx, opts.Project)
	if err != nil {
		return stats, err
	}
	stats.Failed = append(stats.Failed, bad...)
	stats.Entries = len(entries)
	state := readState(stateDir)
	var todo []Entry
	var total int64
	for _, e := range entries {
		if opts.Session != "" && !strings.HasPrefix(e.Session, opts.Session) {
			continue
		}
		if _, ok := state.Entries[e.ID]; ok {
			stats.Skipped++
			continue
		}
		todo = append(todo, e)
		total += e.Size()
	}
	var done atomic.Int64
	for _, e := range todo {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		path, n, err := c.pullEntry(ctx, e, place, func(k int64) {
			if c.Progress != nil {
				c.Progress(done.Add(k), total)
			}
		})
		stats.Bytes += n
		if err != nil {
			stats.Failed = append(stats.Failed, fmt.Errorf("%s %s (session %s): %w", e.Kind, e.Name, e.Session, err))
			continue
		}
		state.Entries[e.ID] = path
		stats.Pulled = append(stats.Pulled, path)
		if err := writeState(stateDir, state); err != nil {
			stats.Warnings = append(stats.Warnings, fmt.Sprintf("recording pulled entries in %s: %v", stateDir, err))
		}
	}
	return stats, nil
}

// pullEntry fetches one entry's files into a temporary directory and
// hands them to place.
func (c *Client) pullEntry(ctx context.Context, e Entry, place func(e Entry, dir, main string) (string, error), report func(int64)) (string, int64, error) {
	tmp, err := os.MkdirTemp("", "ben10-pull-")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(tmp)
	var read int64
	main := ""
	for _, f := range e.Files {
		data, n, err := c.fetchFile(ctx, f, report)
		read += n
		if err != nil {
			return "", read, fmt.Errorf("file %s: %w", f.Name, err)
		}
		p := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return "", read, err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return "", read, err
		}
		if !strings.Contains(f.Name, "/") && (main == "" || strings.HasPrefix(f.Name, e.Session)) {
			main = p
		}
	}
	if main == "" {
		return "", read, fmt.Errorf("%w: no top-level transcript file", ErrCorrupt)
	}
	path, err := place(e, tmp, main)
	return path, read, err
}

// fetchFile reads and checks one file's chunks.
func (c *Client) fetchFile(ctx context.Context, f File, report func(int64)) ([]byte, int64, error) {
	parts := make([][]byte, len(f.Chunks))
	errs := make([]error, len(f.Chunks))
	var read atomic.Int64
	var g errgroup.Group
	g.SetLimit(max(c.Workers, 1))
	for i, r := range f.Chunks {
		g.Go(func() error { // each chunk's error is kept: every missing chunk is named
			key := c.chunkKey(r.ID)
			obj, err := c.get(ctx, key, int64(MaxChunk)+1<<12)
			if err != nil {
				if isNotFound(err) {
					err = fmt.Errorf("%w: %s is missing", ErrCorrupt, c.where(key))
				}
				errs[i] = err
				return nil
			}
			read.Add(int64(len(obj)))
			p, err := c.key.OpenChunk(r.ID, obj, r.Size)
			if err == nil && len(p) != r.Size {
				err = fmt.Errorf("%w: %d bytes, the manifest says %d", ErrCorrupt, len(p), r.Size)
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", c.where(key), err)
				return nil
			}
			parts[i] = p
			report(int64(len(p)))
			return nil
		})
	}
	_ = g.Wait() // the goroutines return no error: errs holds them
	if err := errors.Join(errs...); err != nil {
		return nil, read.Load(), err
	}
	data := make([]byte, 0, f.Size)
	for _, p := range parts {
		data = append(data, p...)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, read.Load(), fmt.Errorf("%w: SHA-256 of the rebuilt file differs from the manifest's", ErrCorrupt)
	}
	return data, read.Load(), nil
}

// saveIntoStore saves a pulled transcript into st.
func saveIntoStore(ctx context.Context, st *store.Store, e Entry, dir, main string) (string, error) {
	h, err := transcript.ParseHarness(e.Harness)
	if err != nil {
		return "", err
	}
	if e.Kind == KindSnapshot {
		m := snapshot.NewManager(st, st.Config())
		now := e.Created
		if now.IsZero() {
			now = e.Updated
		}
		res, err := m.Create(snapshot.CreateOptions{TranscriptPath: main, Harness: h, SessionID: e.Session, Trigger: e.Trigger,
			Source: "remote", Force: true, Now: now, NoPrevious: true, Tags: []string{"remote"}})
		if err != nil {
			return "", err
		}
		return res.Path, nil
	}
	eopt, _, err := snapshot.EncodeOptions(st.Config(), 0)
	if err != nil {
		return "", err
	}
	if err := st.EnsureDir(st.HistoryDir()); err != nil {
		return "", err
	}
	var target string
	err = st.WithLock(ctx, func() error {
		t := e.Updated
		if t.IsZero() {
			t = time.Now()
		}
		for i := 0; ; i++ {
			target = st.HistoryPath(t.Add(time.Duration(i) * time.Second))
			if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
				break
			}
		}
		return saveArchive(ctx, target, e, main, archive.ImportOptions{ProjectDir: st.ProjectDir()}, eopt)
	})
	return target, err
}

// saveArchive imports the transcript at main and writes its archive to
// target atomically.
func saveArchive(ctx context.Context, target string, e Entry, main string, iopt archive.ImportOptions, eopt archive.EncodeOptions) error {
	h, err := transcript.ParseHarness(e.Harness)
	if err != nil {
		return err
	}
	af, err := store.CreateAtomic(target, 0o600)
	if err != nil {
		return err
	}
	defer af.Abort()
	if _, _, err := transcript.Save(ctx, af, main, h, iopt, eopt); err != nil {
		return fmt.Errorf("rebuilding the archive: %w", err)
	}
	return af.Commit()
}
