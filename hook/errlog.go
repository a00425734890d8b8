package hook

import "github.com/ben10ctx/ben10/internal/hookfast"

// The error log is implemented in internal/hookfast, which the ben10-hook
// shim shares.

// ErrorLogName is the hooks' error log in ~/.claude-code/.
const ErrorLogName = hookfast.ErrorLogName

// MaxErrorLog bounds the error log: when it grows past this size it is
// renamed to ben10-errors.log.1 (replacing the previous one) and a new
// log starts, so at most about twice this size is kept.
const MaxErrorLog = hookfast.MaxErrorLog

// ErrorLogPath is ~/.claude-code/ben10-errors.log.
func ErrorLogPath(home string) string { return hookfast.ErrorLogPath(home) }

// ErrorEntry is one line of the error log.
type ErrorEntry = hookfast.ErrorEntry

// AppendError adds e as one JSON line to the error log, rotating it when
// it is larger than MaxErrorLog.
func AppendError(home string, e ErrorEntry) error { return hookfast.AppendError(home, e) }
