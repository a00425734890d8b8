package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// TestTokensNamedSeparately: the hook's final save and `context save` of
// the same transcript record the same two numbers in current.ctx.meta,
// each under its own name: context tokens (the last request's input and
// cache tokens, as the archive's metadata says) and tokens used (the sum
// over the session). The hook recorded the sum where the CLI recorded the
// context size, both as "tokens". status shows both, named.
func TestTokensNamedSeparately(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	metaOf := func() store.Meta {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(w.contextDir(), "current.ctx.meta"))
		if err != nil {
			t.Fatal(err)
		}
		var m store.Meta
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"tokens"`)) {
			t.Errorf("current.ctx.meta still writes the ambiguous \"tokens\": %s", b)
		}
		return m
	}
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	hookMeta := metaOf()
	ar, err := archive.OpenFile(filepath.Join(w.contextDir(), "current.ctx"), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := ar.Meta()
	ar.Close()
	if md.ContextTokens == 0 || md.TotalTokens <= md.ContextTokens {
		t.Fatalf("the demo session's tokens: context %d, used %d", md.ContextTokens, md.TotalTokens)
	}
	if r := runBen10(t, nil, w.env, "context", "save", "--dir", w.project); r.code != 0 {
		t.Fatalf("context save: %d %s", r.code, r.stderr)
	}
	cliMeta := metaOf()
	for _, c := range []struct {
		name string
		m    store.Meta
	}{{"hook", hookMeta}, {"context save", cliMeta}} {
		if c.m.ContextTokens != md.ContextTokens || c.m.TokensUsed != md.TotalTokens {
			t.Errorf("%s: meta context_tokens %d, tokens_used %d; want %d and %d", c.name, c.m.ContextTokens, c.m.TokensUsed, md.ContextTokens, md.TotalTokens)
		}
	}
	ins := runBen10(t, nil, w.env, "context", "inspect", filepath.Join(w.contextDir(), "current.ctx"))
	if !strings.Contains(ins.stdout, "context tokens") || !strings.Contains(ins.stdout, "tokens used") || strings.Contains(ins.stdout, "total tokens") {
		t.Errorf("context inspect does not name both numbers:\n%s%s", ins.stdout, ins.stderr)
	}
	r := runBen10(t, nil, w.env, "context", "status", "--dir", w.project)
	if !strings.Contains(r.stdout, "Context tokens:") || !strings.Contains(r.stdout, "Tokens used:") || !strings.Contains(r.stdout, commas(md.ContextTokens)) || !strings.Contains(r.stdout, commas(md.TotalTokens)) {
		t.Errorf("status does not name both numbers:\n%s", r.stdout)
	}
}
