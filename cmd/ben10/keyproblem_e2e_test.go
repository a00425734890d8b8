package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreKeyProblemIsNotCorruption: an encrypted current.ctx restored
// without its passphrase, or with a wrong one, stays where it is (nothing
// moves to corrupt/, no older file is restored in its place), and the
// error names the key that is needed. With the right passphrase the
// same restore succeeds.
func TestRestoreKeyProblemIsNotCorruption(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: Argon2id at its default cost in the binary; TestArchiveEncrypted covers encryption, make test-long runs this")
	}
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.writeConfig("context:\n  checkpoint_interval: 1\n  encryption:\n    enabled: true\n    key_source: env\n    env: BEN10_TEST_KEY\n")
	key := "BEN10_TEST_KEY=correct horse"
	w.fire("SessionStart", map[string]any{"source": "startup"}, key)
	// The checkpoint and the final save by the worker, run in the
	// foreground (an encrypted save derives its key more than once: no
	// hook deadline to race on a loaded machine).
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"}, key, "BEN10_HOOK_WORK=defer")
	w.fire("SessionEnd", map[string]any{"reason": "prompt_input_exit"}, key, "BEN10_HOOK_WORK=defer")
	if r := runBen10(t, nil, append(append([]string(nil), w.env...), key), "internal", "work"); r.code != 0 {
		t.Fatalf("internal work: exit %d\n%s", r.code, r.stderr)
	}
	cur := filepath.Join(w.contextDir(), "current.ctx")
	before, err := os.ReadFile(cur)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"no passphrase", []string{"BEN10_TEST_KEY=", "BEN10_PASSPHRASE="}, "BEN10_TEST_KEY"},
		{"wrong passphrase", []string{"BEN10_TEST_KEY=battery staple", "BEN10_PASSPHRASE="}, "wrong passphrase"},
	} {
		for _, args := range [][]string{{"context", "restore"}, {"context", "restore", "--mode", "full"}} {
			r := runBen10(t, nil, append(append([]string(nil), w.env...), tc.env...), append(args, "--dir", w.project)...)
			if r.code == 0 {
				t.Errorf("%s: %s: exit 0\n%s", tc.name, strings.Join(args, " "), r.stdout)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%s: %s: the error does not say which key is needed (%q):\n%s", tc.name, strings.Join(args, " "), tc.want, r.stderr)
			}
			now, err := os.ReadFile(cur)
			if err != nil || !bytes.Equal(now, before) {
				t.Fatalf("%s: %s: current.ctx moved or changed (%v)", tc.name, strings.Join(args, " "), err)
			}
			if ents, _ := os.ReadDir(filepath.Join(w.contextDir(), "corrupt")); len(ents) > 0 {
				t.Fatalf("%s: %s: %d files quarantined into corrupt/", tc.name, strings.Join(args, " "), len(ents))
			}
		}
	}
	cfgDir := filepath.Join(w.home, "claude-config")
	r := runBen10(t, nil, append(append([]string(nil), w.env...), key, "CLAUDE_CONFIG_DIR="+cfgDir), "context", "restore", "--dir", w.project)
	if r.code != 0 {
		t.Fatalf("restore with the right passphrase: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
