package watch

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// MaxStatusInput bounds the statusline JSON read from stdin.
const MaxStatusInput = 1 << 20

// StatusInput is the part of Claude Code's statusline JSON Ben10 reads.
type StatusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	ContextWindow *struct {
		UsedPercentage    *float64 `json:"used_percentage"`
		ContextWindowSize int64    `json:"context_window_size"`
	} `json:"context_window"`
}

// Status is what the statusline shows.
type Status struct {
	Percent      float64
	HavePercent  bool
	Warn         bool      // at or above Claude's warn_percent
	LastSnapshot time.Time // newest snapshot of the session (zero: none)
	Pending      int       // snapshots of the session waiting in pending/
}

// ReadStatus computes the statusline for Claude Code's statusline JSON in
// r: the context % (Claude Code's used_percentage, else the transcript's
// latest usage), the age of the session's newest snapshot in the project
// store and the number of its snapshots waiting in pending/. It opens the
// store read-only and reads only index.json and the transcript's tail;
// whatever cannot be found is left out (an error only for unreadable
// input).
func ReadStatus(r io.Reader, home string) (Status, error) {
	var st Status
	data, err := io.ReadAll(io.LimitReader(r, MaxStatusInput))
	if err != nil {
		return st, err
	}
	var in StatusInput
	if err := json.Unmarshal(data, &in); err != nil {
		return st, fmt.Errorf("statusline input: %w", err)
	}
	if cw := in.ContextWindow; cw != nil && cw.UsedPercentage != nil {
		st.Percent, st.HavePercent = *cw.UsedPercentage, true
	} else if in.TranscriptPath != "" {
		if used, window, err := transcript.ContextUsage(in.TranscriptPath, archive.HarnessClaude); err == nil && window > 0 {
			if cw := in.ContextWindow; cw != nil && cw.ContextWindowSize > 0 {
				window = cw.ContextWindowSize
			}
			st.Percent, st.HavePercent = float64(used)*100/float64(window), true
		}
	}
	if st.HavePercent {
		warn := DefaultThresholds(archive.HarnessClaude).WarnPercent
		if cfg, err := LoadConfig("", home); err == nil {
			warn = cfg.LLM(archive.HarnessClaude).Thresholds.WarnPercent
		}
		st.Warn = st.Percent >= warn
	}
	project := in.Workspace.ProjectDir
	if project == "" {
		project = in.Cwd
	}
	if project == "" {
		project = in.Workspace.CurrentDir
	}
	if project == "" || in.SessionID == "" {
		return st, nil
	}
	s, err := store.Open(project, store.Options{Home: home, ReadOnly: true})
	if err != nil {
		return st, nil
	}
	// index.json comes with the repository: bounded, and never a link or
	// a FIFO (which would hang the statusline).
	if b, err := store.ReadFileBounded(s.IndexPath(), snapshot.MaxIndexBytes); err == nil {
		if ix, err := snapshot.ParseIndex(b); err == nil {
			for _, sn := range ix.Snapshots {
				if sn.SessionID == in.SessionID && sn.CreatedAt.After(st.LastSnapshot) {
					st.LastSnapshot = sn.CreatedAt
				}
			}
		}
	}
	if ents, err := os.ReadDir(s.PendingDir()); err == nil {
		prefix := snapshot.PendingKind + "-" + in.SessionID
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) && strings.HasSuffix(e.Name(), store.PendingExt) {
				st.Pending++
			}
		}
	}
	return st, nil
}

// Line formats the status: "ctx 72%", then " · snapshot saved 3 min ago"
// (or "just now") and " · 2 pending" when there are any; "⚠" marks a
// context at or above the warn threshold.
func (s Status) Line(now time.Time) string {
	var parts []string
	if s.HavePercent {
		p := fmt.Sprintf("ctx %.0f%%", s.Percent)
		if s.Warn {
			p += " ⚠"
		}
		parts = append(parts, p)
	}
	if !s.LastSnapshot.IsZero() {
		age := now.Sub(s.LastSnapshot)
		switch {
		case age < time.Minute:
			parts = append(parts, "snapshot saved just now")
		case age < 2*time.Hour:
			parts = append(parts, fmt.Sprintf("snapshot saved %d min ago", int(age/time.Minute)))
		case age < 48*time.Hour:
			parts = append(parts, fmt.Sprintf("snapshot saved %d h ago", int(age/time.Hour)))
		default:
			parts = append(parts, fmt.Sprintf("snapshot saved %d d ago", int(age/(24*time.Hour))))
		}
	}
	if s.Pending > 0 {
		parts = append(parts, fmt.Sprintf("%d pending", s.Pending))
	}
	if len(parts) == 0 {
		return "ctx –"
	}
	return strings.Join(parts, " · ")
}
