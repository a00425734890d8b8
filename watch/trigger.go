package watch

import (
	"fmt"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// Observation is what the watcher knows about one session when it
// evaluates it.
type Observation struct {
	// Percent is the context usage (0–100+); valid when HavePercent.
	Percent     float64
	HavePercent bool
	// Size is the session file's size; SizeAtExport its size at the last
	// export (0 before the first).
	Size, SizeAtExport int64
	// Turns counts user turns since the last export.
	Turns int
	// LastExport is the time of the session's last export (archive or
	// snapshot) by the watcher; FirstSeen when the watcher first saw it.
	LastExport, FirstSeen time.Time
	// LastSnapshot is the newest pre-compaction snapshot of the session
	// known to the watcher, whoever took it (hook, watcher, cli).
	LastSnapshot time.Time
}

// Decision is what to do about a session.
type Decision struct {
	Warn     bool     // context at or above warn_percent
	Archive  bool     // write an incremental archive
	Snapshot bool     // also take a pre-compaction snapshot (export band)
	Reasons  []string // which triggers fired
	// Blocked names the cooldown that held a trigger back ("" if none).
	Blocked string
}

// Decide applies l's thresholds, triggers and cooldown to o at now.
//
// The context trigger fires at or above ExportPercent (the export band)
// and asks for an archive and a snapshot, unless the session's last
// snapshot (from a hook, the CLI or the watcher) is within the cooldown, so
// that a session is never snapshotted twice in a cooldown. The size, time
// and turn triggers ask for an archive, held back while the session is
// within its cooldown after its last export. A snapshot is never held back
// by an archive-only export.
func Decide(l *LLMConfig, o Observation, now time.Time) Decision {
	var d Decision
	t := l.Thresholds
	if o.HavePercent && o.Percent >= t.WarnPercent {
		d.Warn = true
	}
	band := o.HavePercent && l.Triggers.ContextPercent && o.Percent >= t.ExportPercent
	if band {
		d.Reasons = append(d.Reasons, fmt.Sprintf("context %.1f%% ≥ export %.0f%%", o.Percent, t.ExportPercent))
	}
	if mb := l.Triggers.SizeMB; mb > 0 && float64(o.Size-o.SizeAtExport) >= mb*(1<<20) {
		d.Reasons = append(d.Reasons, fmt.Sprintf("size grew %s ≥ %g MiB", store.FormatBytes(o.Size-o.SizeAtExport), mb))
	}
	if m := l.Triggers.TimeMinutes; m > 0 {
		since := o.LastExport
		if since.IsZero() {
			since = o.FirstSeen
		}
		if !since.IsZero() && now.Sub(since) >= time.Duration(m*float64(time.Minute)) {
			d.Reasons = append(d.Reasons, fmt.Sprintf("%s since last export ≥ %g min", now.Sub(since).Round(time.Second), m))
		}
	}
	if n := l.Triggers.Turns; n > 0 && o.Turns >= n {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d turns ≥ %d", o.Turns, n))
	}
	if len(d.Reasons) == 0 {
		return d
	}
	cooled := func(t time.Time) bool { return t.IsZero() || now.Sub(t) >= l.Cooldown }
	switch {
	case band && cooled(o.LastSnapshot):
		// A snapshot is never held back by an archive-only export.
		d.Archive, d.Snapshot = true, true
	case cooled(o.LastExport):
		d.Archive = true
		if band {
			d.Blocked = fmt.Sprintf("snapshot cooldown (last snapshot %s ago)", now.Sub(o.LastSnapshot).Round(time.Second))
		}
	default:
		d.Blocked = fmt.Sprintf("session cooldown (%s left)", (l.Cooldown - now.Sub(o.LastExport)).Round(time.Second))
		d.Reasons = nil
	}
	return d
}
