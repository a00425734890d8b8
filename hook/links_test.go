package hook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// treeDigest lists every entry under dir with its type and content hash,
// without following links.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + d.Type().String())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			b.WriteString(" " + hex.EncodeToString(sum[:8]))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStoreLinksNotFollowed: every directory and file of a project's
// store (and the project's .gitignore) replaced by a symbolic link to a
// file or directory outside, as a cloned repository can hold them; a
// whole session of hook events then runs, each exiting 0, and nothing
// outside changes. Special files (a FIFO, /dev/zero behind a link) in the
// place of the files the hooks read neither block nor exhaust memory.
func TestStoreLinksNotFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and FIFOs need Unix")
	}
	ctxDir := filepath.Join(".claude", "context")
	const sid = "5e1f0c2a-link-test"
	tests := []struct {
		name   string
		path   string // relative to the project
		target string // "file", "dir", "fifo" (made in place), "/dev/zero"
	}{
		{"dir .claude", ".claude", "dir"},
		{"dir context", ctxDir, "dir"},
		{"dir checkpoints", filepath.Join(ctxDir, store.CheckpointsName), "dir"},
		{"dir history", filepath.Join(ctxDir, store.HistoryName), "dir"},
		{"dir snapshots", filepath.Join(ctxDir, store.SnapshotsName), "dir"},
		{"dir pending", filepath.Join(ctxDir, store.PendingName), "dir"},
		{"dir prompts", filepath.Join(ctxDir, hookfast.CounterDirName), "dir"},
		{"state file", filepath.Join(ctxDir, StateName), "file"},
		{"state temp", filepath.Join(ctxDir, store.TempPrefix+StateName), "file"},
		{"state lock", filepath.Join(ctxDir, "hook-state.lock"), "file"},
		{"store lock", filepath.Join(ctxDir, store.LockName), "file"},
		{"current.ctx", filepath.Join(ctxDir, store.CurrentName), "file"},
		{"meta", filepath.Join(ctxDir, store.MetaName), "file"},
		{"counter", filepath.Join(ctxDir, hookfast.CounterDirName, sid), "file"},
		{"counter temp", filepath.Join(ctxDir, hookfast.CounterDirName, store.TempPrefix+sid), "file"},
		{"gitignore", ".gitignore", "file"},
		{"state FIFO", filepath.Join(ctxDir, StateName), "fifo"},
		{"state lock FIFO", filepath.Join(ctxDir, "hook-state.lock"), "fifo"},
		{"meta FIFO", filepath.Join(ctxDir, store.MetaName), "fifo"},
		{"gitignore FIFO", ".gitignore", "fifo"},
		{"config FIFO", filepath.Join(".claude", "config.yaml"), "fifo"},
		{"state /dev/zero", filepath.Join(ctxDir, StateName), "/dev/zero"},
		{"meta /dev/zero", filepath.Join(ctxDir, store.MetaName), "/dev/zero"},
		{"index /dev/zero", filepath.Join(ctxDir, store.SnapshotsName, store.IndexName), "/dev/zero"},
		{"pinned /dev/zero", filepath.Join(ctxDir, store.SnapshotsName, store.PinnedName), "/dev/zero"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			outside := filepath.Join(filepath.Dir(e.project), "outside")
			if err := os.MkdirAll(filepath.Join(outside, "dir"), 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"file", filepath.Join("dir", "keep")} {
				if err := os.WriteFile(filepath.Join(outside, f), []byte("precious\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(e.project, ".git"), 0o700); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(e.project, tc.path)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			switch tc.target {
			case "fifo":
				if err := mkfifo(p); err != nil {
					t.Fatal(err)
				}
			case "/dev/zero":
				if err := os.Symlink("/dev/zero", p); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.Symlink(filepath.Join(outside, tc.target), p); err != nil {
					t.Fatal(err)
				}
			}
			before := treeDigest(t, outside)
			if tc.path != ".claude" && !strings.HasSuffix(tc.path, "config.yaml") {
				e.config("  checkpoint_interval: 1\n")
			}
			tp := e.transcript(sid, 0)
			// The real snapshot layer (index.json, .pinned), no
			// background process.
			h := &Handler{Home: e.home, Now: func() time.Time { return e.now },
				Getenv: func(k string) string {
					if k == "BEN10_HOOK_WORK" {
						return WorkSync
					}
					return ""
				},
				Spawn: func(...string) error { return nil }}
			fire := func(event string, in map[string]any) {
				in["cwd"], in["hook_event_name"] = e.project, event
				data, _ := json.Marshal(in)
				var so, se bytes.Buffer
				if code := h.Run(context.Background(), "", bytes.NewReader(data), &so, &se); code != 0 {
					t.Fatalf("%s exited %d", event, code)
				}
				if se.Len() > 0 {
					t.Logf("%s: %s", event, strings.TrimSpace(se.String()))
				}
			}
			base := map[string]any{"session_id": sid, "transcript_path": tp}
			with := func(kv ...string) map[string]any {
				m := map[string]any{}
				for k, v := range base {
					m[k] = v
				}
				for i := 0; i+1 < len(kv); i += 2 {
					m[kv[i]] = kv[i+1]
				}
				return m
			}
			fire("SessionStart", with("source", "startup"))
			fire("UserPromptSubmit", with("prompt", "go on"))
			fire("UserPromptSubmit", with("prompt", "and more"))
			fire("PostToolUse", with("tool_name", "Edit"))
			fire("PreCompact", with("trigger", "auto"))
			fire("PostCompact", with("compact_summary", "summary"))
			fire("Stop", with())
			fire("SessionEnd", with("reason", "exit"))
			if after := treeDigest(t, outside); after != before {
				t.Fatalf("outside the store changed:\nbefore\n%s\nafter\n%s", before, after)
			}
		})
	}
}

// TestTranscriptPathChecked: a transcript_path outside Claude Code's
// projects directory, or not a regular file there (a FIFO, a link, a
// directory), is refused before it is opened: PreCompact and SessionEnd
// exit 0 at once with one line naming the refusal, and archive nothing.
func TestTranscriptPathChecked(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs need Unix")
	}
	e := newEnv(t)
	projects := filepath.Join(e.home, ".claude", "projects", "p")
	if err := os.MkdirAll(filepath.Join(projects, "a-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(projects, "fifo.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(projects, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, tp := range []string{
		"/etc/passwd",
		"relative.jsonl",
		filepath.Join(projects, "..", "..", "..", "..", "outside.jsonl"),
		filepath.Join(projects, "fifo.jsonl"),
		filepath.Join(projects, "link.jsonl"),
		filepath.Join(projects, "a-dir"),
	} {
		for _, ev := range []string{"PreCompact", "SessionEnd"} {
			r := e.fire(ev, map[string]any{"session_id": "5e1f0c2a-path-test", "transcript_path": tp, "trigger": "auto"})
			if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "transcript_path refused") {
				t.Errorf("%s with %s: stdout %q, stderr %q", ev, tp, r.stdout, r.stderr)
			}
		}
	}
	if len(e.snaps.requests) != 0 {
		t.Errorf("%d snapshots requested from refused transcripts", len(e.snaps.requests))
	}
	if _, err := os.Lstat(filepath.Join(e.project, ".claude", "context", store.CurrentName)); err == nil {
		t.Error("a final save was written from a refused transcript")
	}
}
