package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectConfigCannotLoosen: a repository's .claude/config.yaml may
// tighten security settings but never loosen the user's or the
// defaults; each ignored value is a warning naming its key and file.
func TestProjectConfigCannotLoosen(t *testing.T) {
	tests := []struct {
		name, user, project string
		check               func(*Config) bool
		ignored             string // key reported as ignored ("" = none)
	}{
		{"redaction off", "", "sensitive_redaction: false", func(c *Config) bool { return c.SensitiveRedaction }, "context.sensitive_redaction"},
		{"store outside (absolute)", "", "storage_location: /tmp/elsewhere", func(c *Config) bool { return c.StorageLocation == "" || c.StorageLocation == DefaultStorageLocation }, "context.storage_location"},
		{"store outside (home)", "", "storage_location: ~/stolen", func(c *Config) bool { return !strings.HasPrefix(c.StorageLocation, "~") }, "context.storage_location"},
		{"store outside (..)", "", "storage_location: ../../x", func(c *Config) bool { return !strings.Contains(c.StorageLocation, "..") }, "context.storage_location"},
		{"allowlist", "", "redaction:\n    allowlist: ['AKIA.*']", func(c *Config) bool { return len(c.Redaction.Allowlist) == 0 }, "context.redaction.allowlist"},
		{"allow paths", "", "redaction:\n    allow_paths: ['*']", func(c *Config) bool { return len(c.Redaction.AllowPaths) == 0 }, "context.redaction.allow_paths"},
		{"rules off", "", "redaction:\n    disabled_rules: [aws-access-key]", func(c *Config) bool { return len(c.Redaction.DisabledRules) == 0 }, "context.redaction.disabled_rules"},
		{"encryption off", "encryption:\n    enabled: true\n    key_source: env\n    env: MY_PASS", "encryption: false", func(c *Config) bool { return c.Encryption.Enabled && c.Encryption.Env == "MY_PASS" }, "context.encryption.enabled"},
		{"encryption key swapped", "encryption:\n    enabled: true\n    key_source: env\n    env: MY_PASS", "encryption:\n    key_source: keyfile\n    key_file: key.bin", func(c *Config) bool { return c.Encryption.KeySource == "env" && c.Encryption.KeyFile == "" }, "context.encryption.key_source"},
		{"user rule kept", "redaction:\n    extra_rules: [{id: mine, regex: 'MINE-[0-9]+'}]", "redaction:\n    extra_rules: [{id: theirs, regex: 'X-[0-9]+'}]", func(c *Config) bool { return len(c.Redaction.ExtraRules) == 2 }, ""},
		// Tightening is honoured.
		{"redaction on", "sensitive_redaction: false", "sensitive_redaction: true", func(c *Config) bool { return c.SensitiveRedaction }, ""},
		{"store inside", "", "storage_location: .ctx-store", func(c *Config) bool { return c.StorageLocation == ".ctx-store" }, ""},
		{"encryption on", "", "encryption:\n    enabled: true\n    key_source: env\n    env: P", func(c *Config) bool { return c.Encryption.Enabled }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			if tc.user != "" {
				writeYAML(t, UserConfigPath(home), tc.user)
			}
			writeYAML(t, ProjectConfigPath(project), tc.project)
			cfg, prov, warns, err := LoadConfig(project, home, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(cfg) {
				t.Errorf("effective config %+v", cfg)
			}
			var got []string
			for _, w := range warns {
				if strings.Contains(w.Message, "never loosen") {
					got = append(got, w.Key)
					if w.File != ProjectConfigPath(project) || w.Line == 0 {
						t.Errorf("warning %v does not name the project file and line", w)
					}
				}
			}
			if tc.ignored == "" && len(got) != 0 || tc.ignored != "" && (len(got) == 0 || got[0] != tc.ignored) {
				t.Errorf("ignored %v, want %q (warnings %v)", got, tc.ignored, warns)
			}
			if tc.ignored != "" {
				if l := prov[strings.TrimPrefix(tc.ignored, "context.")].Layer; l == LayerProject {
					t.Errorf("provenance of %s still says the project", tc.ignored)
				}
			}
		})
	}
}

func writeYAML(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("context:\n  "+body+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
