package main

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/watch"
)

// fakeSession is a session file of one assistant that a test appends to,
// laid out as the assistant itself lays it out under home.
type fakeSession struct {
	llm    string
	id     string
	path   string // the file the usage records go to
	window int64  // the context window its usage counts against
	cwd    string // the project directory the session works in
	n      int
	t      time.Time
}

func appendFile(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// newFakeSessions creates one session per assistant under home, all
// working in project, with their opening records.
func newFakeSessions(t testing.TB, home, project string, k int) []*fakeSession {
	t.Helper()
	t0 := time.Now().UTC().Add(-time.Minute)
	uuid := func(llm string) string {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s-%d-%s", llm, k, project)))
		x := hex.EncodeToString(h[:16])
		return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
	}
	var out []*fakeSession

	// Claude Code: ~/.claude/projects/<cwd with - for non-alphanumerics>/<id>.jsonl
	id := uuid("claude")
	enc := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, project)
	cl := &fakeSession{llm: "claude", id: id, path: filepath.Join(home, ".claude", "projects", enc, id+".jsonl"), window: 200_000, t: t0}
	os.MkdirAll(filepath.Dir(cl.path), 0o700)
	appendFile(t, cl.path, js(map[string]any{"type": "file-history-snapshot", "messageId": "m0", "snapshot": map[string]any{}, "isSnapshotUpdate": false}))
	cl.cwd = project
	out = append(out, cl)

	// Codex: ~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl
	id = uuid("codex")
	cx := &fakeSession{llm: "codex", id: id, window: 258_400, t: t0,
		path: filepath.Join(home, ".codex", "sessions", t0.Format("2006"), t0.Format("01"), t0.Format("02"),
			"rollout-"+t0.Local().Format("2006-01-02T15-04-05")+"-"+id+".jsonl")}
	os.MkdirAll(filepath.Dir(cx.path), 0o700)
	appendFile(t, cx.path,
		js(map[string]any{"timestamp": t0.Format(time.RFC3339Nano), "type": "session_meta", "payload": map[string]any{
			"id": id, "timestamp": t0.Format(time.RFC3339Nano), "cwd": project, "originator": "codex_cli_rs",
			"cli_version": "0.104.0", "source": "cli", "model_provider": "openai"}}),
		js(map[string]any{"timestamp": t0.Format(time.RFC3339Nano), "type": "turn_context", "payload": map[string]any{
			"cwd": project, "approval_policy": "on-request", "sandbox_policy": map[string]any{"type": "workspace-write"},
			"model": "gpt-5-codex", "summary": "auto"}}))
	out = append(out, cx)

	// Gemini CLI ≥ 0.39: ~/.gemini/tmp/<slug>/chats/session-<UTC>-<id8>.jsonl,
	// the slug mapped in projects.json and .project_root.
	id = uuid("gemini")
	slug := fmt.Sprintf("proj-%d", k)
	gdir := filepath.Join(home, ".gemini", "tmp", slug)
	gm := &fakeSession{llm: "gemini", id: id, window: 1_048_576, t: t0,
		path: filepath.Join(gdir, "chats", "session-"+t0.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")}
	os.MkdirAll(filepath.Dir(gm.path), 0o700)
	os.WriteFile(filepath.Join(gdir, ".project_root"), []byte(project), 0o600)
	projects := map[string]any{}
	pj := filepath.Join(home, ".gemini", "projects.json")
	if b, err := os.ReadFile(pj); err == nil {
		var cur struct {
			Projects map[string]any `json:"projects"`
		}
		json.Unmarshal(b, &cur)
		for k, v := range cur.Projects {
			projects[k] = v
		}
	}
	projects[project] = slug
	writeJSONFile(t, pj, map[string]any{"projects": projects})
	ph := sha256.Sum256([]byte(project))
	appendFile(t, gm.path, js(map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(ph[:]),
		"startTime": t0.Format(time.RFC3339Nano), "lastUpdated": t0.Format(time.RFC3339Nano), "kind": "main"}))
	out = append(out, gm)

	// Kimi CLI: ~/.kimi/sessions/<md5(work dir)>/<id>/{context,wire}.jsonl,
	// kimi.json mapping the work dir.
	id = uuid("kimi")
	md := md5.Sum([]byte(project))
	kdir := filepath.Join(home, ".kimi", "sessions", hex.EncodeToString(md[:]), id)
	km := &fakeSession{llm: "kimi", id: id, path: filepath.Join(kdir, "wire.jsonl"), window: 262_144, t: t0}
	os.MkdirAll(kdir, 0o700)
	appendFile(t, filepath.Join(kdir, "context.jsonl"),
		js(map[string]any{"role": "_system_prompt", "content": "You are Kimi, a coding agent."}),
		js(map[string]any{"role": "_checkpoint", "id": 0}))
	appendFile(t, km.path, `{"type": "metadata", "protocol_version": "1.10"}`)
	kj := filepath.Join(home, ".kimi", "kimi.json")
	var dirs struct {
		WorkDirs []map[string]any `json:"work_dirs"`
	}
	if b, err := os.ReadFile(kj); err == nil {
		json.Unmarshal(b, &dirs)
	}
	dirs.WorkDirs = append(dirs.WorkDirs, map[string]any{"path": project, "kaos": "local", "last_session_id": id})
	writeJSONFile(t, kj, dirs)
	out = append(out, km)
	return out
}

// turn appends one user turn and one reply whose usage puts the context
// at pct percent of the session's window, in the assistant's own format.
func (s *fakeSession) turn(t testing.TB, pct float64) {
	t.Helper()
	s.n++
	s.t = s.t.Add(time.Second)
	ts := s.t.Format(time.RFC3339Nano)
	used := int64(pct * float64(s.window) / 100)
	prompt := fmt.Sprintf("step %d: please refactor the parser", s.n)
	reply := fmt.Sprintf("Done with step %d; the parser now streams.", s.n)
	switch s.llm {
	case "claude":
		project := s.cwd
		u, a := fmt.Sprintf("u%d", s.n), fmt.Sprintf("a%d", s.n)
		parent := any(nil)
		if s.n > 1 {
			parent = fmt.Sprintf("a%d", s.n-1)
		}
		appendFile(t, s.path,
			js(map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": project,
				"sessionId": s.id, "version": "2.1.39", "gitBranch": "main", "type": "user",
				"message": map[string]any{"role": "user", "content": prompt}, "uuid": u, "timestamp": ts}),
			js(map[string]any{"parentUuid": u, "isSidechain": false, "userType": "external", "cwd": project,
				"sessionId": s.id, "version": "2.1.39", "gitBranch": "main", "type": "assistant", "requestId": "req_" + a,
				"message": map[string]any{"id": "msg_" + a, "type": "message", "role": "assistant", "model": "claude-opus-4-6",
					"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": "end_turn",
					"usage": map[string]any{"input_tokens": 12, "cache_creation_input_tokens": 800,
						"cache_read_input_tokens": used - 812, "output_tokens": 90}},
				"uuid": a, "timestamp": ts}))
	case "codex":
		appendFile(t, s.path,
			js(map[string]any{"timestamp": ts, "type": "event_msg", "payload": map[string]any{"type": "user_message", "message": prompt}}),
			js(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": prompt}}}}),
			js(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": reply}}}}),
			js(map[string]any{"timestamp": ts, "type": "event_msg", "payload": map[string]any{"type": "token_count",
				"info": map[string]any{
					"total_token_usage":    map[string]any{"input_tokens": used * int64(s.n), "cached_input_tokens": 0, "output_tokens": 50, "reasoning_output_tokens": 0, "total_tokens": used*int64(s.n) + 50},
					"last_token_usage":     map[string]any{"input_tokens": used - 50, "cached_input_tokens": used / 2, "output_tokens": 50, "reasoning_output_tokens": 0, "total_tokens": used},
					"model_context_window": s.window},
				"rate_limits": nil}}))
	case "gemini":
		appendFile(t, s.path,
			js(map[string]any{"id": fmt.Sprintf("u-%d", s.n), "timestamp": ts, "type": "user", "content": []any{map[string]any{"text": prompt}}}),
			js(map[string]any{"id": fmt.Sprintf("g-%d", s.n), "timestamp": ts, "type": "gemini", "content": reply, "thoughts": []any{},
				"model": "gemini-2.5-pro", "tokens": map[string]any{"input": used - 40, "output": 40, "cached": 0, "thoughts": 0, "tool": 0, "total": used}}))
	case "kimi":
		dir := filepath.Dir(s.path)
		appendFile(t, filepath.Join(dir, "context.jsonl"),
			js(map[string]any{"role": "user", "content": prompt}),
			js(map[string]any{"role": "assistant", "content": reply}),
			js(map[string]any{"role": "_usage", "token_count": used}),
			js(map[string]any{"role": "_checkpoint", "id": s.n}))
		epoch := float64(s.t.UnixNano()) / 1e9
		// Python's json.dumps separators, as kimi-cli writes them.
		appendFile(t, s.path,
			fmt.Sprintf(`{"timestamp": %.6f, "message": {"type": "TurnBegin", "payload": {"user_input": %s}}}`, epoch, js(prompt)),
			fmt.Sprintf(`{"timestamp": %.6f, "message": {"type": "ContentPart", "payload": {"type": "text", "text": %s}}}`, epoch, js(reply)),
			fmt.Sprintf(`{"timestamp": %.6f, "message": {"type": "StatusUpdate", "payload": {"context_tokens": %d, "max_context_tokens": %d, "token_usage": {"input_other": 100, "output": 40, "input_cache_read": %d, "input_cache_creation": 0}, "message_id": "m%d"}}}`, epoch, used, s.window, used-140, s.n),
			fmt.Sprintf(`{"timestamp": %.6f, "message": {"type": "TurnEnd", "payload": {}}}`, epoch))
	}
}

// exportPercent is each assistant's default export threshold.
var exportPercent = map[string]float64{"claude": 75, "codex": 85, "gemini": 45, "kimi": 79}

// cooldown is each assistant's default per-session cooldown.
var cooldown = map[string]time.Duration{"claude": 10 * time.Minute, "codex": 10 * time.Minute, "gemini": 10 * time.Minute, "kimi": 5 * time.Minute}

// syncBuf is a goroutine-safe buffer for a child's output.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// cleanEnv is the environment without the assistants' directory
// overrides, with HOME set.
func cleanEnv(home string) []string {
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_SHARE_DIR", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, e)
	}
	return append(env, "HOME="+home, "NO_COLOR=1")
}

// waitFor polls cond every 20 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %s", timeout, what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readWatchState(path string) (*watch.State, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return watch.ReadState(path)
}

func TestWatchDaemonEndToEnd(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	project := t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	os.MkdirAll(filepath.Join(home, ".claude-code"), 0o700)
	if err := os.WriteFile(filepath.Join(home, ".claude-code", "watch.yaml"), []byte(
		"global:\n  poll_interval_seconds: 0.2\n  cooldown_minutes: 10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sessions := newFakeSessions(t, home, project, 0)
	for _, s := range sessions {
		s.turn(t, 20)
	}
	statePath := filepath.Join(home, ".claude-code", "watch-state.json")
	var stderr syncBuf
	cmd := exec.Command(ben10Bin, "watch", "--verbose")
	cmd.Env = cleanEnv(home)
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("watcher output:\n%s", stderr.String())
		}
	}()

	// Every session is discovered as active, below its thresholds.
	waitFor(t, 10*time.Second, "all four sessions active in the state file", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		for _, s := range sessions {
			l := st.LLMs[s.llm]
			if l == nil || !containsID(l.ActiveSessions, s.id) || l.LastContextPercent == nil {
				return false, s.llm + " not active yet"
			}
		}
		return st.Running, "not running"
	})

	// Grow every session until it crosses its export threshold.
	for _, s := range sessions {
		s.turn(t, exportPercent[s.llm]-10)
		s.turn(t, exportPercent[s.llm]+2)
	}
	snapIndex := func() (*snapshot.Index, error) {
		st, err := store.Open(project, store.Options{Home: home, ReadOnly: true})
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(st.IndexPath())
		if err != nil {
			return nil, err
		}
		return snapshot.ParseIndex(b)
	}
	waitFor(t, 15*time.Second, "one snapshot per session", func() (bool, string) {
		ix, err := snapIndex()
		if err != nil {
			return false, err.Error()
		}
		per := map[string]int{}
		for _, sn := range ix.Snapshots {
			per[sn.SessionID]++
		}
		for _, s := range sessions {
			if per[s.id] != 1 {
				return false, fmt.Sprintf("%s has %d snapshots", s.llm, per[s.id])
			}
		}
		return true, ""
	})

	// More usage above the threshold, within the cooldown: no second
	// snapshot. Wait until the watcher has evaluated the new records (the
	// state shows the higher percentage) and a few polls more.
	for _, s := range sessions {
		s.turn(t, exportPercent[s.llm]+4)
	}
	waitFor(t, 10*time.Second, "the watcher to see the newest usage", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		for _, s := range sessions {
			ss := st.LLMs[s.llm].Sessions[s.id]
			if ss == nil || ss.ContextPercent == nil || *ss.ContextPercent < exportPercent[s.llm]+3.5 {
				return false, s.llm + " not re-evaluated"
			}
		}
		return true, ""
	})
	seen := time.Now()
	waitFor(t, 5*time.Second, "three more polls", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		return st.LastUpdated.After(seen.Add(600 * time.Millisecond)), "no poll yet"
	})
	ix, err := snapIndex()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string][]snapshot.Snapshot{}
	for _, sn := range ix.Snapshots {
		per[sn.SessionID] = append(per[sn.SessionID], sn)
	}
	if len(ix.Snapshots) != len(sessions) {
		t.Errorf("index has %d snapshots, want %d (one per session)", len(ix.Snapshots), len(sessions))
	}
	for _, s := range sessions {
		got := per[s.id]
		if len(got) != 1 {
			t.Errorf("%s: %d snapshots within the cooldown, want 1", s.llm, len(got))
			continue
		}
		if got[0].Source != "watcher" {
			t.Errorf("%s: snapshot source %q, want watcher", s.llm, got[0].Source)
		}
		want := int64((exportPercent[s.llm] + 2) * float64(s.window) / 100)
		if tok := got[0].PreCompaction.TokenCount; tok != want {
			t.Errorf("%s: snapshot pre-compaction tokens %d, want %d", s.llm, tok, want)
		}
	}

	// The state file: counts, cooldowns, last export and context % per
	// assistant.
	st, err := readWatchState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != watch.StateVersion || st.PID != cmd.Process.Pid || !st.Running {
		t.Errorf("state header: version %q pid %d running %v", st.Version, st.PID, st.Running)
	}
	for _, s := range sessions {
		l := st.LLMs[s.llm]
		ss := l.Sessions[s.id]
		switch {
		case !l.Enabled:
			t.Errorf("%s: not enabled in the state", s.llm)
		case l.SnapshotsTaken != 1 || ss.Snapshots != 1 || ss.SnapshotSource != "watcher":
			t.Errorf("%s: snapshots %d/%d source %q, want 1 by the watcher", s.llm, l.SnapshotsTaken, ss.Snapshots, ss.SnapshotSource)
		case l.ExportsTriggered != 1:
			t.Errorf("%s: exports %d, want 1", s.llm, l.ExportsTriggered)
		case l.LastExport.IsZero() || l.SessionCooldowns[s.id].Sub(l.LastExport) != cooldown[s.llm]:
			t.Errorf("%s: last export %v, cooldown until %v", s.llm, l.LastExport, l.SessionCooldowns[s.id])
		case l.LastContextPercent == nil || *l.LastContextPercent < exportPercent[s.llm]+3.5:
			t.Errorf("%s: last context %% %v", s.llm, l.LastContextPercent)
		case ss.Project != project:
			t.Errorf("%s: project %q, want %q", s.llm, ss.Project, project)
		case !strings.Contains(ss.LastBlocked, "cooldown"):
			t.Errorf("%s: last blocked %q, want a cooldown", s.llm, ss.LastBlocked)
		}
	}
	if st.GlobalStats.TotalSnapshots != 4 || st.GlobalStats.TotalExports != 4 {
		t.Errorf("global stats %+v", st.GlobalStats)
	}

	// SIGTERM: a clean stop that records it.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("watcher exited with %v after SIGTERM", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watcher did not stop within 5 s of SIGTERM")
	}
	st, err = readWatchState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Running {
		t.Error("state still says running after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("no stop message in the log")
	}

	// --status reads the state back.
	r := runBen10(t, nil, cleanEnv(home), "watch", "--status", "--llm", "kimi")
	if r.code != 0 || !strings.Contains(r.stdout, "watcher not running") || !strings.Contains(r.stdout, sessions[3].id) {
		t.Errorf("watch --status: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func containsID(l []string, id string) bool {
	for _, x := range l {
		if x == id {
			return true
		}
	}
	return false
}

// SIGHUP reloads the configuration: an assistant enabled in the file
// afterwards is watched without a restart; a broken file keeps the old
// configuration.
func TestWatchSIGHUPReload(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	cfgPath := filepath.Join(home, ".claude-code", "watch.yaml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	os.WriteFile(cfgPath, []byte("global: {poll_interval_seconds: 0.1}\nllms:\n  claude: false\n"), 0o600)
	sessions := newFakeSessions(t, home, project, 3)
	sessions[0].turn(t, 30)
	var log syncBuf
	cmd := exec.Command(ben10Bin, "watch", "--llm", "claude")
	cmd.Env = cleanEnv(home)
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("watcher output:\n%s", log.String())
		}
	}()
	statePath := filepath.Join(home, ".claude-code", "watch-state.json")
	waitFor(t, 10*time.Second, "claude reported disabled", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		l := st.LLMs["claude"]
		return l != nil && !l.Enabled && l.Disabled == "enabled: false", "not yet"
	})
	os.WriteFile(cfgPath, []byte("global: {poll_interval_seconds: 0.1}\nllms:\n  claude: true\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, 10*time.Second, "claude watched after SIGHUP", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		l := st.LLMs["claude"]
		return l.Enabled && containsID(l.ActiveSessions, sessions[0].id), "not yet"
	})
	os.WriteFile(cfgPath, []byte("llms: [broken\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, 10*time.Second, "the reload error", func() (bool, string) {
		return strings.Contains(log.String(), "keeping the previous configuration"), "not yet"
	})
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGINT: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit within 5 s of SIGINT")
	}
	if st, _ := readWatchState(statePath); st == nil || st.Running || !st.LLMs["claude"].Enabled {
		t.Errorf("final state: %+v", st)
	}
}
