package hook

import "github.com/ben10ctx/ben10/internal/hookfast"

// The error log is implemented in internal/hookfast, which the ben10-hook
// shim shares.

// ErrorEntry is one line of the error log.
type ErrorEntry = hookfast.ErrorEntry

// AppendError adds e as one JSON line to the error log, rotating it when
// it is larger than MaxErrorLog.
func AppendError(home string, e ErrorEntry) error { return hookfast.AppendError(home, e) }
