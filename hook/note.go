package hook

import (
	"context"
	"errors"
	"io"

	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/store"
)

// The hook protocol, the hook state and the handling of the events that
// only take note are implemented once in internal/hooknote, which the
// ben10-hook shim links too; this package names them for its callers.

// Event is a Claude Code hook event, by Claude Code's own name.
type Event = hooknote.Event

// The events Ben10 handles.
const (
	SessionStart     = hooknote.SessionStart
	UserPromptSubmit = hooknote.UserPromptSubmit
	PostToolUse      = hooknote.PostToolUse
	PreCompact       = hooknote.PreCompact
	PostCompact      = hooknote.PostCompact
	Stop             = hooknote.Stop
	SessionEnd       = hooknote.SessionEnd
)

// Events lists the handled events in the order a session meets them.
var Events = hooknote.Events

// Errors of the hook input (see package hooknote).
var (
	ErrUnknownEvent   = hooknote.ErrUnknownEvent
	ErrBadInput       = hooknote.ErrBadInput
	ErrTranscriptPath = hooknote.ErrTranscriptPath
	ErrNoTranscript   = hooknote.ErrNoTranscript
	ErrStateCorrupt   = hooknote.ErrStateCorrupt
	ErrStateBusy      = hooknote.ErrStateBusy
)

// ParseEvent accepts Claude Code's name ("PreCompact") or its kebab-case
// form ("pre-compact"), in any letter case.
func ParseEvent(name string) (Event, error) { return hooknote.ParseEvent(name) }

// Input is the JSON Claude Code writes to a hook's stdin.
type Input = hooknote.Input

// MaxInputBytes bounds what ReadInput accepts on stdin.
const MaxInputBytes = hooknote.MaxInputBytes

// ReadInput reads and parses one hook input from r, reading at most
// MaxInputBytes.
func ReadInput(r io.Reader) (*Input, error) { return hooknote.ReadInput(r) }

// ParseInput parses one hook input.
func ParseInput(data []byte) (*Input, error) { return hooknote.ParseInput(data) }

// Output is the JSON a hook prints on stdout.
type Output = hooknote.Output

// SpecificOutput is the event-specific part of Output.
type SpecificOutput = hooknote.SpecificOutput

// MaxAdditionalContext is Claude Code's cap on additionalContext.
const MaxAdditionalContext = hooknote.MaxAdditionalContext

// State is the per-project hook state (see package hooknote).
type State = hooknote.State

// SessionState is what the hooks remember about one session.
type SessionState = hooknote.SessionState

// Recovery is one piece of saved context offered to a session.
type Recovery = hooknote.Recovery

// StateName is the per-project hook state file inside the store directory.
const StateName = hooknote.StateName

// StateVersion is the version of the state file's schema.
const StateVersion = hooknote.StateVersion

// Recovery states and kinds.
const (
	RecoveryActive   = hooknote.RecoveryActive
	RecoveryConsumed = hooknote.RecoveryConsumed
	RecoveryExpired  = hooknote.RecoveryExpired
	RecoveryDeclined = hooknote.RecoveryDeclined
	KindCompact      = hooknote.KindCompact
	KindHandoff      = hooknote.KindHandoff
)

// ProcessID identifies a running process across PID reuse.
type ProcessID = hooknote.ProcessID

// Processes tells which assistant process a hook runs under and whether
// the process of an earlier session is still running.
type Processes = hooknote.Processes

// SystemProcesses is the Processes of this machine.
var SystemProcesses = hooknote.SystemProcesses

// Work modes, from $BEN10_HOOK_WORK, and the former $BEN10_HOOK_RECOMPRESS
// values (see package hooknote).
const (
	WorkBackground       = hooknote.WorkBackground
	WorkSync             = hooknote.WorkSync
	WorkDefer            = hooknote.WorkDefer
	RecompressBackground = hooknote.RecompressBackground
	RecompressSync       = hooknote.RecompressSync
	RecompressOff        = hooknote.RecompressOff
	RecompressDefer      = hooknote.RecompressDefer
)

// env is the hooknote environment of h. A job that must be done before
// the hook returns runs through h.SyncWork when set (registered first, so
// that a failure leaves it to the next worker), else in this process.
func (h *Handler) env() *hooknote.Env {
	return &hooknote.Env{
		Home: h.Home, Getenv: h.Getenv, Now: h.Now, Spawn: h.Spawn,
		Processes: h.Processes,
		SyncWork: func(ctx context.Context, st *store.Store, j store.Job) error {
			if h.SyncWork != nil {
				if err := hooknote.RegisterProject(h.home(), st.ProjectDir()); err != nil {
					return err
				}
				return h.SyncWork(ctx)
			}
			err := h.runJob(ctx, st, j)
			if err != nil {
				// Kept for a retry by the next worker.
				err = errors.Join(err, hooknote.RegisterProject(h.home(), st.ProjectDir()))
			}
			return err
		},
	}
}
