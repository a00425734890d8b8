package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/index"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The recall commands end to end, with the real binary: a saved context is
// found by search (which indexes it first), opened by show, counted by
// index status, checked by index verify; hooks install registers the MCP
// server, which then answers a search over stdio; uninstall removes it.
func TestRecallCLI(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	p.run(t, "context", "save", "--transcript", p.transcript)

	r := runBen10(t, nil, p.env, "search", "go test ./pkg/calc", "--project", p.dir, "--json")
	var hits []index.Hit
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || r.code != 0 || len(hits) == 0 {
		t.Fatalf("search --json: code %d, %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	if hits[0].Kind != index.KindCommand || hits[0].Session != fixtureSession || !strings.Contains(hits[0].Snippet, "«go test ./pkg/calc»") {
		t.Errorf("first hit: %+v", hits[0])
	}
	r = runBen10(t, nil, p.env, "search", "pkg/calc", "--kind", "path", "--assistant", "claude", "--since", "36500d", "--limit", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "claude/path") || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("search of all projects with filters: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, bad := range [][]string{
		{"search", "zzqqxxyy-nothing"},
		{"search", "ab"},
		{"search", "calc", "--kind", "bogus"},
		{"search", "calc", "--since", "yesterday-ish"},
		{"search", "calc", "--all", "--project", p.dir},
		{"show", "not-a-ref"},
	} {
		if r := runBen10(t, nil, p.env, bad...); r.code == 0 || r.stderr == "" {
			t.Errorf("%v: code %d, stderr %q", bad, r.code, r.stderr)
		}
	}

	r = runBen10(t, nil, p.env, "show", hits[0].Ref, "--before", "1", "--after", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "> ") || !strings.Contains(r.stdout, "go test ./pkg/calc") || !strings.Contains(r.stdout, fixtureSession) {
		t.Errorf("show: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// show --resume: the hit's session becomes a resumable Claude Code
	// session in the hit's project.
	r = runBen10(t, nil, p.env, "show", hits[0].Ref, "--resume", "--json")
	var resumed struct {
		SessionID    string        `json:"session_id"`
		OldSessionID string        `json:"old_session_id"`
		Files        []string      `json:"files"`
		Hit          index.ShowRow `json:"hit"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &resumed); err != nil || r.code != 0 || resumed.OldSessionID != fixtureSession || len(resumed.Files) == 0 || resumed.Hit.Kind != index.KindCommand {
		t.Fatalf("show --resume: code %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(resumed.Files[0]); err != nil || !strings.Contains(string(b), resumed.SessionID) || filepath.Dir(resumed.Files[0]) != p.claudeDir {
		t.Errorf("show --resume wrote %s (want it in %s): %v", resumed.Files[0], p.claudeDir, err)
	}
	if r := runBen10(t, nil, p.env, "show", hits[0].Ref, "--project-dir", p.dir); r.code == 0 {
		t.Errorf("show --project-dir without --resume: code 0")
	}

	var st index.Status
	if err := json.Unmarshal([]byte(runBen10(t, nil, p.env, "index", "status", "--json").stdout), &st); err != nil || st.Indexed != 1 || st.Rows == 0 {
		t.Errorf("index status: %+v %v", st, err)
	}
	if r := runBen10(t, nil, p.env, "index", "verify"); r.code != 0 {
		t.Errorf("index verify: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if fi, err := os.Stat(index.DefaultPath(p.home)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("index file: %v %v", fi, err)
	}
	if r := runBen10(t, nil, p.env, "index", "rebuild", "--project", p.dir); r.code != 0 || !strings.Contains(r.stdout, "1 archives indexed") {
		t.Errorf("index rebuild: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The MCP server, registered by hooks install and started as Claude
	// Code would: `<bin> mcp` in the project directory.
	bin := filepath.Join(t.TempDir(), "ben10")
	if err := os.Link(ben10Bin, bin); err != nil {
		t.Fatal(err)
	}
	p.run(t, "hooks", "install", "--bin", bin)
	conf, err := os.ReadFile(filepath.Join(p.home, ".claude.json"))
	if err != nil || !strings.Contains(string(conf), `"ben10"`) || !strings.Contains(string(conf), bin) {
		t.Fatalf("~/.claude.json after hooks install: %v\n%s", err, conf)
	}
	if r := runBen10(t, nil, p.env, "doctor", "--dir", p.dir, "--json"); !strings.Contains(r.stdout, "6 tools") {
		t.Errorf("doctor does not see the MCP server start:\n%s%s", r.stdout, r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "mcp")
	c.Dir, c.Env = p.dir, append(os.Environ(), p.env...)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "pkg/calc/add.go"}})
	if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "«pkg/calc/add.go»") {
		t.Errorf("mcp search: %v %+v", err, res)
	}
	cs.Close()
	p.run(t, "hooks", "uninstall")
	if conf, _ := os.ReadFile(filepath.Join(p.home, ".claude.json")); strings.Contains(string(conf), "ben10") {
		t.Errorf("~/.claude.json after uninstall:\n%s", conf)
	}
}

func TestParseSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"36h", now.Add(-36 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"2026-01-02T03:04:05Z", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), false},
		{"-3h", time.Time{}, true},
		{"soon", time.Time{}, true},
	}
	for _, tc := range tests {
		got, err := parseSince(tc.in, now)
		if (err != nil) != tc.err || (!tc.err && !got.Equal(tc.want)) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
