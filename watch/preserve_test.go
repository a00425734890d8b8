package watch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// claudeSession writes a Claude Code transcript for project under home
// whose latest usage is pct% of 200k.
func claudeSession(t *testing.T, home, project, id string, pct float64) string {
	t.Helper()
	enc := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, project)
	p := filepath.Join(home, ".claude", "projects", enc, id+".jsonl")
	used := int64(pct * 2000)
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	line := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	mkfile(t, p, line(map[string]any{"type": "user", "uuid": "u1", "parentUuid": nil, "isSidechain": false, "cwd": project, "sessionId": id, "timestamp": ts,
		"message": map[string]any{"role": "user", "content": "refactor the parser"}})+"\n"+
		line(map[string]any{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "isSidechain": false, "cwd": project, "sessionId": id, "timestamp": ts, "requestId": "r1",
			"message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-opus-4-6", "content": []any{map[string]any{"type": "text", "text": "done"}},
				"usage": map[string]any{"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": used - 10, "output_tokens": 5}}})+"\n")
	return p
}

// The cooldown is shared with the hooks: a snapshot the hook took a
// minute ago keeps the watcher from taking another one (it still writes
// the incremental archive), and the watcher records who took it.
func TestWatcherHonoursHookSnapshotCooldown(t *testing.T) {
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_SHARE_DIR"} {
		t.Setenv(k, "")
	}
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	const id = "6f1c2a3b-0000-4000-8000-00000000abcd"
	tr := claudeSession(t, home, project, id, 80)
	now := time.Now()

	st, err := store.Open(project, store.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	m := snapshot.NewManager(st, st.Config())
	hookSnap, err := m.Create(snapshot.CreateOptions{TranscriptPath: tr, Harness: archive.HarnessClaude, SessionID: id,
		Trigger: "auto", Source: "hook", Now: now.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}

	w, err := New(Options{Home: home, Only: []archive.Harness{archive.HarnessClaude}, NoNotify: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := w.Once()
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range evs {
		if e.Action != "evaluate" {
			actions = append(actions, e.Action+": "+e.Detail)
		}
	}
	got := strings.Join(actions, "\n")
	if !strings.Contains(got, "archive: context 80.0%") || !strings.Contains(got, "blocked: session already has snapshot "+hookSnap.Snapshot.ID+" from the hook") {
		t.Errorf("events:\n%s", got)
	}
	ix, err := m.Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Snapshots) != 1 || ix.Snapshots[0].Source != "hook" {
		t.Errorf("index: %+v", ix.Snapshots)
	}
	ss := stateOf(w).LLMs["claude"].Sessions[id]
	if ss.SnapshotSource != "hook" || ss.LastSnapshotID != hookSnap.Snapshot.ID || ss.Snapshots != 0 || ss.Exports != 1 {
		t.Errorf("session state: %+v", ss)
	}
	if meta, err := st.ReadMeta(); err != nil || meta.SessionID != id || meta.Extra["source"] != "watcher" {
		t.Errorf("current.ctx meta: %+v %v", meta, err)
	}

	// Past the cooldown the watcher snapshots again (source watcher), and
	// the archive is incremental.
	later := now.Add(11 * time.Minute)
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"type":"assistant","uuid":"a2","parentUuid":"a1","isSidechain":false,"cwd":%q,"sessionId":%q,"timestamp":%q,"requestId":"r2","message":{"id":"m2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"more"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":163990,"output_tokens":5}}}`+"\n", project, id, later.UTC().Format(time.RFC3339Nano))
	f.Close()
	os.Chtimes(tr, later, later)
	w2, err := New(Options{Home: home, Only: []archive.Harness{archive.HarnessClaude}, NoNotify: true, Now: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Once(); err != nil {
		t.Fatal(err)
	}
	ix, _ = m.Index()
	if len(ix.Snapshots) != 2 || ix.Snapshots[1].Source != "watcher" || ix.Snapshots[1].PreCompaction.TokenCount != 164000 {
		t.Errorf("after the cooldown: %+v", ix.Snapshots)
	}
	ss = stateOf(w2).LLMs["claude"].Sessions[id]
	if ss.Snapshots != 1 || ss.SnapshotSource != "watcher" || ss.Exports != 2 {
		t.Errorf("session state after the cooldown: %+v", ss)
	}
}

// stateOf returns a copy of w's current state.
func stateOf(w *Watcher) *State {
	w.mu.Lock()
	defer w.mu.Unlock()
	cp := *w.state
	return &cp
}
