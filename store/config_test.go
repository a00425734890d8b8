package store

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	e := newEnv(t)
	cfg, prov, warns, err := LoadConfig(e.project, e.home, nil)
	if err != nil || len(warns) != 0 {
		t.Fatalf("%v %v", warns, err)
	}
	def := DefaultConfig()
	if cfg.MaxStorageMB != 100 || cfg.CompactionSnapshots.MaxStorageMB != 500 || cfg.CompactionSnapshots.CompressionLevel != DefaultSnapshotCompressionLevel ||
		cfg.LockTimeout != 2*time.Second || cfg.SnapshotDebounce != 5*time.Minute || cfg.Recovery.CompactDigestChars != 9500 ||
		cfg.Recovery.StartupDigestChars != 2000 || cfg.Recovery.StartupMaxAge != 4*time.Hour || cfg.CheckpointMinutes != 15 ||
		cfg.HistoryRetentionCount != 5 || cfg.CheckpointRetentionDays != 7 || cfg.DefaultRestoreMode != "full" ||
		cfg.StorageLocation != def.StorageLocation || !cfg.AutoSave || cfg.LazyRestore {
		t.Fatalf("defaults: %+v", cfg)
	}
	// Every PRD key (FR-5.2) is covered.
	prd := []string{"auto_save", "auto_restore", "checkpoint_interval", "storage_location", "max_storage_mb",
		"history_retention_count", "checkpoint_retention_days", "compaction_snapshots.enabled",
		"compaction_snapshots.retention_count", "compaction_snapshots.retention_days", "compaction_snapshots.max_storage_mb",
		"compaction_snapshots.compression_level", "compaction_snapshots.include_file_contents",
		"compaction_snapshots.notify_on_snapshot", "default_restore_mode", "reconcile_on_restore", "exclude_patterns",
		"sensitive_redaction", "compression", "lazy_restore", "encryption.enabled"}
	for _, k := range prd {
		if src, ok := prov[k]; !ok || src.Layer != LayerDefault {
			t.Errorf("key %s: provenance %+v %v", k, src, ok)
		}
	}
	if len(Settings(cfg, prov)) != len(specOrder) || len(prov) != len(specOrder) {
		t.Fatalf("%d settings, %d keys, %d provenance entries", len(Settings(cfg, prov)), len(specOrder), len(prov))
	}
}

func TestLoadConfigPrecedence(t *testing.T) {
	e := newEnv(t)
	user := UserConfigPath(e.home)
	project := ProjectConfigPath(e.project)
	writeFile(t, user, `context:
  auto_save: false
  max_storage_mb: 200
  compaction_snapshots:
    retention_count: 7
  exclude_patterns: [a]
  lock_timeout: 9s
`)
	writeFile(t, project, `# project
context:
  max_storage_mb: 300
  lock_timeout: 5s
  exclude_patterns:
    - b
    - c
  encryption: true
  redaction:
    extra_rules:
      - id: corp-token
        regex: 'corp_[a-z0-9]{16}'
        keywords: [corp_]
`)
	cfg, prov, warns, err := LoadConfig(e.project, e.home, map[string]string{
		"lock_timeout":                         "1s",
		"context.compaction_snapshots.enabled": "false",
	})
	if err != nil || len(warns) != 0 {
		t.Fatalf("%v %v", warns, err)
	}
	checks := []struct {
		key   string
		value any
		src   Source
	}{
		{"auto_save", false, Source{LayerUser, user, 2}},
		{"max_storage_mb", 300, Source{LayerProject, project, 3}},
		{"compaction_snapshots.retention_count", 7, Source{LayerUser, user, 5}},
		{"compaction_snapshots.enabled", false, Source{LayerFlag, "", 0}},
		{"lock_timeout", time.Second, Source{LayerFlag, "", 0}},
		{"encryption.enabled", true, Source{LayerProject, project, 8}},
		{"auto_restore", true, Source{LayerDefault, "", 0}},
	}
	for _, c := range checks {
		v, err := cfg.Get(c.key)
		if err != nil || v != c.value || prov[c.key] != c.src {
			t.Errorf("%s = %v from %+v; want %v from %+v (%v)", c.key, v, prov[c.key], c.value, c.src, err)
		}
	}
	if strings.Join(cfg.ExcludePatterns, ",") != "b,c" || prov["exclude_patterns"].Line != 5 {
		t.Errorf("exclude_patterns %v from %+v (a later layer replaces the list)", cfg.ExcludePatterns, prov["exclude_patterns"])
	}
	if len(cfg.Redaction.ExtraRules) != 1 || cfg.Redaction.ExtraRules[0].ID != "corp-token" || cfg.Redaction.ExtraRules[0].Keywords[0] != "corp_" {
		t.Errorf("extra rules %+v", cfg.Redaction.ExtraRules)
	}
	if got := prov["max_storage_mb"].String(); got != "project ("+project+":3)" {
		t.Errorf("source string %q", got)
	}
	for _, s := range Settings(cfg, prov) {
		if s.Key == "lock_timeout" && (s.Text != "1s" || s.Value != "1s") {
			t.Errorf("lock_timeout setting %+v", s)
		}
	}
}

func TestLoadConfigWarnings(t *testing.T) {
	e := newEnv(t)
	project := ProjectConfigPath(e.project)
	writeFile(t, project, `context:
  auto_sav: true
  compaction_snapshots:
    retention: 3
  max_storage_mb: 10
  max_storage_mb: 20
  lock_timeot: 1s
hooks: {}
auto_save: false
`)
	cfg, _, warns, err := LoadConfig(e.project, e.home, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int
		key  string
		has  string
	}{
		{2, "context.auto_sav", "did you mean context.auto_save?"},
		{4, "context.compaction_snapshots.retention", "unknown key context.compaction_snapshots.retention"},
		{6, "context.max_storage_mb", "duplicate key context.max_storage_mb (first at line 5)"},
		{7, "context.lock_timeot", "did you mean context.lock_timeout?"},
		{8, "hooks", "unknown top-level key"},
		{9, "auto_save", "belongs under `context:`"},
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings: %v", warns)
	}
	for i, w := range want {
		got := warns[i]
		if got.File != project || got.Line != w.line || got.Key != w.key || !strings.Contains(got.Message, w.has) {
			t.Errorf("warning %d: %+v (%s); want line %d key %s containing %q", i, got, got, w.line, w.key, w.has)
		}
	}
	if cfg.MaxStorageMB != 20 {
		t.Errorf("duplicate key: last one should win, got %d", cfg.MaxStorageMB)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		line    int
		key     string
		allowed string
	}{
		{"bool", "context:\n  auto_save: yes\n", 2, "auto_save", "true, false"},
		{"int range", "context:\n  compaction_snapshots:\n    compression_level: 23\n", 3, "compaction_snapshots.compression_level", "an integer from 1 to 22"},
		{"int type", "context:\n  max_storage_mb: lots\n", 2, "max_storage_mb", "an integer from 1 to"},
		{"enum", "context:\n  default_restore_mode: partial\n", 2, "default_restore_mode", "full, summary, selective"},
		{"duration unit", "context:\n  lock_timeout: 2\n", 2, "lock_timeout", "a duration from 10ms to 10m"},
		{"duration range", "context:\n  snapshot_debounce: 48h\n", 2, "snapshot_debounce", "a duration from 0s to 24h"},
		{"list type", "context:\n  exclude_patterns: '*.log'\n", 2, "exclude_patterns", "a list of glob patterns"},
		{"bad glob", "context:\n  exclude_patterns:\n    - '[a'\n", 3, "exclude_patterns", "a list of glob patterns"},
		{"bad regex", "context:\n  redaction:\n    extra_rules:\n      - id: x\n        regex: '(a'\n", 5, "redaction.extra_rules", "a list of {id, regex, keywords}"},
		{"rule without id", "context:\n  redaction:\n    extra_rules:\n      - regex: 'a'\n", 4, "redaction.extra_rules", "a list of {id, regex, keywords}"},
		{"group scalar", "context:\n  compaction_snapshots: 5\n", 2, "compaction_snapshots", "a mapping of enabled, retention_count"},
		{"encryption value", "context:\n  encryption: maybe\n", 2, "encryption", "true, false, or a mapping"},
		{"empty value", "context:\n  auto_save:\n", 2, "auto_save", "true, false"},
		{"key source", "context:\n  encryption:\n    enabled: true\n    key_source: passphrase-file\n", 4, "encryption.passphrase_file", "a file path (required when"},
		{"not a mapping", "- a\n- b\n", 1, "", ""},
		{"context not a mapping", "context: [1]\n", 1, "", ""},
		{"syntax", "context:\n  auto_save: [\n", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := ProjectConfigPath(e.project)
			writeFile(t, p, tt.yaml)
			_, _, _, err := LoadConfig(e.project, e.home, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("err %v, want a ConfigError", err)
			}
			if ce.File != p || ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Allowed, tt.allowed) {
				t.Fatalf("error %+v (%v); want line %d key %q allowed %q", ce, err, tt.line, tt.key, tt.allowed)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, p) {
				t.Fatalf("message does not start with the file: %s", msg)
			}
			if tt.allowed != "" && !strings.Contains(msg, "(allowed: "+tt.allowed) {
				t.Fatalf("message does not list the allowed values: %s", msg)
			}
		})
	}
}

func TestLoadConfigFlags(t *testing.T) {
	e := newEnv(t)
	_, _, _, err := LoadConfig(e.project, e.home, map[string]string{"nope": "1"})
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("unknown flag: %v", err)
	}
	_, _, _, err = LoadConfig(e.project, e.home, map[string]string{"max_storage_mb": "0"})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.File != "flag" || !strings.Contains(err.Error(), "flag: context.max_storage_mb: invalid value \"0\"") {
		t.Fatalf("invalid flag: %v", err)
	}
	cfg, prov, _, err := LoadConfig(e.project, e.home, map[string]string{"exclude_patterns": "*.tmp, dist/**", "encryption": "true", "encryption.env": "MY_PASS"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.ExcludePatterns, "|") != "*.tmp|dist/**" || !cfg.Encryption.Enabled || prov["encryption.enabled"].Layer != LayerFlag {
		t.Fatalf("%+v %+v", cfg.ExcludePatterns, cfg.Encryption)
	}
	big := strings.Repeat("#", MaxConfigBytes+10)
	writeFile(t, UserConfigPath(e.home), big)
	if _, _, _, err := LoadConfig(e.project, e.home, nil); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("huge file: %v", err)
	}
}

func TestSetConfigValueGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/set_input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	p := ProjectConfigPath(e.project)
	writeFile(t, p, string(in))
	os.Chmod(p, 0o640)
	sets := [][2]string{
		{"compaction_snapshots.retention_count", "10"},
		{"context.lock_timeout", "3s"},
		{"encryption.key_source", "keyfile"},
		{"encryption.key_file", "~/.config/ben10/key"},
		{"exclude_patterns", "*.tmp,dist/**"},
		{"redaction.extra_rules", "[{id: corp, regex: 'corp_[0-9]+', keywords: [corp_]}]"},
		{"storage_location", "yes"},
		{"auto_save", "false"},
	}
	for _, kv := range sets {
		if err := SetConfigValue(p, kv[0], kv[1]); err != nil {
			t.Fatalf("set %s %s: %v", kv[0], kv[1], err)
		}
	}
	got, _ := os.ReadFile(p)
	golden := "testdata/set_want.yaml"
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("set result differs from %s (run with -update after checking):\n%s", golden, got)
	}
	for _, c := range []string{"# Ben10 project settings", "# keep saving", "# Keep N most recent snapshots", "# turned on by ops", "# end of file", "# Pre-compaction snapshot settings"} {
		if !strings.Contains(string(got), c) {
			t.Errorf("comment %q lost", c)
		}
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	cfg, prov, warns, err := LoadConfig(e.project, e.home, nil)
	if err != nil || len(warns) != 0 {
		t.Fatalf("reloading: %v %v", warns, err)
	}
	if cfg.CompactionSnapshots.RetentionCount != 10 || cfg.LockTimeout != 3*time.Second || !cfg.Encryption.Enabled ||
		cfg.Encryption.KeySource != "keyfile" || cfg.Encryption.KeyFile != "~/.config/ben10/key" ||
		strings.Join(cfg.ExcludePatterns, ",") != "*.tmp,dist/**" || cfg.Redaction.ExtraRules[0].ID != "corp" ||
		cfg.StorageLocation != "yes" || cfg.AutoSave || cfg.CheckpointInterval != 10 || cfg.CompactionSnapshots.CompressionLevel != 19 {
		t.Fatalf("reloaded %+v", cfg)
	}
	if prov["lock_timeout"].Layer != LayerProject {
		t.Fatalf("provenance %+v", prov["lock_timeout"])
	}
}

func TestSetConfigValueErrors(t *testing.T) {
	e := newEnv(t)
	p := ProjectConfigPath(e.project)
	orig := "context:\n  max_storage_mb: 100 # limit\n"
	writeFile(t, p, orig)
	tests := []struct {
		key, value string
		want       error
		has        string
	}{
		{"max_storage_mb", "-5", ErrInvalidConfig, "context.max_storage_mb: invalid value \"-5\" (allowed: an integer from 1 to 1048576)"},
		{"default_restore_mode", "partial", ErrInvalidConfig, "allowed: full, summary, selective"},
		{"lock_timeout", "soon", ErrInvalidConfig, "allowed: a duration"},
		{"max_storag_mb", "5", ErrUnknownKey, "did you mean max_storage_mb?"},
		{"compaction_snapshots", "5", ErrUnknownKey, ""},
		{"redaction.extra_rules", "[{id: x}]", ErrInvalidConfig, "has no regex"},
	}
	for _, tt := range tests {
		err := SetConfigValue(p, tt.key, tt.value)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("set %s %s: %v; want %v containing %q", tt.key, tt.value, err, tt.want, tt.has)
		}
	}
	if got, _ := os.ReadFile(p); string(got) != orig {
		t.Fatalf("a refused set changed the file: %q", got)
	}
	// A new user file is created 0600 in a 0700 directory; CRLF is kept.
	up := UserConfigPath(e.home)
	if err := SetConfigValue(up, "auto_restore", "false"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(up); string(got) != "context:\n  auto_restore: false\n" {
		t.Fatalf("new file %q", got)
	}
	if fi, _ := os.Stat(up); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Dir(up)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new dir mode %v", fi.Mode())
	}
	crlf := filepath.Join(e.home, "crlf.yaml")
	writeFile(t, crlf, "# c\r\ncontext:\r\n    auto_save: true\r\n")
	if err := SetConfigValue(crlf, "auto_save", "false"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(crlf); string(got) != "# c\r\ncontext:\r\n    auto_save: false\r\n" {
		t.Fatalf("crlf file %q", got)
	}
}

// TestSetConfigValueInPlace: replacing an existing scalar changes only its
// text; blank lines, comments, quoting and other keys stay byte-identical.
func TestSetConfigValueInPlace(t *testing.T) {
	in, err := os.ReadFile("testdata/set_input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ key, value, old, new string }{
		{"compaction_snapshots.retention_count", "10", "retention_count: 5 #", "retention_count: 10 #"},
		{"auto_save", "false", "auto_save: true #", "auto_save: false #"},
		{"checkpoint_interval", "25", "checkpoint_interval: 10\n", "checkpoint_interval: 25\n"},
		{"encryption", "false", "encryption: true #", "encryption: false #"},
	}
	for _, tt := range tests {
		p := filepath.Join(t.TempDir(), "config.yaml")
		writeFile(t, p, string(in))
		if err := SetConfigValue(p, tt.key, tt.value); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		want := strings.Replace(string(in), tt.old, tt.new, 1)
		if string(got) != want {
			t.Errorf("set %s %s:\n%s\nwant:\n%s", tt.key, tt.value, got, want)
		}
	}
	p := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, p, "context:\n  storage_location: 'it''s here' # q\n  redaction:\n    replacement: \"x\\\"y\" # r\n")
	if err := SetConfigValue(p, "storage_location", "there"); err != nil {
		t.Fatal(err)
	}
	if err := SetConfigValue(p, "redaction.replacement", "true"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "context:\n  storage_location: there # q\n  redaction:\n    replacement: \"true\" # r\n" {
		t.Errorf("quoted values: %q", got)
	}
}
