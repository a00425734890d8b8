package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Audit actions (PRD "Audit Logging").
const (
	ActionSave    = "context_save"
	ActionRestore = "context_restore"
	ActionExport  = "context_export"
	ActionDelete  = "context_delete"
	ActionPrune   = "context_prune"
)

// MaxAuditLine bounds one audit record; longer Detail text is cut so each
// append stays one small write.
const MaxAuditLine = 2048

// AuditEntry is one line of ~/.claude-code/audit.log: the PRD's fields
// (timestamp, action, directory, size_bytes, messages, export_path,
// redactions_applied) plus what Ben10's other operations need.
type AuditEntry struct {
	Timestamp         time.Time `json:"timestamp"`
	Action            string    `json:"action"`
	Directory         string    `json:"directory"`
	SizeBytes         int64     `json:"size_bytes,omitempty"`
	Messages          int       `json:"messages,omitempty"`
	ExportPath        string    `json:"export_path,omitempty"`
	RedactionsApplied int       `json:"redactions_applied,omitempty"`
	SnapshotID        string    `json:"snapshot_id,omitempty"`
	Path              string    `json:"path,omitempty"`  // the file saved, restored, deleted
	Count             int       `json:"count,omitempty"` // files pruned
	Session           string    `json:"session,omitempty"`
	Detail            string    `json:"detail,omitempty"`
}

// AuditPath is ~/.claude-code/audit.log.
func AuditPath(home string) string {
	return filepath.Join(home, ".claude-code", "audit.log")
}

// AppendAudit appends e as one JSON line to the audit log under home,
// creating ~/.claude-code (0700) and the log (0600) if needed. It opens the
// file with O_APPEND and writes the whole line in one write, so concurrent
// writers never interleave within a line on a local file system. A zero
// Timestamp is set to now. Callers log a returned error and carry on: an
// audit failure never fails the operation being audited.
func AppendAudit(home string, e AuditEntry) error {
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now()
	}
	e.Timestamp = e.Timestamp.UTC().Truncate(time.Millisecond)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("store: audit entry: %w", err)
	}
	for len(line)+1 > MaxAuditLine && e.Detail != "" {
		cut := max(0, len(e.Detail)-(len(line)+1-MaxAuditLine)-8)
		// Cut without splitting a UTF-8 sequence.
		e.Detail = strings.ToValidUTF8(e.Detail[:cut], "") + "…"
		if cut == 0 {
			e.Detail = ""
		}
		if line, err = json.Marshal(e); err != nil {
			return fmt.Errorf("store: audit entry: %w", err)
		}
	}
	line = append(line, '\n')
	p := AuditPath(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("store: audit log: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: audit log: %w", err)
	}
	_, werr := f.Write(line)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("store: writing audit log %s: %w", p, werr)
	}
	if cerr != nil {
		return fmt.Errorf("store: closing audit log %s: %w", p, cerr)
	}
	return nil
}

// Audit appends an entry for this store's project to the audit log,
// filling Directory and Session when empty.
func (s *Store) Audit(e AuditEntry) error {
	if e.Directory == "" {
		e.Directory = s.project
	}
	if e.Session == "" {
		e.Session = s.session
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = s.now()
	}
	return AppendAudit(s.home, e)
}
