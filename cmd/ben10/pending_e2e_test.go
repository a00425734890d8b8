package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompactionListCompletesStalePending: a hook snapshot whose
// background recompression never finished (the worker was killed: here
// it was never started) is listed as pending while it is young, and
// completed by `compaction list` once it is older than
// snapshot.StalePending, instead of staying pending for ever (issue 14
// item 3).
func TestCompactionListCompletesStalePending(t *testing.T) {
	w := newHookWorld(t, demoSessionID)
	demo, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(demo, []byte(`"subtype":"compact_boundary"`))
	cut = bytes.LastIndexByte(demo[:cut], '\n') + 1
	w.writeTranscript(demo[:cut])
	w.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_RECOMPRESS=defer")
	s := onlySnapshot(t, w)
	if !s.ModelPending {
		t.Fatalf("the hook's snapshot is not pending: %+v", s)
	}
	list := func() result {
		t.Helper()
		r := runBen10(t, nil, w.env, "context", "compaction", "list", "--verbose", "--dir", w.project)
		if r.code != 0 {
			t.Fatalf("compaction list: exit %d\n%s", r.code, r.stderr)
		}
		return r
	}
	if r := list(); !strings.Contains(r.stdout, "pending") {
		t.Errorf("a fresh raw-only snapshot is not listed as pending:\n%s", r.stdout)
	}
	// Three minutes later (the index entry made older), nobody finished it.
	ixPath := filepath.Join(w.contextDir(), "compaction-snapshots", "index.json")
	data, err := os.ReadFile(ixPath)
	if err != nil {
		t.Fatal(err)
	}
	old := s.CreatedAt.Add(-3 * time.Minute).Format(time.RFC3339Nano)
	data = bytes.Replace(data, []byte(`"created_at":"`+s.CreatedAt.Format(time.RFC3339Nano)+`"`), []byte(`"created_at":"`+old+`"`), 1)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("could not age the index entry:\n%s", data)
	}
	if err := os.WriteFile(ixPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := list()
	if strings.Contains(r.stdout, "pending") || !strings.Contains(r.stderr, "completed 1 snapshot") {
		t.Errorf("a stale pending snapshot was not completed:\nstdout:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if s := onlySnapshot(t, w); s.ModelPending || s.PreCompaction.MessageCount == 0 {
		t.Errorf("index entry after completion: %+v", s)
	}
}
