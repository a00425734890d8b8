package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestUnauthenticatedArchivesReported: checkpoints of this project that
// the user's Ben10 did not write (one without a tag, one tagged with
// another user's key) are not injected at SessionStart; `context status`
// and `doctor` list each with its reason and say how to adopt one;
// status lists the checkpoint an assistant wrote (session_digest); a
// context the user saves (`context save`) is injected.
func TestUnauthenticatedArchivesReported(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	s, err := claude.Import(context.Background(), w.transcript, archive.ImportOptions{ProjectDir: w.project})
	if err != nil {
		t.Fatal(err)
	}
	other, err := archive.NewAuthKey(bytes.Repeat([]byte{9}, archive.AuthKeySize))
	if err != nil {
		t.Fatal(err)
	}
	cps := filepath.Join(w.contextDir(), "checkpoints")
	if err := os.MkdirAll(cps, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, k := range map[string]*archive.AuthKey{"cp-001.ctx": nil, "cp-002.ctx": other} {
		var b bytes.Buffer
		if err := archive.Encode(context.Background(), &b, s, archive.EncodeOptions{Auth: k}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cps, name), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	next := map[string]any{"session_id": "bbbbbbbb-0000-4000-8000-00000000beef", "source": "startup"}
	if out := w.fire("SessionStart", next); out != nil {
		t.Fatalf("SessionStart injected a context the user did not save: %+v", out)
	}

	// An agent-written checkpoint (session_digest) is the user's and is
	// listed as such.
	st, err := store.Open(w.project, store.Options{Home: w.home})
	if err != nil {
		t.Fatal(err)
	}
	k, err := snapshot.UserAuthKey(w.home)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := snapshot.SaveAgentDigest(st, k, demoSessionID, "Goal: the cart total.", time.Now()); err != nil {
		t.Fatal(err)
	}

	r := runBen10(t, nil, w.env, "context", "status", "--dir", w.project)
	for _, want := range []string{
		"Agent Checkpoints (session_digest):",
		"offered at the next session start",
		"Not saved by you (2;",
		"checkpoints/cp-001.ctx: no authentication tag",
		"checkpoints/cp-002.ctx: tagged with another user's key",
		snapshot.AdoptHint,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	r = runBen10(t, nil, w.env, "doctor", "--dir", w.project, "--json")
	var checks []check
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	var auth []check
	for _, c := range checks {
		if c.Name == "auth" {
			auth = append(auth, c)
		}
	}
	if len(auth) != 2 || auth[0].Status != "ok" || auth[1].Status != "warn" ||
		!strings.Contains(auth[1].Detail, "2 saved context(s) not saved by you") || !strings.Contains(auth[1].Detail, "cp-001.ctx: no authentication tag") {
		t.Errorf("doctor's auth checks: %+v", auth)
	}

	// The user's own save is authenticated, and injected.
	if r := runBen10(t, nil, w.env, "context", "save", "--transcript", w.transcript, "--dir", w.project); r.code != 0 {
		t.Fatalf("context save: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, w.env, "context", "status", "--dir", w.project, "--json")
	var info statusInfo
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if len(info.Unauthenticated) != 2 || len(info.AgentDigests) != 1 {
		t.Errorf("after the user's save, %d unauthenticated (%+v), %d agent digests", len(info.Unauthenticated), info.Unauthenticated, len(info.AgentDigests))
	}
	out := w.fire("SessionStart", next)
	if out == nil || out.HookSpecificOutput == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "[Ben10]") {
		t.Fatalf("the user's own save was not injected: %+v", out)
	}
}
