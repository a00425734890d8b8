package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/fidelity"
	"github.com/ben10ctx/ben10/snapshot"
)

// TestHookE2ERawOnlySnapshot: PreCompact with no earlier archive writes a
// raw-only snapshot (the redacted raw transcript; the model is built by
// the recompression that follows). With that recompression never run (a
// killed background job: BEN10_HOOK_RECOMPRESS=defer), the snapshot is
// valid and every command reads it — compaction list (counts pending),
// show, search, diff, extract, export, status, inspect, archive verify —
// and SessionStart(compact) injects the digest a complete snapshot of the
// same transcript gives. `ben10 internal recompress` then completes it:
// the index counts are a complete snapshot's and it verifies.
func TestHookE2ERawOnlySnapshot(t *testing.T) {
	type tcase struct {
		name, session string
		pre, full     []byte
	}
	var cases []tcase
	demo, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(demo, []byte(`"subtype":"compact_boundary"`))
	cut = bytes.LastIndexByte(demo[:cut], '\n') + 1
	cases = append(cases, tcase{"demo", demoSessionID, demo[:cut], demo})
	if d, ok := fidelity.CorpusDir(); ok {
		f := filepath.Join(d, "claude", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
		if data, err := os.ReadFile(f); err == nil {
			if i := bytes.Index(data, []byte(`"subtype":"compact_boundary"`)); i > 0 {
				i = bytes.LastIndexByte(data[:i], '\n') + 1
				cases = append(cases, tcase{"corpus 4d5611e5", "4d5611e5-241a-462a-8d15-5122611a9569", data[:i], data})
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The reference: a complete snapshot (no recompression).
			a := newHookWorld(t, tc.session)
			a.writeTranscript(tc.pre)
			a.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_RECOMPRESS=off")
			refSnap := onlySnapshot(t, a)
			if refSnap.ModelPending {
				t.Fatalf("PreCompact without recompression wrote a raw-only snapshot: %+v", refSnap)
			}
			a.writeTranscript(tc.full)
			outA := a.fire("SessionStart", map[string]any{"source": "compact"})

			b := newHookWorld(t, tc.session)
			b.writeTranscript(tc.pre)
			b.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_RECOMPRESS=defer")
			s := onlySnapshot(t, b)
			if !s.ModelPending || s.PreCompaction.MessageCount != 0 {
				t.Fatalf("index entry of the hook's snapshot: %+v", s)
			}
			path := filepath.Join(b.contextDir(), "compaction-snapshots", s.File)
			ar, err := archive.OpenFile(path, archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := ar.RawOnly(); !ok {
				t.Fatal("the hook's snapshot is not raw-only")
			}
			for _, seg := range ar.Container().Segments() {
				if seg.Type.String() == "conversation" || seg.Type.String() == "summaries" {
					t.Errorf("raw-only snapshot holds a %s segment", seg.Type)
				}
			}
			ar.Close()

			run := func(args ...string) string {
				t.Helper()
				r := runBen10(t, nil, b.env, args...)
				if r.code != 0 {
					t.Fatalf("ben10 %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
				}
				return r.stdout
			}
			dir := []string{"--dir", b.project}
			if out := run(append([]string{"context", "compaction", "list", "--verbose"}, dir...)...); !strings.Contains(out, "pending") {
				t.Errorf("compaction list does not show the counts as pending:\n%s", out)
			}
			var ix snapshot.Index
			if err := json.Unmarshal([]byte(run(append([]string{"--json", "context", "compaction", "list"}, dir...)...)), &ix); err != nil || len(ix.Snapshots) != 1 || !ix.Snapshots[0].ModelPending {
				t.Errorf("compaction list --json: %+v %v", ix, err)
			}
			want := refSnap.PreCompaction
			var show struct {
				Snapshot snapshot.Snapshot `json:"snapshot"`
				Archive  archive.Summary   `json:"archive"`
			}
			if err := json.Unmarshal([]byte(run(append([]string{"--json", "context", "compaction", "show", s.ID}, dir...)...)), &show); err != nil {
				t.Fatal(err)
			}
			if show.Snapshot.PreCompaction != want || show.Archive.Meta.MessageCount != want.MessageCount {
				t.Errorf("compaction show: %+v / %d messages, want %+v", show.Snapshot.PreCompaction, show.Archive.Meta.MessageCount, want)
			}
			if out := run(append([]string{"context", "compaction", "search", "the"}, dir...)...); !strings.Contains(out, lastSix(s.ID)) {
				t.Errorf("compaction search found nothing in the raw-only snapshot:\n%.400s", out)
			}
			run(append([]string{"context", "compaction", "diff", s.ID}, dir...)...)
			if out := run(append([]string{"context", "compaction", "extract", s.ID, "--messages"}, dir...)...); len(out) == 0 {
				t.Error("compaction extract --messages printed nothing")
			}
			exported := filepath.Join(t.TempDir(), "x.ctx")
			run(append([]string{"context", "compaction", "export", s.ID, exported}, dir...)...)
			run(append([]string{"context", "status"}, dir...)...)
			// The raw transcript back byte for byte (redaction changed no
			// line of these sessions), the other export formats, and a
			// resumable session restored from the snapshot.
			out := t.TempDir()
			run("context", "export", path, "--format", "jsonl", "--dir", out)
			if got, err := os.ReadFile(filepath.Join(out, tc.session+".jsonl")); err != nil || !bytes.Equal(got, tc.pre) {
				t.Errorf("context export jsonl: %d bytes (%v), want the %d bytes PreCompact saw", len(got), err, len(tc.pre))
			}
			for _, f := range []string{"markdown", "json", "cusf"} {
				if out := run("context", "export", path, "--format", f); len(out) == 0 {
					t.Errorf("context export --format %s printed nothing", f)
				}
			}
			run(append([]string{"context", "compaction", "restore", s.ID, "--config-dir", t.TempDir()}, dir...)...)
			if out := run("context", "inspect", path); !strings.Contains(out, tc.session) {
				t.Errorf("context inspect:\n%s", out)
			}
			run("archive", "verify", path)
			run("archive", "verify", exported)

			// SessionStart(compact) before the recompression ran: the
			// digest of a complete snapshot.
			b.writeTranscript(tc.full)
			outB := b.fire("SessionStart", map[string]any{"source": "compact"})
			if outA == nil || outB == nil || outA.HookSpecificOutput == nil || outB.HookSpecificOutput == nil {
				t.Fatalf("SessionStart(compact) injected %+v and %+v", outA, outB)
			}
			// (Each world has its own project and home directories.)
			norm := func(w *hookWorld, id, text string) string {
				return strings.NewReplacer(id, "ID", w.project, "PROJECT", w.home, "HOME").Replace(text)
			}
			textA := norm(a, refSnap.ID, outA.HookSpecificOutput.AdditionalContext)
			textB := norm(b, s.ID, outB.HookSpecificOutput.AdditionalContext)
			if textA != textB {
				t.Errorf("digest from the raw-only snapshot differs from a complete snapshot's:\n--- complete\n%s\n--- raw-only\n%s", textA, textB)
			}
			if norm(a, refSnap.ID, outA.SystemMessage) != norm(b, s.ID, outB.SystemMessage) {
				t.Errorf("system message %q, complete snapshot's %q", outB.SystemMessage, outA.SystemMessage)
			}

			// The recompression, late: completes the snapshot.
			run("internal", "recompress", "--project", b.project, s.ID)
			done := onlySnapshot(t, b)
			if done.ModelPending || done.PreCompaction != want || done.Level != "better" {
				t.Errorf("index entry after the recompression: %+v, want counts %+v at better (the default compression_level 6)", done, want)
			}
			if out := run(append([]string{"context", "compaction", "list", "--verbose"}, dir...)...); strings.Contains(out, "pending") {
				t.Errorf("compaction list after the recompression:\n%s", out)
			}
			run("archive", "verify", path)
			ar, err = archive.OpenFile(path, archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer ar.Close()
			if _, ok := ar.RawOnly(); ok {
				t.Error("still raw-only after the recompression")
			}
			if got := ar.Meta().MessageCount; got != want.MessageCount {
				t.Errorf("completed snapshot: %d messages, want %d", got, want.MessageCount)
			}
		})
	}
}

// onlySnapshot reads the world's index.json, which must list one snapshot.
func onlySnapshot(t *testing.T, w *hookWorld) snapshot.Snapshot {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.contextDir(), "compaction-snapshots", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := snapshot.ParseIndex(data)
	if err != nil || len(ix.Snapshots) != 1 {
		t.Fatalf("index.json: %v, %d snapshots", err, len(ix.Snapshots))
	}
	return ix.Snapshots[0]
}

func lastSix(id string) string {
	if len(id) > 6 {
		return id[len(id)-6:]
	}
	return id
}
