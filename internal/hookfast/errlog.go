package hookfast

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// ErrorLogName is the hooks' error log in ~/.claude-code/.
const ErrorLogName = "ben10-errors.log"

// MaxErrorLog bounds the error log: when it grows past this size it is
// renamed to ben10-errors.log.1 (replacing the previous one) and a new
// log starts, so at most about twice this size is kept.
const MaxErrorLog = 1 << 20

// ErrorLogPath is ~/.claude-code/ben10-errors.log.
func ErrorLogPath(home string) string {
	return filepath.Join(home, ".claude-code", ErrorLogName)
}

// ErrorEntry is one line of the error log.
type ErrorEntry struct {
	Time    time.Time `json:"time"`
	Event   string    `json:"event"`
	Session string    `json:"session,omitempty"`
	Project string    `json:"project,omitempty"`
	Error   string    `json:"error"`
}

// MaxErrorText bounds one entry's error text.
const MaxErrorText = 1024

// AppendError adds e as one JSON line to the error log, rotating it when
// it is larger than MaxErrorLog.
func AppendError(home string, e ErrorEntry) error {
	if home == "" {
		return os.ErrNotExist
	}
	p := ErrorLogPath(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if fi, err := os.Stat(p); err == nil && fi.Size() > MaxErrorLog {
		_ = os.Rename(p, p+".1")
	}
	if len(e.Error) > MaxErrorText {
		e.Error = e.Error[:MaxErrorText] + "…"
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
