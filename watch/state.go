package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// StateVersion is the version of watch-state.json's schema.
const StateVersion = "2.0.0"

// maxStateBytes bounds the state file read; a larger one is treated as
// damaged and replaced.
const maxStateBytes = 16 << 20

// forgetAfter: sessions not active for this long and out of cooldown are
// dropped from the state file.
const forgetAfter = 7 * 24 * time.Hour

// State is watch-state.json: seed 002's unified state file, plus the
// per-session detail the watcher needs to survive a restart.
type State struct {
	Version     string               `json:"version"`
	LastUpdated time.Time            `json:"last_updated"`
	StartedAt   time.Time            `json:"started_at"`
	PID         int                  `json:"pid"`
	Running     bool                 `json:"running"`
	DryRun      bool                 `json:"dry_run,omitempty"`
	Config      string               `json:"config,omitempty"`
	LLMs        map[string]*LLMState `json:"llms"`
	GlobalStats GlobalStats          `json:"global_stats"`
}

// LLMState is one assistant's part of the state.
type LLMState struct {
	Enabled  bool   `json:"enabled"`
	Disabled string `json:"disabled,omitempty"` // why an invalid entry disabled it
	// ActiveSessions are the ids of the sessions modified within the
	// active window at the last scan.
	ActiveSessions []string `json:"active_sessions"`
	// SessionCooldowns maps a session id to the end of its cooldown.
	SessionCooldowns   map[string]time.Time     `json:"session_cooldowns"`
	LastExport         time.Time                `json:"last_export,omitzero"`
	ExportsTriggered   int                      `json:"exports_triggered"`
	SnapshotsTaken     int                      `json:"snapshots_taken"`
	LastContextPercent *float64                 `json:"last_context_percent,omitempty"`
	Errors             int                      `json:"errors,omitempty"`
	LastError          string                   `json:"last_error,omitempty"`
	Sessions           map[string]*SessionState `json:"sessions"`
}

// SessionState is what the watcher remembers about one session.
type SessionState struct {
	Path           string    `json:"path"`
	Project        string    `json:"project,omitempty"`
	FirstSeen      time.Time `json:"first_seen"`
	LastModified   time.Time `json:"last_modified"`
	Size           int64     `json:"size"`
	ContextPercent *float64  `json:"context_percent,omitempty"`
	ContextTokens  int64     `json:"context_tokens,omitempty"`
	ContextWindow  int64     `json:"context_window,omitempty"`
	Warned         bool      `json:"warned,omitempty"`
	// Offset is how far the turn counter has read the turn file.
	Offset          int64     `json:"offset"`
	TurnsSince      int       `json:"turns_since_export"`
	LastExport      time.Time `json:"last_export,omitzero"`
	SizeAtExport    int64     `json:"size_at_export,omitempty"`
	Exports         int       `json:"exports"`
	LastSnapshot    time.Time `json:"last_snapshot,omitzero"`
	LastSnapshotID  string    `json:"last_snapshot_id,omitempty"`
	SnapshotSource  string    `json:"last_snapshot_source,omitempty"` // hook | watcher | cli
	Snapshots       int       `json:"snapshots"`
	LastArchive     string    `json:"last_archive,omitempty"`
	LastError       string    `json:"last_error,omitempty"`
	LastReasons     []string  `json:"last_reasons,omitempty"`
	LastBlocked     string    `json:"last_blocked,omitempty"`
	SnapshotPending bool      `json:"snapshot_pending,omitempty"`
}

// GlobalStats are totals over every assistant.
type GlobalStats struct {
	TotalExports   int     `json:"total_exports"`
	TotalSnapshots int     `json:"total_snapshots"`
	UptimeHours    float64 `json:"uptime_hours"`
}

// NewState is an empty state.
func NewState() *State {
	return &State{Version: StateVersion, LLMs: map[string]*LLMState{}}
}

// llm returns (creating) the state of an assistant.
func (s *State) llm(name string) *LLMState {
	l := s.LLMs[name]
	if l == nil {
		l = &LLMState{}
		s.LLMs[name] = l
	}
	if l.SessionCooldowns == nil {
		l.SessionCooldowns = map[string]time.Time{}
	}
	if l.Sessions == nil {
		l.Sessions = map[string]*SessionState{}
	}
	if l.ActiveSessions == nil {
		l.ActiveSessions = []string{}
	}
	return l
}

// ReadState reads a state file. A missing file is an empty state; a
// damaged one (not JSON, larger than 16 MiB, or not a regular file: a
// symbolic link is not followed) is an error wrapping ErrBadState (the
// watcher then starts afresh and keeps the damaged file beside it).
func ReadState(path string) (*State, error) {
	data, err := store.ReadFileBounded(path, maxStateBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return NewState(), nil
	case errors.Is(err, store.ErrUnsafePath):
		return nil, fmt.Errorf("%w: %w", ErrBadState, err)
	case err != nil:
		return nil, fmt.Errorf("watch: state: %w", err)
	}
	s := NewState()
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadState, path, err)
	}
	if s.LLMs == nil {
		s.LLMs = map[string]*LLMState{}
	}
	for name := range s.LLMs {
		s.llm(name)
	}
	return s, nil
}

// ErrBadState reports a damaged state file.
var ErrBadState = errors.New("watch: damaged state file")

// Write saves the state atomically (0600, parent 0700).
func (s *State) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	for _, l := range s.LLMs {
		sort.Strings(l.ActiveSessions)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("watch: encoding state: %w", err)
	}
	if err := store.WriteFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("watch: writing %s: %w", path, err)
	}
	return nil
}

// prune drops expired cooldowns and sessions long inactive.
func (s *State) prune(now time.Time) {
	for _, l := range s.LLMs {
		for id, until := range l.SessionCooldowns {
			if !now.Before(until) {
				delete(l.SessionCooldowns, id)
			}
		}
		for id, ss := range l.Sessions {
			if _, cool := l.SessionCooldowns[id]; !cool && now.Sub(ss.LastModified) > forgetAfter {
				delete(l.Sessions, id)
			}
		}
	}
}
