package fuzz

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/export"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/transcript/codex"
	"github.com/ben10ctx/ben10/transcript/gemini"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

func seed(f *testing.F, paths ...string) {
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// checkState asserts what every import must guarantee: the raw bytes are
// kept exactly, references stay inside them, and every export succeeds.
func checkState(t *testing.T, s *archive.State, raw []byte) {
	t.Helper()
	if s == nil {
		t.Fatal("nil state")
	}
	if len(s.Raw) == 0 || !bytes.Equal(s.Raw[0].Data, raw) {
		t.Fatal("raw bytes not kept")
	}
	for _, m := range s.Messages {
		if m.Ref.File < 0 || m.Ref.File >= len(s.Raw) {
			t.Fatalf("message ref %+v", m.Ref)
		}
	}
	var buf bytes.Buffer
	if err := export.CUSF(&buf, s); err != nil {
		t.Fatal(err)
	}
	if err := export.Markdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	if err := export.JSON(&buf, s); err != nil {
		t.Fatal(err)
	}
}

func FuzzCodexImport(f *testing.F) {
	seed(f, "../transcript/codex/testdata/basic.jsonl", "../transcript/codex/testdata/hostile.jsonl")
	f.Add([]byte(`{"type":"compacted","payload":{"message":"","replacement_history":[{}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := codex.ImportBytes("rollout.jsonl", data, archive.ImportOptions{ProjectDir: "/p"})
		if err != nil {
			t.Fatal(err)
		}
		checkState(t, s, data)
	})
}

func FuzzGeminiImport(f *testing.F) {
	seed(f, "../transcript/gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl", "../transcript/gemini/testdata/session-legacy.json")
	f.Add([]byte(`{"$set":{"messages":[{"id":"a","type":"user","content":"<state_snapshot>"}]}}` + "\n" + `{"$rewindTo":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"session.jsonl", "session.json"} {
			s, err := gemini.ImportBytes(name, data, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkState(t, s, data)
		}
	})
}

func FuzzKimiImport(f *testing.F) {
	dir := "../transcript/kimi/testdata/share/sessions/2b8c70fb72d8a087e5dee109778f74cf/0b9c5d2e-1111-4a2b-9c3d-000000000001"
	ctx, _ := os.ReadFile(filepath.Join(dir, "context.jsonl"))
	ctx1, _ := os.ReadFile(filepath.Join(dir, "context_1.jsonl"))
	wire, _ := os.ReadFile(filepath.Join(dir, "wire.jsonl"))
	state, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	f.Add(ctx, ctx1, wire, state)
	f.Add([]byte(`{"role":"tool","tool_call_id":"x"}`), []byte{}, []byte(`{"timestamp":1e300,"message":{"type":"StatusUpdate","payload":{"context_tokens":-1}}}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, ctx, ctx1, wire, state []byte) {
		files := []archive.RawFile{
			{Name: "u/context.jsonl", Data: ctx},
			{Name: "u/context_1.jsonl", Data: ctx1},
			{Name: "u/wire.jsonl", Data: wire},
			{Name: "u/state.json", Data: state},
			{Name: "u/subagents/a/context.jsonl", Data: ctx1},
		}
		s, err := kimi.ImportFiles(files, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkState(t, s, ctx)
		if len(s.Raw) != len(files) {
			t.Fatalf("%d raw files", len(s.Raw))
		}
	})
}

func FuzzSniff(f *testing.F) {
	f.Add("x.jsonl", []byte(`{"type":"session_meta","payload":{}}`))
	f.Add("x.json", []byte(`{"projectHash":"a"}`))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		h := transcript.Sniff(name, head)
		switch h {
		case "", archive.HarnessClaude, archive.HarnessCodex, archive.HarnessGemini, archive.HarnessKimi:
		default:
			t.Fatalf("harness %q", h)
		}
	})
}
