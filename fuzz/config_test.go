package fuzz

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/watch"
)

// FuzzStoreConfig feeds hostile YAML to the project configuration: it
// must load or fail with an error, never panic, and a loaded config must
// have the documented invariants (positive intervals and limits).
func FuzzStoreConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"context:\n  checkpoint_interval: 5\n",
		"context:\n  compaction_snapshots:\n    compression_level: 19\n    retention_count: 3\n",
		"context:\n  encryption: true\n",
		"context:\n  encryption:\n    enabled: true\n    key_source: env\n",
		"context:\n  exclude_patterns: ['*.log', '.env*']\n  sensitive_redaction: false\n",
		"context:\n  redaction:\n    extra_rules:\n      - {id: x, regex: 'a+b', keywords: [a]}\n",
		"context: [1, 2\n",
		"context:\n  checkpoint_interval: -1\n",
		"a: &a [*a]\n",
		"context:\n  lock_timeout: 99999999h\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		home, project := t.TempDir(), t.TempDir()
		if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(store.ProjectConfigPath(project), data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, _, err := store.LoadConfig(project, home, nil)
		if err != nil {
			return
		}
		if cfg.CheckpointInterval <= 0 || cfg.MaxStorageMB <= 0 {
			t.Fatalf("loaded config breaks its invariants: interval %d, max %d MB", cfg.CheckpointInterval, cfg.MaxStorageMB)
		}
	})
}

// FuzzWatchConfig feeds hostile YAML to watch.yaml: an error or a config,
// never a panic.
func FuzzWatchConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"global:\n  poll_interval_seconds: 5\n  cooldown_minutes: 10\n",
		"llms:\n  claude:\n    enabled: true\n    thresholds: {warn_percent: 70, export_percent: 75, compaction_starts_at: 83}\n",
		"llms:\n  kimi:\n    triggers: {file_size_mb: 5, minutes: 15, turns: 10}\n    cooldown_minutes: 5\n",
		"llms:\n  codex:\n    session_paths: ['~/.codex/sessions/**/*.jsonl']\n",
		"llms: [\n",
		"llms:\n  claude:\n    thresholds: {warn_percent: 900}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := watch.ParseConfig("watch.yaml", data, "/home/u")
		if err == nil && cfg == nil {
			t.Fatal("nil config without an error")
		}
	})
}

// FuzzSnapshotIndex decodes hostile index.json; a decoded index must
// marshal and decode again to the same snapshots.
func FuzzSnapshotIndex(f *testing.F) {
	ix := &snapshot.Index{Version: snapshot.IndexVersion, Snapshots: []snapshot.Snapshot{{ID: "pre-compact-20260127-143022-a1b2c3", SessionID: "a1b2c3", CompressedBytes: 10, Tags: []string{"x"}}}}
	f.Add(ix.Marshal())
	f.Add([]byte(`{"version":"1","snapshots":[]}`))
	f.Add([]byte(""))
	f.Add([]byte(`{"version":"1","snapshots":[{"id":"a","created_at":"not a time"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := snapshot.ParseIndex(data)
		if err != nil {
			return
		}
		again, err := snapshot.ParseIndex(ix.Marshal())
		if err != nil {
			t.Fatalf("re-parsing a marshalled index: %v", err)
		}
		if len(again.Snapshots) != len(ix.Snapshots) {
			t.Fatalf("round trip changed the snapshot count %d → %d", len(ix.Snapshots), len(again.Snapshots))
		}
	})
}

// FuzzHookInputAndSettings parses hostile hook stdin, and installs the
// hooks into a hostile settings file: Install either refuses (leaving the
// file as it was) or writes JSON in which every registration is found.
func FuzzHookInputAndSettings(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"PreCompact","trigger":"auto"}`), []byte(`{"hooks":{}}`))
	f.Add([]byte(`{`), []byte(`{"model":"x","hooks":{"PreCompact":[{"matcher":"auto","hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add([]byte(``), []byte(``))
	f.Add([]byte(`[]`), []byte(`{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"'/b/ben10' hook session-end"}]}]}}`))
	f.Fuzz(func(t *testing.T, stdin, settings []byte) {
		_, _ = hook.ParseInput(stdin)
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, settings, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := hook.InstallFile(path, hook.EditOptions{Bin: "/opt/ben10/ben10"}); err != nil {
			after, _ := os.ReadFile(path)
			if string(after) != string(settings) {
				t.Fatalf("refused install changed the file")
			}
			return
		}
		after, _ := os.ReadFile(path)
		if !json.Valid(after) {
			t.Fatalf("installed settings are not JSON:\n%s", after)
		}
		st, err := hook.Status(path, hook.ScopeUser)
		if err != nil || len(st.Missing) != 0 {
			t.Fatalf("after install: missing %v, err %v", st.Missing, err)
		}
		if _, err := hook.UninstallFile(path, hook.EditOptions{}); err != nil {
			t.Fatalf("uninstall after install: %v", err)
		}
	})
}

// FuzzContextUsage reads hostile session tails for every harness.
func FuzzContextUsage(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"model":"claude-opus-4-6","usage":{"input_tokens":10,"cache_read_input_tokens":5}}}`+"\n"), uint8(0))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":100},"model_context_window":1000}}}`+"\n"), uint8(1))
	f.Add([]byte(`{"sessionId":"x"}`+"\n"+`{"id":"m","type":"gemini","tokens":{"input":5,"output":1},"model":"gemini-2.5-pro"}`+"\n"), uint8(2))
	f.Add([]byte(`{"role":"_usage","token_count":42}`+"\n"), uint8(3))
	harnesses := []archive.Harness{archive.HarnessClaude, archive.HarnessCodex, archive.HarnessGemini, archive.HarnessKimi}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		h := harnesses[int(which)%len(harnesses)]
		name := "session.jsonl"
		if h == archive.HarnessKimi {
			name = "context.jsonl"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		used, window, err := transcript.ContextUsage(path, h)
		if err == nil && (used < 0 || window < 0) {
			t.Fatalf("negative usage %d / %d", used, window)
		}
	})
}
