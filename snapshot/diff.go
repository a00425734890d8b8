package snapshot

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

// Counts are the sizes a diff compares: what one context holds (messages
// after its latest compaction boundary, the tool calls and files they
// reference, and the context tokens).
type Counts struct {
	Tokens         int64 `json:"tokens"`
	Messages       int   `json:"messages"`
	Files          int   `json:"files"`
	ToolExecutions int   `json:"tool_executions"`
}

// LostSpan is a run of conversation that was in the context when the
// snapshot was taken and is now only summarized (before a compaction
// boundary) or absent. From and To are 1-based message numbers of the
// snapshot.
type LostSpan struct {
	From      int    `json:"from"`
	To        int    `json:"to"`
	Status    string `json:"status"` // summarized | absent
	Title     string `json:"title"`  // the user request that opened the span
	Messages  int    `json:"messages"`
	ToolCalls int    `json:"tool_calls"`
	Errors    int    `json:"errors"`
	Bytes     int    `json:"bytes"` // text bytes of the span's messages and tool outputs
}

// LostTool is a tool execution whose output is no longer in the context.
type LostTool struct {
	Message     int    `json:"message"` // 1-based number of the message that made the call (0 = unknown)
	Name        string `json:"name"`
	Subject     string `json:"subject"` // command or file
	OutputBytes int    `json:"output_bytes"`
	OutputLines int    `json:"output_lines"`
	Success     bool   `json:"success"`
}

// LostFile is a file content the snapshot holds (captured from disk, or
// read by a tool) that the current context no longer shows.
type LostFile struct {
	Path   string `json:"path"`
	Lines  int    `json:"lines"`
	Bytes  int    `json:"bytes"`
	Source string `json:"source"` // captured | read
}

// DiffResult compares a snapshot with the current context.
type DiffResult struct {
	Snapshot      Snapshot `json:"snapshot"`
	CurrentSource string   `json:"current_source"` // the transcript or archive compared against
	Snap          Counts   `json:"snapshot_counts"`
	Current       Counts   `json:"current_counts"`
	// Summarized counts the snapshot's messages that are now only in a
	// compaction summary; Absent those the current context lacks entirely.
	Summarized int `json:"summarized_messages"`
	Absent     int `json:"absent_messages"`
	// EarlierSummarized counts messages that were already summarized by
	// an earlier compaction when the snapshot was taken.
	EarlierSummarized int        `json:"earlier_summarized_messages"`
	Compacted         bool       `json:"compacted"` // the current context has a compaction after the snapshot's content
	LostSpans         []LostSpan `json:"lost_spans"`
	LostTools         []LostTool `json:"lost_tool_outputs"` // largest first
	LostToolCount     int        `json:"lost_tool_output_count"`
	LostToolBytes     int        `json:"lost_tool_output_bytes"`
	LostFiles         []LostFile `json:"lost_file_contents"`
	Preserved         []string   `json:"preserved"`
}

// MaxLostTools bounds DiffResult.LostTools (the totals count them all).
const MaxLostTools = 20

// Diff compares a snapshot with the current context: current when given,
// else the snapshot's live transcript when it still exists, else the
// project's current.ctx (or its newest valid checkpoint or history file).
func (m *Manager) Diff(id string, current *archive.Archive) (*DiffResult, error) {
	a, s, err := m.OpenArchive(id)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	var cur *archive.State
	src := ""
	switch {
	case current != nil:
		if cur, err = current.Load(); err != nil {
			return nil, err
		}
		src = "archive"
	case s.Transcript != "" && fileExists(s.Transcript):
		cur, err = transcript.Import(context.Background(), s.Transcript, archive.Harness(s.Harness), archive.ImportOptions{ProjectDir: m.st.ProjectDir()})
		if err != nil {
			return nil, fmt.Errorf("reading the current transcript %s: %w", s.Transcript, err)
		}
		src = s.Transcript
	default:
		// The first archive that opens ends the search, and is kept open.
		var ca *archive.Archive
		rec, err := m.st.Recover(func(p string) (err error) {
			ca, err = archive.OpenFile(p, OpenOptions(m.cfg))
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("no current context to compare with (the transcript %q is gone and the store holds no valid context): %w", s.Transcript, err)
		}
		defer ca.Close()
		if cur, err = ca.Load(); err != nil {
			return nil, err
		}
		src = rec.Path
	}
	snapState, err := stateOf(a)
	if err != nil {
		return nil, err
	}
	r := DiffStates(snapState, cur)
	r.Snapshot, r.CurrentSource = s, src
	if s.PreCompaction.TokenCount > 0 {
		r.Snap.Tokens = s.PreCompaction.TokenCount
	}
	return r, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// stateOf reads the parts of an archive a diff needs (no raw files).
func stateOf(a *archive.Archive) (*archive.State, error) {
	var st archive.State
	var err error
	st.Meta = a.Meta()
	if st.Messages, err = a.Messages(); err != nil {
		return nil, err
	}
	if st.Tools, err = a.Tools(); err != nil {
		return nil, err
	}
	if st.Files, err = a.Files(); err != nil {
		return nil, err
	}
	if st.Compactions, err = a.Compactions(); err != nil {
		return nil, err
	}
	if st.FileContents, err = a.FileContents(); err != nil {
		return nil, err
	}
	if st.Tasks, err = a.Tasks(); err != nil {
		return nil, err
	}
	return &st, nil
}

// liveStart is the position of the first message after the latest
// compaction boundary (0 when there is none).
func liveStart(s *archive.State) int {
	n := 0
	for _, c := range s.Compactions {
		if c.MessageIndex > n && c.MessageIndex <= len(s.Messages) {
			n = c.MessageIndex
		}
	}
	return n
}

// DiffStates compares the snapshot's state with the current one. It is
// Diff without the I/O.
func DiffStates(snap, cur *archive.State) *DiffResult {
	if snap == nil || cur == nil {
		return &DiffResult{}
	}
	r := &DiffResult{}
	sLive := liveStart(snap)
	cLive := liveStart(cur)
	r.EarlierSummarized = sLive

	curAll := map[string]bool{}
	curLive := map[string]bool{}
	for i, msg := range cur.Messages {
		if msg.ID != "" {
			curAll[msg.ID] = true
			if i >= cLive {
				curLive[msg.ID] = true
			}
		}
	}
	liveTools, liveFiles := liveRefs(cur, cLive)
	snapTools, snapFiles := liveRefs(snap, sLive)
	// Counts are what each context holds: the messages after its latest
	// compaction boundary and the tools and files they reference.
	r.Snap = Counts{Tokens: snap.Meta.ContextTokens, Messages: len(snap.Messages) - sLive, Files: len(snapFiles), ToolExecutions: len(snapTools)}
	curTokens := cur.Meta.ContextTokens
	if n := len(cur.Compactions); n > 0 && cur.Compactions[n-1].PostTokens > 0 && cLive > 0 {
		curTokens = cur.Compactions[n-1].PostTokens
	}
	r.Current = Counts{Tokens: curTokens, Messages: len(cur.Messages) - cLive, Files: len(liveFiles), ToolExecutions: len(liveTools)}

	toolByID := map[string]*archive.ToolExec{}
	for i := range snap.Tools {
		toolByID[snap.Tools[i].ID] = &snap.Tools[i]
	}
	// Walk the snapshot's context (after its own latest boundary) and
	// group the messages that are no longer live into spans that start at
	// a user request.
	var span *LostSpan
	flush := func() {
		if span != nil {
			r.LostSpans = append(r.LostSpans, *span)
			span = nil
		}
	}
	lostCall := map[string]int{} // tool id → 1-based message number
	for i := sLive; i < len(snap.Messages); i++ {
		msg := snap.Messages[i]
		if msg.Sidechain {
			continue
		}
		status := ""
		switch {
		case msg.ID != "" && curLive[msg.ID]:
			flush()
			continue
		case msg.ID != "" && curAll[msg.ID]:
			status = "summarized"
			r.Summarized++
		default:
			status = "absent"
			r.Absent++
		}
		prompt := msg.Role == "user" && (msg.Kind == "prompt" || msg.Kind == "")
		if span == nil || (prompt && span.Messages > 0) || span.Status != status {
			flush()
			span = &LostSpan{From: i + 1, Status: status}
		}
		if prompt && span.Title == "" {
			span.Title = clip(msg.Text, 80)
		}
		span.To = i + 1
		span.Messages++
		span.Bytes += len(msg.Text)
		for _, id := range msg.ToolCallIDs {
			// A call is listed by its tool_use message and again by its
			// tool_result message: counted once, where it was made.
			if _, seen := lostCall[id]; seen {
				continue
			}
			span.ToolCalls++
			lostCall[id] = i + 1
			if t := toolByID[id]; t != nil {
				span.Bytes += len(t.Output)
				if !t.Success {
					span.Errors++
				}
			}
		}
	}
	flush()
	for i := range r.LostSpans {
		if r.LostSpans[i].Title == "" {
			r.LostSpans[i].Title = "(continuation)"
		}
	}
	r.Compacted = cLive > 0 && r.Summarized > 0

	readLost := map[string]LostFile{}
	for _, t := range snap.Tools {
		n, ok := lostCall[t.ID]
		if !ok || t.Sidechain {
			continue
		}
		r.LostToolCount++
		r.LostToolBytes += len(t.Output)
		subj := t.Command
		if subj == "" && len(t.RelatedFiles) > 0 {
			subj = t.RelatedFiles[0]
		}
		r.LostTools = append(r.LostTools, LostTool{Message: n, Name: t.Name, Subject: clip(subj, 120),
			OutputBytes: len(t.Output), OutputLines: lines(t.Output), Success: t.Success})
		if t.Name == "Read" && t.Success && len(t.RelatedFiles) == 1 && !liveFiles[t.RelatedFiles[0]] {
			p := t.RelatedFiles[0]
			if f, ok := readLost[p]; !ok || len(t.Output) > f.Bytes {
				readLost[p] = LostFile{Path: p, Lines: lines(t.Output), Bytes: len(t.Output), Source: "read"}
			}
		}
	}
	sort.SliceStable(r.LostTools, func(i, j int) bool { return r.LostTools[i].OutputBytes > r.LostTools[j].OutputBytes })
	if len(r.LostTools) > MaxLostTools {
		r.LostTools = r.LostTools[:MaxLostTools]
	}
	for _, fc := range snap.FileContents {
		if !liveFiles[fc.Path] {
			readLost[fc.Path] = LostFile{Path: fc.Path, Lines: lines(string(fc.Data)), Bytes: len(fc.Data), Source: "captured"}
		}
	}
	for _, f := range readLost {
		r.LostFiles = append(r.LostFiles, f)
	}
	sort.Slice(r.LostFiles, func(i, j int) bool {
		if r.LostFiles[i].Bytes != r.LostFiles[j].Bytes {
			return r.LostFiles[i].Bytes > r.LostFiles[j].Bytes
		}
		return r.LostFiles[i].Path < r.LostFiles[j].Path
	})

	if n := len(cur.Compactions); n > 0 && cLive > 0 {
		r.Preserved = append(r.Preserved, fmt.Sprintf("Compaction summary of the earlier conversation (%d characters)", len(cur.Compactions[n-1].Summary)))
	}
	if t := cur.Tasks; len(t.Active)+len(t.Pending)+len(t.Completed) > 0 {
		r.Preserved = append(r.Preserved, fmt.Sprintf("Task state: %d active, %d pending, %d completed", len(t.Active), len(t.Pending), len(t.Completed)))
	}
	if r.Current.Messages > 0 {
		r.Preserved = append(r.Preserved, fmt.Sprintf("%d messages since the compaction", r.Current.Messages))
	}
	if len(liveFiles) > 0 {
		r.Preserved = append(r.Preserved, fmt.Sprintf("%d files referenced since the compaction", len(liveFiles)))
	}
	return r
}

// liveRefs are the tool calls and files referenced by the messages from
// position start on.
func liveRefs(s *archive.State, start int) (tools, files map[string]bool) {
	tools, files = map[string]bool{}, map[string]bool{}
	for i := start; i < len(s.Messages); i++ {
		for _, id := range s.Messages[i].ToolCallIDs {
			tools[id] = true
		}
		for _, f := range s.Messages[i].Files {
			files[f] = true
		}
	}
	for _, t := range s.Tools {
		if tools[t.ID] {
			for _, f := range t.RelatedFiles {
				files[f] = true
			}
		}
	}
	return tools, files
}

func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// clip folds s onto one line and cuts it to n runes, marking a cut with "…".
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
