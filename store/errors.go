package store

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Use errors.Is to test for them; typed errors below wrap
// them where more detail is available.
var (
	// ErrLockTimeout: the store lock could not be taken within the
	// configured lock timeout. Returned wrapped in a *LockTimeoutError.
	ErrLockTimeout = errors.New("store: timed out waiting for the store lock")
	// ErrNotLocked: an operation that changes the store was called without
	// holding the lock taken by (*Store).Lock on the same Store.
	ErrNotLocked = errors.New("store: operation requires the store lock")
	// ErrNoValidContext: neither current.ctx nor any checkpoint or history
	// file passed verification (or none exists).
	ErrNoValidContext = errors.New("store: no valid saved context")
	// ErrStorageLimit: a write would take the store beyond its configured
	// size limit. Returned wrapped in a *StorageLimitError.
	ErrStorageLimit = errors.New("store: storage limit reached")
	// ErrInvalidConfig: a configuration file, flag or value is invalid.
	// Returned wrapped in a *ConfigError.
	ErrInvalidConfig = errors.New("store: invalid configuration")
	// ErrUnknownKey: SetConfigValue or a flag named a key that does not
	// exist.
	ErrUnknownKey = errors.New("store: unknown configuration key")
	// ErrAborted: an AtomicFile was used after Abort or Commit.
	ErrAborted = errors.New("store: atomic file already committed or aborted")
)

// LockTimeoutError reports who held the lock when a Lock call gave up.
type LockTimeoutError struct {
	Path   string     // the lock file
	Holder LockHolder // the holder recorded in the lock file, if any
	Waited string     // how long the caller waited, e.g. "2s"
}

func (e *LockTimeoutError) Error() string {
	msg := fmt.Sprintf("store: timed out after %s waiting for lock %s", e.Waited, e.Path)
	if e.Holder.PID != 0 {
		msg += fmt.Sprintf(" (held by pid %d on %s since %s", e.Holder.PID, e.Holder.Host,
			e.Holder.Since.Format("2006-01-02T15:04:05Z07:00"))
		if e.Holder.Session != "" {
			msg += ", session " + e.Holder.Session
		}
		msg += ")"
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrLockTimeout) true.
func (e *LockTimeoutError) Unwrap() error { return ErrLockTimeout }

// StorageLimitOptions are the choices the PRD offers the user when the
// context storage limit is reached ("Storage Limit Exceeded").
var StorageLimitOptions = []string{
	"[P] Prune old history and checkpoints (ben10 context prune)",
	"[C] Compress conversation history (lossy)",
	"[I] Increase limit (edit .claude/config.yaml: context.max_storage_mb)",
	"[X] Continue without saving",
}

// SnapshotLimitOptions are the choices offered when the compaction snapshot
// archive is full of pinned snapshots.
var SnapshotLimitOptions = []string{
	"[P] Unpin and prune old snapshots (ben10 context compaction unpin ID; ben10 context compaction prune)",
	"[I] Increase limit (edit .claude/config.yaml: context.compaction_snapshots.max_storage_mb)",
	"[X] Continue without a snapshot",
}

// StorageLimitError is returned when a write would exceed a storage limit.
type StorageLimitError struct {
	Area       string   // "context" (current, checkpoints, history) or "compaction-snapshots"
	UsedBytes  int64    // bytes in use before the write
	AddBytes   int64    // bytes the refused write would add
	LimitBytes int64    // the configured limit
	Options    []string // what the user can do, as in the PRD
}

func (e *StorageLimitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store: %s storage limit reached (%s): %s in use, %s more refused",
		e.Area, FormatBytes(e.LimitBytes), FormatBytes(e.UsedBytes), FormatBytes(e.AddBytes))
	if len(e.Options) > 0 {
		b.WriteString("; options: ")
		b.WriteString(strings.Join(e.Options, "; "))
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrStorageLimit) true.
func (e *StorageLimitError) Unwrap() error { return ErrStorageLimit }

// FormatBytes prints a size for people in B, KiB, MiB or GiB (powers of
// 1024, the unit named as such): every size Ben10 shows is printed by it.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ConfigError names the file, line and key of an invalid configuration value
// and the values that would have been accepted.
type ConfigError struct {
	File    string // file path, "flag" for command-line flags, "" for a value given to SetConfigValue
	Line    int    // 1-based line, 0 when unknown
	Key     string // dotted key under context:, e.g. "compaction_snapshots.retention_count"
	Value   string // the offending value as written
	Allowed string // human description of the accepted values
	Err     error  // underlying cause (parse error), may be nil
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "context.%s: ", e.Key)
	}
	if e.Allowed != "" || e.Value != "" {
		fmt.Fprintf(&b, "invalid value %q", e.Value)
		if e.Allowed != "" {
			fmt.Fprintf(&b, " (allowed: %s)", e.Allowed)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns ErrInvalidConfig and the underlying cause.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidConfig, e.Err}
	}
	return []error{ErrInvalidConfig}
}
