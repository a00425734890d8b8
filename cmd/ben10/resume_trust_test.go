package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/internal/hostile"
	"github.com/ben10ctx/ben10/transcript"
)

// tamperTag changes the authentication tag of the archive at path in
// place, keeping its size and modification time: the index takes the file
// for unchanged, but the tag no longer verifies.
func tamperTag(t *testing.T, path string) {
	t.Helper()
	if err := hostile.TamperSegment(path, archive.TypeAuthTag); err != nil {
		t.Fatal(err)
	}
}

// TestResumeTrust, with the real binary: a session is restored for
// `claude --resume` only from an archive this user's key authenticates
// when it is restored. An archive planted in the project's store, and one
// replaced after it was indexed (the index still calls it the user's),
// are refused by `show --resume`, `context compaction restore` and
// `context restore` with the reason and the way to ask; with
// --include-unauthenticated they are restored with a warning, and a FILE
// named on the command line is the user's choice (a warning). The user's
// own archives restore with no warning.
func TestResumeTrust(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	p.run(t, "context", "save", "--transcript", p.transcript)
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, "../../index/testdata/second.jsonl", "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(p.dir, ".claude", "context")
	planted := filepath.Join(store, "checkpoints", "cp-007.ctx")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	refOf := func(query, archive string) string {
		t.Helper()
		var hits []index.Hit
		r := runBen10(t, nil, p.env, "search", query, "--include-unauthenticated", "--json", "--limit", "50")
		if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
			t.Fatalf("search %s: %v\n%s%s", query, err, r.stdout, r.stderr)
		}
		for _, h := range hits {
			if h.Archive == archive {
				return h.Ref
			}
		}
		t.Fatalf("no hit of %q in %s: %+v", query, archive, hits)
		return ""
	}
	current := filepath.Join(store, "current.ctx")
	own, plantedRef := refOf("go test ./pkg/calc", current), refOf("frobnicate_widget", planted)
	// The snapshot comes after: the search keeps one hit per session.
	p.run(t, "context", "compaction", "snapshot", "--transcript", p.transcript, "--force")
	var ix struct{ Snapshots []struct{ ID, File string } }
	p.runJSON(t, &ix, "context", "compaction", "list")
	if len(ix.Snapshots) != 1 {
		t.Fatalf("snapshots: %+v", ix)
	}
	snap := ix.Snapshots[0].ID

	type step struct {
		name    string
		args    []string
		ok      bool   // exit 0
		stderr  string // in stderr ("" = no warning at all)
		replace string // tamper with this file before the step
	}
	const refused, warned = "--include-unauthenticated restores it anyway", "warning: "
	resume := []string{"--project-dir", p.dir}
	for _, s := range []step{
		{name: "own hit", args: append([]string{"show", own, "--resume"}, resume...), ok: true},
		{name: "planted hit", args: append([]string{"show", plantedRef, "--resume"}, resume...), stderr: "--include-unauthenticated"},
		{name: "planted hit, asked for", args: append([]string{"show", plantedRef, "--resume", "--include-unauthenticated"}, resume...), ok: true, stderr: "is not authenticated as yours (no authentication tag)"},
		{name: "own snapshot", args: []string{"context", "compaction", "restore", snap, "--dir", p.dir}, ok: true},
		{name: "own current context", args: []string{"context", "restore", "--dir", p.dir}, ok: true},
		{name: "planted FILE named", args: []string{"context", "restore", planted, "--resume", "--project-dir", p.dir, "--force"}, ok: true, stderr: warned + planted + " is not authenticated as yours"},
		{name: "hit replaced after indexing", args: append([]string{"show", own, "--resume"}, resume...), stderr: "show --resume " + own + ": " + current + " is not authenticated as yours (authentication tag does not verify", replace: current},
		{name: "hit replaced, asked for", args: append([]string{"show", own, "--resume", "--include-unauthenticated"}, resume...), ok: true, stderr: warned},
		{name: "snapshot replaced", args: []string{"context", "compaction", "restore", snap, "--dir", p.dir}, stderr: refused, replace: filepath.Join(store, "compaction-snapshots", ix.Snapshots[0].File)},
		{name: "snapshot replaced, asked for", args: []string{"context", "compaction", "restore", snap, "--dir", p.dir, "--include-unauthenticated"}, ok: true, stderr: warned},
		{name: "snapshot replaced, part to read", args: []string{"context", "compaction", "restore", snap, "--dir", p.dir, "--partial", "messages=1-1"}, ok: true, stderr: warned},
		// Last: restoring a checkpoint installs it as current.ctx.
		{name: "planted checkpoint", args: []string{"context", "restore", "--checkpoint", "7", "--dir", p.dir}, stderr: refused},
		{name: "planted checkpoint, asked for", args: []string{"context", "restore", "--checkpoint", "7", "--dir", p.dir, "--include-unauthenticated"}, ok: true, stderr: warned},
	} {
		if s.replace != "" {
			tamperTag(t, s.replace)
		}
		r := runBen10(t, nil, p.env, s.args...)
		if (r.code == 0) != s.ok {
			t.Errorf("%s: exit %d\n%s%s", s.name, r.code, r.stdout, r.stderr)
		}
		if s.stderr == "" && strings.Contains(r.stderr, "authenticated") || !strings.Contains(r.stderr, s.stderr) {
			t.Errorf("%s: stderr does not say %q:\n%s", s.name, s.stderr, r.stderr)
		}
		if !s.ok && strings.Contains(r.stdout, "claude --resume") {
			t.Errorf("%s: refused, yet it offers a session to resume:\n%s", s.name, r.stdout)
		}
	}
}
