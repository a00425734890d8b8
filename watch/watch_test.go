package watch

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func mkfile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGlob(t *testing.T) {
	d := t.TempDir()
	for _, p := range []string{"s/2026/05/01/rollout-a.jsonl", "s/2026/05/02/rollout-b.jsonl", "s/rollout-top.jsonl", "s/2026/other.jsonl", "p/x/a.jsonl", "p/x/sub/b.jsonl"} {
		mkfile(t, filepath.Join(d, p), "{}\n")
	}
	r := glob(filepath.Join(d, "s", "**", "rollout-*.jsonl"))
	var rel []string
	for _, f := range r.files {
		x, _ := filepath.Rel(d, f)
		rel = append(rel, filepath.ToSlash(x))
	}
	if strings.Join(rel, ",") != "s/2026/05/01/rollout-a.jsonl,s/2026/05/02/rollout-b.jsonl,s/rollout-top.jsonl" {
		t.Errorf("** glob: %v", rel)
	}
	if len(r.dirs) != 5 { // s, s/2026, s/2026/05, …/01, …/02
		t.Errorf("walked dirs: %v", r.dirs)
	}
	if r := glob(filepath.Join(d, "p", "*", "*.jsonl")); len(r.files) != 1 {
		t.Errorf("one-level glob: %v", r.files)
	}
	// Brace alternatives match (they used to match nothing, silently).
	mkfile(t, filepath.Join(d, "p", "q", "legacy.json"), "{}")
	if r := glob(filepath.Join(d, "p", "**", "*.{jsonl,json}")); len(r.files) != 3 || !strings.HasSuffix(r.files[0], "legacy.json") {
		t.Errorf("brace glob: %v", r.files)
	}
	if r := glob(filepath.Join(d, "missing", "**", "*.jsonl")); len(r.files)+len(r.dirs) != 0 {
		t.Errorf("missing root: %+v", r)
	}
	for _, c := range []struct {
		pat, path string
		ok        bool
	}{
		{"/a/**/x-*.jsonl", "/a/x-1.jsonl", true},
		{"/a/**/x-*.jsonl", "/a/b/c/x-1.jsonl", true},
		{"/a/**/x-*.jsonl", "/b/x-1.jsonl", false},
		{"/a/*/c.jsonl", "/a/b/c.jsonl", true},
		{"/a/*/c.jsonl", "/a/b/d/c.jsonl", false},
		{"/a/**/*.{jsonl,json}", "/a/b/s.json", true},
		{"/a/**/*.{jsonl,json}", "/a/b/s.jsonl", true},
		{"/a/**/*.{jsonl,json}", "/a/b/s.txt", false},
		{"/a/{b,c}/*.json", "/a/c/s.json", true},
		{"/a/{b,c}/*.json", "/a/d/s.json", false},
		{"/a/**", "/a/b/c.jsonl", true},
		{"/a/b?/*.jsonl", "/a/b1/c.jsonl", true},
	} {
		if matchGlob(c.pat, c.path) != c.ok {
			t.Errorf("matchGlob(%s, %s) != %v", c.pat, c.path, c.ok)
		}
	}
	if expandHome("~/x", "/h") != "/h/x" || expandHome("/y", "/h") != "/y" {
		t.Error("expandHome")
	}
}

func TestSessionFor(t *testing.T) {
	d := t.TempDir()
	gem := filepath.Join(d, "chats", "session-2026-05-01T12-00-abcd1234.jsonl")
	mkfile(t, gem, `{"sessionId":"abcd1234-0000-4000-8000-000000000000","projectHash":"x"}`+"\n")
	legacy := filepath.Join(d, "chats", "session-2026-05-01T12-00-legacy.json")
	mkfile(t, legacy, `{ "sessionId" : "legacy-id", "messages": []}`)
	cases := []struct {
		h          archive.Harness
		path, id   string
		turnSuffix string
		ok         bool
	}{
		{archive.HarnessClaude, "/p/-x/2b6c.jsonl", "2b6c", "2b6c.jsonl", true},
		{archive.HarnessClaude, "/p/-x/agent-a1.jsonl", "", "", false},
		{archive.HarnessCodex, "/s/rollout-2026-05-01T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl", "019c8a53-a0dd-7130-bcd7-95445d84846a", ".jsonl", true},
		// No UUID at the end: the whole name is the id.
		{archive.HarnessCodex, "/s/rollout-2026-05-01T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846z.jsonl", "rollout-2026-05-01T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846z", ".jsonl", true},
		{archive.HarnessCodex, "/s/rollout-short.jsonl", "rollout-short", ".jsonl", true},
		{archive.HarnessGemini, gem, "abcd1234-0000-4000-8000-000000000000", ".jsonl", true},
		{archive.HarnessGemini, legacy, "legacy-id", ".json", true},
		{archive.HarnessKimi, "/k/sessions/h/uuid-1/wire.jsonl", "uuid-1", "wire.jsonl", true},
		{archive.HarnessKimi, "/k/sessions/h/uuid-1/context.jsonl", "uuid-1", "wire.jsonl", true},
	}
	for _, c := range cases {
		s, ok := sessionFor(c.h, c.path)
		if ok != c.ok || ok && (s.ID != c.id || !strings.HasSuffix(s.TurnFile, c.turnSuffix)) {
			t.Errorf("%s %s: %+v %v", c.h, c.path, s, ok)
		}
		if ok && c.h == archive.HarnessKimi && (filepath.Base(s.Path) != "context.jsonl" || len(s.Files) != 2) {
			t.Errorf("kimi session files: %+v", s)
		}
	}
}

func TestCountTurns(t *testing.T) {
	d := t.TempDir()
	cases := []struct {
		h     archive.Harness
		lines []string
		want  int
	}{
		{archive.HarnessClaude, []string{
			`{"type":"user","message":{"role":"user","content":"fix it"}}`,
			`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and this"}]}}`,
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`,
			`{"type":"user","isMeta":true,"message":{"role":"user","content":"<command>"}}`,
			`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`,
			`{"type":"user","isSidechain":true,"message":{"role":"user","content":"sub"}}`,
			`{"type":"assistant","message":{"role":"assistant","content":"user"}}`,
		}, 2},
		{archive.HarnessCodex, []string{
			`{"type":"event_msg","payload":{"type":"user_message","message":"a"}}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"user_message"}]}}`,
			`{"type":"event_msg","payload":{"type":"user_message","message":"b"}}`,
		}, 2},
		{archive.HarnessGemini, []string{
			`{"sessionId":"s","projectHash":"h"}`,
			`{"id":"u1","timestamp":"t","type":"user","content":[{"text":"hi"}]}`,
			`{"id":"g1","timestamp":"t","type":"gemini","content":"user"}`,
			`{"$set":{"lastUpdated":"t"}}`,
		}, 1},
		{archive.HarnessKimi, []string{
			`{"type": "metadata", "protocol_version": "1.10"}`,
			`{"timestamp": 1.5, "message": {"type": "TurnBegin", "payload": {"user_input": "x"}}}`,
			`{"timestamp": 1.6, "message": {"type": "ContentPart", "payload": {"text": "TurnBegin"}}}`,
			`{"timestamp":1.7,"message":{"type":"TurnBegin","payload":{"user_input":"y"}}}`,
		}, 2},
	}
	for _, c := range cases {
		p := filepath.Join(d, string(c.h)+".jsonl")
		body := strings.Join(c.lines, "\n") + "\n"
		mkfile(t, p, body+`{"type":"user","message":{"content":"cut`) // a partial last line
		n, off, err := countTurns(c.h, p, 0)
		if err != nil || n != c.want || off != int64(len(body)) {
			t.Errorf("%s: %d turns, offset %d (%v), want %d at %d", c.h, n, off, err, c.want, len(body))
		}
		// Nothing new: nothing counted; a rewritten (shorter) file restarts.
		if n, off2, _ := countTurns(c.h, p, off); n != 0 || off2 != off {
			t.Errorf("%s: recount %d %d", c.h, n, off2)
		}
		mkfile(t, p, c.lines[0]+"\n")
		if _, off3, _ := countTurns(c.h, p, off); off3 != int64(len(c.lines[0])+1) {
			t.Errorf("%s: shrunk file offset %d", c.h, off3)
		}
	}
	if _, _, err := countTurns(archive.HarnessClaude, filepath.Join(d, "none"), 0); err == nil {
		t.Error("missing file: no error")
	}
}

func TestStateRoundTripAndDamage(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "sub", "watch-state.json")
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := NewState()
	l := s.llm("kimi")
	pct := 81.5
	l.LastContextPercent = &pct
	l.SessionCooldowns["a"] = now.Add(time.Minute)
	l.SessionCooldowns["old"] = now.Add(-time.Minute)
	l.Sessions["a"] = &SessionState{Path: "/k/a/context.jsonl", LastModified: now, Snapshots: 1}
	l.Sessions["gone"] = &SessionState{LastModified: now.Add(-8 * 24 * time.Hour)}
	s.prune(now)
	if err := s.Write(p); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	got, err := ReadState(p)
	if err != nil {
		t.Fatal(err)
	}
	gl := got.LLMs["kimi"]
	if *gl.LastContextPercent != 81.5 || len(gl.SessionCooldowns) != 1 || len(gl.Sessions) != 1 || gl.Sessions["a"].Snapshots != 1 {
		t.Errorf("round trip: %+v", gl)
	}
	mkfile(t, p, `{"version": 3, "llms": [`)
	if _, err := ReadState(p); !errors.Is(err, ErrBadState) {
		t.Errorf("damaged: %v", err)
	}
	if s, err := ReadState(filepath.Join(d, "none.json")); err != nil || len(s.LLMs) != 0 {
		t.Errorf("missing: %v", err)
	}
	// Too large, or a symbolic link (never followed): damaged too.
	big := filepath.Join(d, "big.json")
	mkfile(t, big, strings.Repeat(" ", maxStateBytes+1))
	link := filepath.Join(d, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, link} {
		if _, err := ReadState(path); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: %v, want ErrBadState", filepath.Base(path), err)
		}
	}
}

func TestServiceUnits(t *testing.T) {
	for _, c := range []struct{ platform, golden string }{{"linux", "ben10-watch.service.golden"}, {"darwin", "dev.ben10.watch.plist.golden"}} {
		data, err := Unit(c.platform, "/opt/ben 10/bin/ben10", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden, data)
		dir, home := t.TempDir(), t.TempDir()
		p, err := Install(c.platform, dir, "/opt/ben 10/bin/ben10", home)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Unit(c.platform, "/opt/ben 10/bin/ben10", home)
		if b, _ := os.ReadFile(p); !bytes.Equal(b, want) {
			t.Errorf("%s: installed file differs from Unit", c.platform)
		}
		if h := EnableHint(c.platform, p, true); h == "" {
			t.Errorf("%s: no enable hint", c.platform)
		}
		if _, removed, err := Uninstall(c.platform, dir, "/h"); !removed || err != nil {
			t.Errorf("%s: uninstall %v %v", c.platform, removed, err)
		}
		if _, removed, err := Uninstall(c.platform, dir, "/h"); removed || err != nil {
			t.Errorf("%s: second uninstall %v %v", c.platform, removed, err)
		}
	}
	if _, err := Unit("plan9", "/b", "/h"); !errors.Is(err, ErrPlatform) {
		t.Errorf("plan9: %v", err)
	}
	if _, err := Unit("linux", "ben10", "/h"); err == nil {
		t.Error("relative binary accepted")
	}
	if got := systemdQuote(`/a/100%/$HOME/"q"\`); got != `"/a/100%%/$$HOME/\"q\"\\"` {
		t.Errorf("systemdQuote: %s", got)
	}
}

func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		s    Status
		want string
	}{
		{Status{}, "ctx –"},
		{Status{Percent: 42.4, HavePercent: true}, "ctx 42%"},
		{Status{Percent: 81, HavePercent: true, Warn: true, LastSnapshot: now.Add(-3*time.Minute - 10*time.Second)}, "ctx 81% ⚠ · snapshot saved 3 min ago"},
		{Status{Percent: 50, HavePercent: true, LastSnapshot: now.Add(-20 * time.Second), Pending: 2}, "ctx 50% · snapshot saved just now · 2 pending"},
		{Status{LastSnapshot: now.Add(-5 * time.Hour)}, "snapshot saved 5 h ago"},
		{Status{LastSnapshot: now.Add(-72 * time.Hour), Pending: 1}, "snapshot saved 3 d ago · 1 pending"},
	}
	for _, c := range cases {
		if got := c.s.Line(now); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

func TestReadStatus(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	mkfile(t, tr, `{"type":"assistant","sessionId":"s1","message":{"model":"claude-opus-4-6","usage":{"input_tokens":10,"cache_creation_input_tokens":990,"cache_read_input_tokens":159000,"output_tokens":5}}}`+"\n")
	in := func(extra string) string {
		return fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":%q,"workspace":{"current_dir":%q,"project_dir":%q}%s}`, tr, project, project, project, extra)
	}
	st, err := ReadStatus(strings.NewReader(in("")), home)
	if err != nil || !st.HavePercent || st.Percent != 80 || !st.Warn || !st.LastSnapshot.IsZero() || st.Pending != 0 {
		t.Fatalf("from transcript: %+v %v", st, err)
	}
	st, _ = ReadStatus(strings.NewReader(in(`,"context_window":{"used_percentage":12.5,"context_window_size":200000}`)), home)
	if st.Percent != 12.5 || st.Warn {
		t.Errorf("used_percentage: %+v", st)
	}
	// A snapshot in the index and one waiting in pending/.
	ctxDir := filepath.Join(project, ".claude", "context")
	mkfile(t, filepath.Join(ctxDir, "compaction-snapshots", "index.json"),
		`{"version":"1","snapshots":[{"id":"pre-compact-20260501-115500-s1","session_id":"s1","created_at":"2026-05-01T11:55:00Z"},{"id":"x","session_id":"other","created_at":"2026-05-01T11:59:00Z"}]}`)
	mkfile(t, filepath.Join(ctxDir, "pending", "snapshot-s1-1-2.pending"), "{}")
	mkfile(t, filepath.Join(ctxDir, "pending", "snapshot-other-1-2.pending"), "{}")
	st, _ = ReadStatus(strings.NewReader(in("")), home)
	if !st.LastSnapshot.Equal(time.Date(2026, 5, 1, 11, 55, 0, 0, time.UTC)) || st.Pending != 1 {
		t.Errorf("store: %+v", st)
	}
	for _, bad := range []string{"", "{", "[1]", `{"session_id": 5}`} {
		if _, err := ReadStatus(strings.NewReader(bad), home); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if st, err := ReadStatus(strings.NewReader(`{"transcript_path":"/nonexistent"}`), home); err != nil || st.HavePercent {
		t.Errorf("missing transcript: %+v %v", st, err)
	}
}
