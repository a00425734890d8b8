package hooknote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// StateName is the per-project hook state file inside the store directory.
const StateName = "hook-state.json"

// StateVersion is the version of the state file's schema.
const StateVersion = 1

// Limits that keep the state file small however long a project lives.
const (
	maxStateBytes   = 4 << 20             // a larger file is treated as damaged
	sessionTTL      = 14 * 24 * time.Hour // sessions not seen for this long are forgotten
	maxSessions     = 200
	maxRecoveries   = 100
	stateLockWait   = 2 * time.Second
	stateLockName   = "hook-state.lock"
	CompactLookback = time.Hour // a snapshot older than this is not "the one just taken"
)

// Recovery states (seed 003's handoff manifest).
const (
	RecoveryActive   = "active"   // ready to be injected
	RecoveryConsumed = "consumed" // injected into ConsumedBy
	RecoveryExpired  = "expired"  // too old, or superseded by a newer one
	// RecoveryDeclined: the user chose a fresh start (`ben10 context
	// restore --mode fresh`); the saved context is kept but never injected.
	RecoveryDeclined = "declined"
)

// Recovery kinds.
const (
	KindCompact = "compact" // snapshot before compaction → SessionStart(compact) of the same session
	KindHandoff = "handoff" // a saved context → SessionStart(startup|clear) of a new session
)

// State is the per-project hook state: prompt counts and checkpoint times
// per session, and the recoveries offered and consumed. It is small JSON,
// replaced atomically under its own lock (never the store lock, so the fast
// paths never wait behind a snapshot being written).
type State struct {
	Version    int                      `json:"version"`
	Project    string                   `json:"project"`
	Sessions   map[string]*SessionState `json:"sessions"`
	Recoveries []Recovery               `json:"recoveries"`
}

// SessionState is what the hooks remember about one session.
type SessionState struct {
	Transcript      string    `json:"transcript,omitempty"`
	Started         time.Time `json:"started,omitzero"`
	LastEvent       time.Time `json:"last_event"`
	Ended           time.Time `json:"ended,omitzero"`
	EndReason       string    `json:"end_reason,omitempty"`
	Prompts         int       `json:"prompts"`
	SinceCheckpoint int       `json:"prompts_since_checkpoint"`
	Modifications   int       `json:"modifications_since_checkpoint"`
	LastCheckpoint  time.Time `json:"last_checkpoint,omitzero"`
	Checkpoints     int       `json:"checkpoints"`
	Snapshots       int       `json:"snapshots"`
	CompactSummary  string    `json:"compact_summary,omitempty"` // from PostCompact, until SessionStart(compact) uses it
	// CompactSummaryTag authenticates CompactSummary as written by this
	// user's Ben10 for this project and session (see summaryTag).
	CompactSummaryTag string `json:"compact_summary_tag,omitempty"`
	// PreCompactSize is the transcript's size when PreCompact read it
	// (PreCompactTranscript): the compaction's boundary and summary are
	// appended after it, where SessionStart(compact) looks first.
	PreCompactSize       int64  `json:"pre_compact_size,omitempty"`
	PreCompactTranscript string `json:"pre_compact_transcript,omitempty"`
	LastCheckpointErr    string `json:"last_checkpoint_error,omitempty"`
	// PID and PIDStart identify the assistant process the session's
	// hooks ran under (see Processes), so that a session whose process
	// is gone is known to have ended although no SessionEnd came.
	PID      int   `json:"pid,omitempty"`
	PIDStart int64 `json:"pid_start,omitempty"`
}

// Recovery is one piece of saved context offered to a session, with its
// audit trail.
type Recovery struct {
	ID            string    `json:"id"`
	Kind          string    `json:"kind"` // KindCompact | KindHandoff
	State         string    `json:"state"`
	SourceSession string    `json:"source_session"`
	TargetSession string    `json:"target_session,omitempty"` // compact: the same session; handoff: set when consumed
	Snapshot      string    `json:"snapshot,omitempty"`       // compact: snapshot id
	Path          string    `json:"path,omitempty"`           // handoff: the saved context file
	Key           string    `json:"key"`                      // identity of the saved content
	Created       time.Time `json:"created"`
	CreatedBy     int       `json:"created_by_pid,omitempty"`
	ConsumedAt    time.Time `json:"consumed_at,omitzero"`
	ConsumedBy    string    `json:"consumed_by,omitempty"` // session
	ConsumedPID   int       `json:"consumed_by_pid,omitempty"`
	Chars         int       `json:"chars,omitempty"` // size of the injected text
	Note          string    `json:"note,omitempty"`
}

// ErrStateCorrupt: the state file exists but cannot be parsed. The hooks
// then start over with an empty state (the damaged file is kept beside it).
var ErrStateCorrupt = errors.New("hook: state file is damaged")

func newState(project string) *State {
	return &State{Version: StateVersion, Project: project, Sessions: map[string]*SessionState{}}
}

// StatePath is the state file of a store directory.
func StatePath(root string) string { return filepath.Join(root, StateName) }

// ReadState reads the state file in the store directory root, with the
// prompts counted on the fast path since the last update added in. A
// missing file is an empty state; a damaged one is ErrStateCorrupt.
func ReadState(root string) (*State, error) {
	s, err := readState(root)
	if err != nil {
		return nil, err
	}
	for id, ss := range s.Sessions {
		n, _ := hookfast.ReadCounter(hookfast.CounterPath(root, id))
		ss.Prompts += n
		ss.SinceCheckpoint += n
	}
	return s, nil
}

func readState(root string) (*State, error) {
	data, err := readBounded(StatePath(root), maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(""), nil
	}
	if err != nil {
		return nil, err
	}
	s := newState("")
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStateCorrupt, StatePath(root), err)
	}
	if s.Version > StateVersion {
		return nil, fmt.Errorf("%w: %s has version %d, this ben10 knows %d", ErrStateCorrupt, StatePath(root), s.Version, StateVersion)
	}
	if s.Sessions == nil {
		s.Sessions = map[string]*SessionState{}
	}
	for k, v := range s.Sessions {
		if v == nil {
			delete(s.Sessions, k)
		}
	}
	return s, nil
}

// readBounded reads the state file: a regular file of at most limit
// bytes, never through a symbolic link and never blocking on a FIFO or
// device (store.ReadFileBounded). Anything else is ErrStateCorrupt, so the
// damaged entry is moved aside (a link is renamed, never followed).
func readBounded(path string, limit int64) ([]byte, error) {
	data, err := store.ReadFileBounded(path, limit)
	if errors.Is(err, store.ErrUnsafePath) {
		return nil, fmt.Errorf("%w: %w", ErrStateCorrupt, err)
	}
	return data, err
}

// UpdateState runs fn on the state of the store directory root under the
// state lock and writes the result atomically when fn returns nil. A
// damaged state file is moved aside (state.json.corrupt-<time>) and
// replaced by an empty state, so a bad file never disables the hooks.
func UpdateState(root, project string, now time.Time, fn func(*State) error) error {
	unlock, err := lockFile(filepath.Join(root, stateLockName), stateLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	s, err := readState(root)
	var damaged error
	if errors.Is(err, ErrStateCorrupt) {
		damaged = err
		aside := StatePath(root) + ".corrupt-" + now.UTC().Format("20060102-150405")
		if rerr := os.Rename(StatePath(root), aside); rerr != nil {
			return fmt.Errorf("%w; moving it aside: %w", err, rerr)
		}
		s = newState(project)
	} else if err != nil {
		return err
	}
	if s.Project == "" {
		s.Project = project
	}
	if err := fn(s); err != nil {
		return err
	}
	for _, id := range s.prune(now) {
		hookfast.RemoveCounter(root, id)
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := writeState(root, append(data, '\n')); err != nil {
		return err
	}
	return damaged
}

// writeState replaces the state file atomically, under the state lock, so
// the temporary name is fixed. On Linux the temporary file is kept between
// updates holding the previous version (a spare): the new state is written
// into it and the two names are exchanged atomically (renameat2
// RENAME_EXCHANGE), so an update allocates and frees no inode. Elsewhere,
// or when there is no spare yet, it is the usual temporary file and
// rename. It is not fsynced: the state is the hooks' bookkeeping (prompt
// counts, checkpoint times, which recoveries were injected), not user
// data, and the fsyncs were most of a SessionStart hook's time. A crash can
// at worst roll the file back to an earlier version, or — on a file system
// without ext4's rename ordering — leave it damaged, which is detected,
// moved aside and replaced by an empty state; either way a recovery may be
// offered once more, nothing is lost. Archives, snapshots and index.json
// keep their fsynced writes in packages store and snapshot. A spare older
// than store.SweepAge is removed by the store's sweep of temporary files,
// which only costs the next update its reuse.
func writeState(root string, data []byte) error {
	tmp := filepath.Join(root, store.TempPrefix+StateName)
	if rewriteSpare(tmp, StatePath(root), data) {
		return nil
	}
	// The name is fixed: whatever is there (a stale spare, or a link
	// planted in the repository) is removed, never written through.
	_ = os.Remove(tmp)
	f, err := store.CreateExclusive(tmp, 0o600)
	if err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("hook: writing %s: %w", tmp, errors.Join(werr, cerr))
	}
	if err := replaceKeepingSpare(tmp, StatePath(root)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("hook: replacing %s: %w", StatePath(root), err)
	}
	return nil
}

// Session returns the state of session id, creating it.
func (s *State) Session(id string) *SessionState {
	ss := s.Sessions[id]
	if ss == nil {
		ss = &SessionState{}
		s.Sessions[id] = ss
	}
	return ss
}

// prune forgets old sessions and recoveries so the file stays small. It
// returns the sessions forgotten.
func (s *State) prune(now time.Time) (gone []string) {
	type kv struct {
		id string
		t  time.Time
	}
	var all []kv
	for id, ss := range s.Sessions {
		if now.Sub(ss.LastEvent) > sessionTTL {
			delete(s.Sessions, id)
			gone = append(gone, id)
			continue
		}
		all = append(all, kv{id, ss.LastEvent})
	}
	if len(all) > maxSessions {
		sort.Slice(all, func(i, j int) bool { return all[i].t.After(all[j].t) })
		for _, e := range all[maxSessions:] {
			delete(s.Sessions, e.id)
			gone = append(gone, e.id)
		}
	}
	if len(s.Recoveries) > maxRecoveries {
		s.Recoveries = append([]Recovery(nil), s.Recoveries[len(s.Recoveries)-maxRecoveries:]...)
	}
	return gone
}

// ConsumedKey reports whether the content identified by key was already
// injected (into any session) — a re-fired event never injects it twice —
// or declined by a fresh start.
func (s *State) ConsumedKey(key string) *Recovery {
	for i := range s.Recoveries {
		r := &s.Recoveries[i]
		if r.Key == key && (r.State == RecoveryConsumed || r.State == RecoveryDeclined) {
			return r
		}
	}
	return nil
}

// AddRecovery records a new active recovery. An older active one of the
// same kind for the same target (compact) or source (handoff) is
// superseded.
func (s *State) AddRecovery(r Recovery) {
	for i := range s.Recoveries {
		o := &s.Recoveries[i]
		if o.State != RecoveryActive || o.Kind != r.Kind {
			continue
		}
		if (r.Kind == KindCompact && o.TargetSession == r.TargetSession) || (r.Kind == KindHandoff && o.SourceSession == r.SourceSession) {
			o.State = RecoveryExpired
			o.Note = "superseded by " + r.ID
		}
	}
	s.Recoveries = append(s.Recoveries, r)
}

// Expire marks the active recoveries that are past their expiry as
// expired: a handoff older than handoffMaxAge (context.recovery's
// startup_max_age: a new session would no longer be offered it), a
// compact recovery older than CompactLookback. Only superseded ones were
// marked before; the rest stayed "active" for ever.
func (s *State) Expire(now time.Time, handoffMaxAge time.Duration) {
	for i := range s.Recoveries {
		r := &s.Recoveries[i]
		if r.State != RecoveryActive {
			continue
		}
		limit := handoffMaxAge
		if r.Kind == KindCompact {
			limit = CompactLookback
		}
		if limit > 0 && now.Sub(r.Created) > limit {
			r.State = RecoveryExpired
			r.Note = "older than " + limit.String()
		}
	}
}

// Live reports whether session id is (probably) still running: it has not
// ended and it was active within LiveWindow.
func (s *State) Live(id string, now time.Time) bool {
	ss := s.Sessions[id]
	return ss != nil && ss.Ended.IsZero() && now.Sub(ss.LastEvent) < LiveWindow
}

// LiveWindow: a session that has not ended and had a hook event this
// recently is taken to be running in another terminal; its context is never
// injected into a new session.
const LiveWindow = 15 * time.Minute
