package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/store"
)

// TestNestedProjectStore is issue 14 item 15: a session started in a
// subdirectory of a project that has a store saves into that store (the
// one the commands read), and a session that only starts, with nothing to
// save, creates no store anywhere.
func TestNestedProjectStore(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.project, "services", "api")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	start := map[string]any{"session_id": demoSession, "source": "startup", "cwd": sub}
	if r := e.fire("SessionStart", start); r.stderr != "" || r.stdout != "" {
		t.Fatalf("SessionStart: stdout %q stderr %q", r.stdout, r.stderr)
	}
	e.fire("Stop", map[string]any{"session_id": demoSession, "cwd": sub})
	for _, d := range []string{e.project, sub} {
		if _, err := os.Stat(filepath.Join(d, ".claude", "context")); err == nil {
			t.Fatalf("a session with nothing to save created a store in %s", d)
		}
	}
	if des, _ := os.ReadDir(filepath.Join(e.home, ".claude-code", "contexts")); len(des) != 0 {
		t.Fatalf("a session with nothing to save created a fallback store: %v", des)
	}

	// The project gets a store; a session started in its subdirectory
	// (CLAUDE_PROJECT_DIR = the subdirectory) saves into it.
	e.initStore()
	e.vars["CLAUDE_PROJECT_DIR"] = sub
	tp := e.transcript(demoSession, 0)
	data, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	// The session's working directory is the subdirectory.
	if err := os.WriteFile(tp, bytes.ReplaceAll(data, []byte(`"cwd":"`+e.project+`"`), []byte(`"cwd":"`+sub+`"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.fire("SessionStart", map[string]any{"session_id": demoSession, "source": "startup", "cwd": sub, "transcript_path": tp})
	if r := e.fire("SessionEnd", map[string]any{"session_id": demoSession, "cwd": sub, "transcript_path": tp, "reason": "other"}); r.stderr != "" {
		t.Fatal(r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.project, ".claude", "context", store.CurrentName)); err != nil {
		t.Fatalf("the subdirectory's session did not save into the project's store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".claude")); err == nil {
		t.Fatal("a store was created in the subdirectory")
	}
	var st *store.Store
	st, err = store.Open(sub, store.Options{Home: e.home, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.ProjectDir() != e.project {
		t.Fatalf("the commands resolve %s to %s, the hooks saved into %s's store", sub, st.ProjectDir(), e.project)
	}
	// A new session in the subdirectory is offered that save.
	delete(e.vars, "CLAUDE_PROJECT_DIR")
	r := e.fire("SessionStart", map[string]any{"session_id": "bbbbbbbb-0000-4000-8000-000000000001", "source": "startup", "cwd": sub})
	if r.out == nil || r.out.HookSpecificOutput == nil {
		t.Fatalf("the project's saved context was not offered in its subdirectory: %q %q", r.stdout, r.stderr)
	}
}
