package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/export"
	"github.com/ben10ctx/ben10/store"
)

// Hit is one search match.
type Hit struct {
	SnapshotID string `json:"snapshot_id"`
	Message    int    `json:"message"` // 1-based message number (for a tool: the message that called it; 0 = unknown)
	Kind       string `json:"kind"`    // message | tool_input | tool_output
	Role       string `json:"role,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Snippet    string `json:"snippet"`
}

// ErrStop may be returned by a Search callback to end the search early
// without an error.
var ErrStop = errors.New("snapshot: stop search")

// SnippetRunes is the context shown on each side of a match.
const SnippetRunes = 60

// Search looks for query in every snapshot's messages and tool inputs and
// outputs, newest snapshot first, literally (case-insensitive) or as a Go
// regular expression. Archives are opened one at a time and closed before
// the next, so memory stays bounded by one snapshot's conversation; hits
// are passed to fn as they are found.
func (m *Manager) Search(query string, regex bool, fn func(Hit) error) error {
	match, err := matcher(query, regex)
	if err != nil {
		return err
	}
	ix, err := m.Index()
	if err != nil {
		return err
	}
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		s := ix.Snapshots[i]
		err := m.searchOne(s, match, fn)
		if errors.Is(err, ErrStop) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func matcher(query string, regex bool) (func(string) (int, int, bool), error) {
	if query == "" {
		return nil, errors.New("snapshot: empty search query")
	}
	if regex {
		re, err := regexp.Compile(query)
		if err != nil {
			return nil, fmt.Errorf("snapshot: search pattern: %w", err)
		}
		return func(s string) (int, int, bool) {
			loc := re.FindStringIndex(s)
			if loc == nil {
				return 0, 0, false
			}
			return loc[0], loc[1], true
		}, nil
	}
	q := strings.ToLower(query)
	return func(s string) (int, int, bool) {
		// unicode lower-casing maps rune to rune: find the match in the
		// folded copy and map its rune positions back onto s.
		ls := strings.ToLower(s)
		i := strings.Index(ls, q)
		if i < 0 {
			return 0, 0, false
		}
		ri := utf8.RuneCountInString(ls[:i])
		return runeOffset(s, ri), runeOffset(s, ri+utf8.RuneCountInString(q)), true
	}, nil
}

// runeOffset is the byte offset of the n-th rune of s (len(s) past the end).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func (m *Manager) searchOne(s Snapshot, match func(string) (int, int, bool), fn func(Hit) error) error {
	a, err := archive.OpenFile(m.Path(s), OpenOptions(m.cfg))
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	defer a.Close()
	msgs, err := a.Messages()
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	callAt := map[string]int{}
	for i, msg := range msgs {
		for _, id := range msg.ToolCallIDs {
			callAt[id] = i + 1
		}
		if lo, hi, ok := match(msg.Text); ok {
			if err := fn(Hit{SnapshotID: s.ID, Message: i + 1, Kind: "message", Role: msg.Role, Snippet: snippet(msg.Text, lo, hi)}); err != nil {
				return err
			}
		}
	}
	msgs = nil
	tools, err := a.Tools()
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	for _, t := range tools {
		for _, part := range []struct{ kind, text string }{{"tool_input", t.Input}, {"tool_output", t.Output}} {
			if lo, hi, ok := match(part.text); ok {
				if err := fn(Hit{SnapshotID: s.ID, Message: callAt[t.ID], Kind: part.kind, Tool: t.Name, Snippet: snippet(part.text, lo, hi)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// snippet is s[lo:hi] with up to SnippetRunes runes around it, on one line.
func snippet(s string, lo, hi int) string {
	start := lo
	for n := 0; start > 0 && n < SnippetRunes; n++ {
		_, sz := utf8.DecodeLastRuneInString(s[:start])
		start -= sz
	}
	end := hi
	for n := 0; end < len(s) && n < SnippetRunes; n++ {
		_, sz := utf8.DecodeRuneInString(s[end:])
		end += sz
	}
	out := strings.Join(strings.Fields(s[start:end]), " ")
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}

// Range is a 1-based inclusive message range; zero values mean open ends.
type Range struct{ From, To int }

// ParseRange reads "A-B", "A-", "-B" or "N".
func ParseRange(s string) (Range, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Range{}, nil
	}
	a, b, dash := strings.Cut(s, "-")
	var r Range
	var err error
	if a != "" {
		if r.From, err = strconv.Atoi(a); err != nil || r.From < 1 {
			return r, fmt.Errorf("message range %q: %q is not a message number (1, 2, …)", s, a)
		}
	}
	if !dash {
		r.To = r.From
		return r, nil
	}
	if b != "" {
		if r.To, err = strconv.Atoi(b); err != nil || r.To < 1 {
			return r, fmt.Errorf("message range %q: %q is not a message number (1, 2, …)", s, b)
		}
	}
	if r.To != 0 && r.From > r.To {
		return r, fmt.Errorf("message range %q: start after end", s)
	}
	return r, nil
}

func (r Range) has(n int) bool {
	return (r.From == 0 || n >= r.From) && (r.To == 0 || n <= r.To)
}

// ExtractOptions choose what Extract writes.
type ExtractOptions struct {
	Messages bool   // the conversation
	Format   string // markdown (default) | jsonl, for Messages
	Range    Range  // messages to keep (zero = all)
	Files    bool   // captured file contents, into Dir
	Tools    bool   // tool executions as JSONL
	Tool     string // only tools of this name (with Tools)
	Glob     string // only files matching this pattern (with Files)
	Out      io.Writer
	Dir      string // for Files: the directory to write into
	Force    bool   // Files: overwrite existing files
}

// ExtractResult tells what Extract wrote.
type ExtractResult struct {
	Messages int      `json:"messages,omitempty"`
	Tools    int      `json:"tools,omitempty"`
	Files    []string `json:"files,omitempty"`
	Skipped  []string `json:"skipped,omitempty"` // files not overwritten
}

// Extract writes part of a snapshot: messages as Markdown or JSONL, tool
// executions as JSONL, or captured file contents under a directory.
func (m *Manager) Extract(id string, o ExtractOptions) (*ExtractResult, error) {
	a, _, err := m.OpenArchive(id)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return ExtractArchive(a, o)
}

// ExtractArchive is Extract on an open archive.
func ExtractArchive(a *archive.Archive, o ExtractOptions) (*ExtractResult, error) {
	res := &ExtractResult{}
	enc := json.NewEncoder(o.Out) // JSONL of messages or tools
	enc.SetEscapeHTML(false)
	switch {
	case o.Messages:
		msgs, err := a.Messages()
		if err != nil {
			return nil, err
		}
		tools, err := a.Tools()
		if err != nil {
			return nil, err
		}
		st := &archive.State{Meta: a.Meta()}
		keepTool := map[string]bool{}
		for i, msg := range msgs {
			if o.Range.has(i + 1) {
				st.Messages = append(st.Messages, msg)
				for _, id := range msg.ToolCallIDs {
					keepTool[id] = true
				}
			}
		}
		for _, t := range tools {
			if keepTool[t.ID] {
				st.Tools = append(st.Tools, t)
			}
		}
		res.Messages = len(st.Messages)
		switch strings.ToLower(o.Format) {
		case "", "markdown", "md":
			return res, export.Markdown(o.Out, st)
		case "jsonl":
			for _, msg := range st.Messages {
				if err := enc.Encode(msg); err != nil {
					return res, err
				}
			}
			return res, nil
		}
		return nil, fmt.Errorf("extract: format %q is not supported (markdown, jsonl)", o.Format)
	case o.Tools:
		tools, err := a.Tools()
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			if o.Tool != "" && !strings.EqualFold(t.Name, o.Tool) {
				continue
			}
			res.Tools++
			if err := enc.Encode(t); err != nil {
				return res, err
			}
		}
		return res, nil
	case o.Files:
		if o.Dir == "" {
			return nil, errors.New("extract --files needs a directory")
		}
		fcs, err := a.FileContents()
		if err != nil {
			return nil, err
		}
		if len(fcs) == 0 {
			return nil, errors.New("the snapshot holds no file contents (compaction_snapshots.include_file_contents was off, or no file was touched)")
		}
		for _, fc := range fcs {
			if o.Glob != "" {
				if ok, _ := filepath.Match(o.Glob, fc.Path); !ok {
					if ok, _ := filepath.Match(o.Glob, filepath.Base(fc.Path)); !ok {
						continue
					}
				}
			}
			dst, err := safeJoin(o.Dir, fc.Path)
			if err != nil {
				res.Skipped = append(res.Skipped, fc.Path)
				continue
			}
			if linkedBelow(o.Dir, dst) {
				// A link already in the output directory is never
				// written through (it may point anywhere).
				res.Skipped = append(res.Skipped, dst)
				continue
			}
			if _, err := os.Lstat(dst); err == nil && !o.Force {
				if cur, err := store.ReadFileBounded(dst, int64(len(fc.Data))); err == nil && string(cur) == string(fc.Data) {
					res.Files = append(res.Files, dst) // already identical
					continue
				}
				res.Skipped = append(res.Skipped, dst)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
				return res, err
			}
			if err := store.WriteFileAtomic(dst, fc.Data); err != nil {
				return res, err
			}
			res.Files = append(res.Files, dst)
		}
		sort.Strings(res.Files)
		return res, nil
	}
	return nil, errors.New("extract: say what to extract (messages, tools or files)")
}

// linkedBelow reports whether a directory between dir (exclusive) and dst
// (exclusive) exists as anything but a real directory: a symbolic link,
// or a file in the way.
func linkedBelow(dir, dst string) bool {
	rel, err := filepath.Rel(dir, filepath.Dir(dst))
	if err != nil {
		return true
	}
	p := dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return false // missing: created as a real directory
		}
		if !fi.IsDir() {
			return true
		}
	}
	return false
}

// safeJoin joins a stored relative path under dir, refusing absolute
// paths and ".." that would leave dir.
func safeJoin(dir, p string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(p))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || filepath.VolumeName(clean) != "" {
		return "", fmt.Errorf("stored file path %q is outside the project; not written", p)
	}
	return filepath.Join(dir, clean), nil
}
