package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// plantedSecret is a GitHub token the default rules catch, one per place
// it is planted (so that a leak names its source).
func plantedSecret(where string) string {
	s := fmt.Sprintf("ghp_Zq8XwR4tY7uP2mK9vB3nL6cH1jD5fG0s%04d", len(where)*37%10000)
	return s[:40]
}

// TestSecretsNeverStored plants secrets in a project file the session read
// (captured as file contents), a prompt, a tool output, a shell command
// and the session's title, runs every hook and the commands that write
// (saves, named saves, checkpoints, snapshots completed by the
// recompression, exports in every format, a .ctxpkg, extracted files),
// and reads every byte under HOME and the project's store: each file
// whole, and each archive's segments decoded. No secret may be found.
func TestSecretsNeverStored(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	secrets := map[string]string{}
	for _, where := range []string{"file", "prompt", "tool output", "command", "title"} {
		secrets[where] = plantedSecret(where)
	}
	seen := map[string]bool{}
	for k, s := range secrets {
		if seen[s] {
			t.Fatalf("secret for %s not unique", k)
		}
		seen[s] = true
	}
	demo, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	demo = bytes.ReplaceAll(demo, []byte("/home/dev/cart-service"), []byte(w.project))
	for _, r := range []struct{ old, new string }{
		{`"content":"The cart total is wrong`, `"content":"(token ` + secrets["prompt"] + `) The cart total is wrong`},
		{`func applyDiscount(t Money, d Discount) Money {`, `func applyDiscount(t Money, d Discount) Money { // key ` + secrets["tool output"]},
		{`"command":"go test ./internal/cart/..."`, `"command":"GH_TOKEN=` + secrets["command"] + ` go test ./internal/cart/..."`},
	} {
		if !bytes.Contains(demo, []byte(r.old)) {
			t.Fatalf("the demo transcript has no %q", r.old)
		}
		demo = bytes.ReplaceAll(demo, []byte(r.old), []byte(r.new))
	}
	cut := bytes.Index(demo, []byte(`"subtype":"compact_boundary"`))
	cut = bytes.LastIndexByte(demo[:cut], '\n') + 1
	title := fmt.Sprintf(`{"type":"custom-title","customTitle":"deploy with %s","sessionId":%q}`+"\n", secrets["title"], demoSessionID)
	pre := append(append([]byte(nil), demo[:cut]...), title...)
	full := append(append([]byte(nil), demo...), title...)
	// The project file the session read, holding a secret.
	src := filepath.Join(w.project, "internal", "cart", "total.go")
	if err := os.MkdirAll(filepath.Dir(src), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("package cart\n\nconst apiToken = \""+secrets["file"]+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "context:\n  compaction_snapshots:\n    include_file_contents: true\n"
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		r := runBen10(t, nil, w.env, args...)
		if r.code != 0 {
			t.Fatalf("ben10 %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	dir := []string{"--dir", w.project}
	w.writeTranscript(pre)
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("UserPromptSubmit", map[string]any{"prompt": "(token " + secrets["prompt"] + ") The cart total is wrong"})
	w.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_RECOMPRESS=sync")
	w.writeTranscript(full)
	w.fire("SessionStart", map[string]any{"source": "compact"})
	w.fire("Stop", nil)
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	run(append([]string{"context", "save"}, dir...)...)
	run(append([]string{"context", "save", "--name", "shared"}, dir...)...)
	run(append([]string{"context", "save", "--export", "pkg"}, dir...)...)
	run(append([]string{"context", "compaction", "snapshot", "--force"}, dir...)...)
	out := filepath.Join(w.project, ".claude", "context", "exports")
	current := filepath.Join(w.contextDir(), "current.ctx")
	for _, f := range []string{"cusf", "markdown", "json"} {
		run("context", "export", current, "--format", f, "--out", filepath.Join(out, "current."+f))
	}
	run("context", "export", current, "--format", "jsonl", "--dir", filepath.Join(out, "jsonl"))
	var ids []string
	ents, _ := os.ReadDir(filepath.Join(w.contextDir(), "compaction-snapshots"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".ctx") {
			ids = append(ids, strings.TrimSuffix(e.Name(), ".ctx"))
		}
	}
	if len(ids) < 2 {
		t.Fatalf("%d snapshots, want the hooks' and the command's", len(ids))
	}
	for i, id := range ids {
		run(append([]string{"context", "compaction", "extract", id, "--files", "--out", filepath.Join(out, fmt.Sprint("files", i))}, dir...)...)
		run(append([]string{"context", "compaction", "extract", id, "--messages", "--out", filepath.Join(out, fmt.Sprint("messages", i, ".md"))}, dir...)...)
		run(append([]string{"context", "compaction", "export", id, filepath.Join(out, fmt.Sprint("snap", i, ".ctx"))}, dir...)...)
	}
	run(append([]string{"context", "status"}, dir...)...)

	// Everything Ben10 wrote: the store, the exports, HOME (logs, state).
	// Not the planted file itself nor Claude Code's own transcript.
	files, archives := 0, 0
	for _, root := range []string{w.contextDir(), w.home} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || p == w.transcript {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			check := func(what string, b []byte) {
				for where, s := range secrets {
					if bytes.Contains(b, []byte(s)) {
						t.Errorf("the secret planted in the %s is in %s", where, what)
					}
				}
			}
			check(p, b)
			r, err := ctxfmt.OpenFile(p, ctxfmt.ReaderOptions{})
			if err != nil {
				return nil // not an archive
			}
			defer r.Close()
			archives++
			for _, seg := range r.Segments() {
				data, err := r.ReadSegment(seg.Index)
				if err != nil {
					t.Errorf("%s: segment %d: %v", p, seg.Index, err)
					continue
				}
				check(fmt.Sprintf("%s, segment %d (%s)", p, seg.Index, seg.Type), data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if archives < 6 {
		t.Errorf("read %d archives in %d files; the saves did not all happen", archives, files)
	}
	t.Logf("%d files read, %d archives unpacked", files, archives)
}
