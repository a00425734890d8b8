package hookfast

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// EventKey normalises a hook event name for comparison: Claude Code's
// name ("PreCompact") and its kebab-case form ("pre-compact"), in any
// letter case, give the same key ("precompact").
func EventKey(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(strings.TrimSpace(name)))
}

// Fail reports a hook failure the way every Ben10 hook does: one line on
// stderr naming the event and the error log, and one entry in the error
// log under home. event is the event's name ("hook" when unknown); sid and
// project may be empty.
func Fail(stderr io.Writer, home, event, sid, project string, err error, now time.Time) {
	if event == "" {
		event = "hook"
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	fmt.Fprintf(stderr, "ben10 %s: %s (continuing without Ben10; see %s)\n", event, msg, ErrorLogPath(home))
	_ = AppendError(home, ErrorEntry{Time: now, Event: event, Session: sid, Project: project, Error: msg})
}
