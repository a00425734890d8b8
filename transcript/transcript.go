package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
	"github.com/ben10ctx/ben10/transcript/codex"
	"github.com/ben10ctx/ben10/transcript/gemini"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

// ErrUnknownHarness reports a file no importer recognizes.
var ErrUnknownHarness = errors.New("transcript: cannot tell which assistant wrote this file")

// ErrTooLarge reports a session file above the importers' size limit
// (4 GiB); errors from the Codex, Gemini and Kimi importers wrap it.
var ErrTooLarge = imp.ErrTooLarge

// ErrBadHarness reports a harness name Ben10 does not import.
var ErrBadHarness = errors.New("transcript: unknown harness")

// Harnesses lists the harnesses Import understands.
var Harnesses = []archive.Harness{archive.HarnessClaude, archive.HarnessCodex, archive.HarnessGemini, archive.HarnessKimi}

// ParseHarness validates a harness name ("claude", "codex", "gemini",
// "kimi"; "claude-code" is accepted for claude).
func ParseHarness(s string) (archive.Harness, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "claude", "claude-code", "claudecode":
		return archive.HarnessClaude, nil
	case "codex":
		return archive.HarnessCodex, nil
	case "gemini":
		return archive.HarnessGemini, nil
	case "kimi":
		return archive.HarnessKimi, nil
	}
	return "", fmt.Errorf("%w %q (want claude, codex, gemini or kimi)", ErrBadHarness, s)
}

// Import reads a session with the importer for h; h == "" detects it.
// path is the session file (for Kimi the session directory or any file in
// it). When ctx is done the import stops between two lines or files with
// an error that wraps ctx.Err().
func Import(ctx context.Context, path string, h archive.Harness, opt archive.ImportOptions) (*archive.State, error) {
	if h == "" {
		var err error
		if h, err = Detect(path); err != nil {
			return nil, err
		}
	}
	switch h {
	case archive.HarnessClaude:
		return claude.Import(ctx, path, opt)
	case archive.HarnessCodex:
		return codex.Import(ctx, path, opt)
	case archive.HarnessGemini:
		return gemini.Import(ctx, path, opt)
	case archive.HarnessKimi:
		return kimi.Import(ctx, path, opt)
	}
	return nil, fmt.Errorf("%w %q", ErrBadHarness, h)
}

// sniffSize is how much of a file Detect reads.
const sniffSize = 1 << 20

// Detect tells which assistant wrote a session file: by the content of
// its first lines, then by its location (~/.claude/projects,
// ~/.codex/sessions, ~/.gemini/tmp/…/chats, ~/.kimi/sessions). A
// directory is a Kimi session directory when it holds context.jsonl.
func Detect(path string) (archive.Harness, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	if st.IsDir() {
		if kimi.IsSessionDir(path) {
			return archive.HarnessKimi, nil
		}
		return "", fmt.Errorf("%w: %s is a directory without context.jsonl or a Kimi Code wire log", ErrUnknownHarness, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	// One right-sized buffer: io.ReadAll's growing one cost as many page
	// faults as reading a whole 3.5 MB transcript.
	head := make([]byte, min(st.Size(), sniffSize))
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", fmt.Errorf("transcript: %w", err)
	}
	if h := Sniff(filepath.Base(path), head[:n]); h != "" {
		return h, nil
	}
	if h := byLocation(path); h != "" {
		return h, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownHarness, path)
}

// Sniff guesses the harness from a file's name and first bytes; "" when
// the content is not conclusive.
func Sniff(name string, head []byte) archive.Harness {
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if strings.HasSuffix(name, ".json") && len(t) > 0 && t[0] == '{' {
		// Whole-file JSON: Gemini's legacy record or Kimi's state.json.
		if bytes.Contains(head, []byte(`"projectHash"`)) || bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"messages"`)) {
			return archive.HarnessGemini
		}
	}
	lines := bytes.Split(head, []byte("\n"))
	for i, l := range lines {
		if i >= 20 {
			break
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if h := sniffLine(l); h != "" {
			return h
		}
	}
	return ""
}

func sniffLine(l []byte) archive.Harness {
	var obj map[string]json.RawMessage
	if json.Unmarshal(l, &obj) != nil {
		// A line cut by the sniff limit: look at its opening keys.
		switch {
		case bytes.Contains(l, []byte(`"type":"session_meta"`)) || bytes.Contains(l, []byte(`"type":"response_item"`)):
			return archive.HarnessCodex
		case bytes.HasPrefix(l, []byte(`{"role":"_system_prompt"`)):
			return archive.HarnessKimi
		}
		return ""
	}
	typ := imp.Str(obj["type"])
	switch {
	case obj["payload"] != nil && (typ == "session_meta" || typ == "response_item" || typ == "event_msg" || typ == "turn_context" || typ == "compacted"):
		return archive.HarnessCodex
	case obj["projectHash"] != nil || obj["$set"] != nil || obj["$rewindTo"] != nil:
		return archive.HarnessGemini
	case obj["id"] != nil && obj["timestamp"] != nil && obj["content"] != nil && (typ == "gemini" || typ == "info"):
		return archive.HarnessGemini
	case typ == "" && obj["role"] != nil:
		return archive.HarnessKimi
	case typ == "metadata" && obj["protocol_version"] != nil:
		return archive.HarnessKimi
	case typ == "" && obj["message"] != nil && obj["timestamp"] != nil:
		var ts float64
		if json.Unmarshal(obj["timestamp"], &ts) == nil {
			return archive.HarnessKimi
		}
	case obj["sessionId"] != nil && (obj["uuid"] != nil || typ == "user" || typ == "assistant" || typ == "system"):
		return archive.HarnessClaude
	case typ == "summary" && obj["leafUuid"] != nil, typ == "file-history-snapshot", typ == "queue-operation":
		return archive.HarnessClaude
	}
	return ""
}

// byLocation recognizes the assistants' default directory layouts.
func byLocation(path string) archive.Harness {
	p := filepath.ToSlash(path)
	base := filepath.Base(p)
	switch {
	case strings.Contains(p, "/.codex/") || strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl"):
		return archive.HarnessCodex
	case strings.Contains(p, "/.gemini/") || strings.Contains(p, "/chats/session-"):
		return archive.HarnessGemini
	case strings.Contains(p, "/.kimi/") || strings.Contains(p, "/kimi/sessions/"):
		return archive.HarnessKimi
	case strings.Contains(p, "/.claude/projects/") || strings.Contains(p, "/projects/") && strings.HasSuffix(base, ".jsonl"):
		return archive.HarnessClaude
	}
	return ""
}

// Save imports the session at path with the importer for h (h == ""
// detects it) and writes it as a .ctx archive to w. Claude Code sessions go
// through claude.Save: the raw files are compressed while the model is
// built. Other assistants' sessions are imported in full and encoded, their
// raw files redacted in place (archive.EncodeOwned): the State returned
// holds the raw files as stored. With eopt.Previous (an earlier archive of the same session) the raw
// segments it holds unchanged are copied. It returns the State saved.
// Cancelling ctx stops the work and returns ctx's error.
func Save(ctx context.Context, w io.Writer, path string, h archive.Harness, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	if h == "" {
		var err error
		if h, err = Detect(path); err != nil {
			return nil, archive.EncodeStats{}, err
		}
	}
	if h == archive.HarnessClaude {
		return claude.Save(ctx, w, path, iopt, eopt)
	}
	st, err := Import(ctx, path, h, iopt)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	stats, err := archive.EncodeOwned(ctx, w, st, eopt)
	if err != nil {
		return nil, stats, err
	}
	return st, stats, nil
}
