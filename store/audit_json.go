package store

import (
	"strconv"

	"github.com/ben10ctx/ben10/internal/jsonw"
)

// appendAuditEntry appends json.Marshal(e) without encoding/json's
// reflection (the audit line is written by every restoring hook, where
// building encoding/json's encoder for AuditEntry was a measurable part
// of the run); audit_json_test.go compares it with encoding/json.
func appendAuditEntry(b []byte, e *AuditEntry) ([]byte, error) {
	b, err := jsonw.AppendTime(append(b, `{"timestamp":`...), e.Timestamp)
	if err != nil {
		return nil, err
	}
	b = jsonw.AppendString(append(b, `,"action":`...), e.Action, true)
	b = jsonw.AppendString(append(b, `,"directory":`...), e.Directory, true)
	if e.SizeBytes != 0 {
		b = strconv.AppendInt(append(b, `,"size_bytes":`...), e.SizeBytes, 10)
	}
	if e.Messages != 0 {
		b = strconv.AppendInt(append(b, `,"messages":`...), int64(e.Messages), 10)
	}
	if e.ExportPath != "" {
		b = jsonw.AppendString(append(b, `,"export_path":`...), e.ExportPath, true)
	}
	if e.RedactionsApplied != 0 {
		b = strconv.AppendInt(append(b, `,"redactions_applied":`...), int64(e.RedactionsApplied), 10)
	}
	if e.SnapshotID != "" {
		b = jsonw.AppendString(append(b, `,"snapshot_id":`...), e.SnapshotID, true)
	}
	if e.Path != "" {
		b = jsonw.AppendString(append(b, `,"path":`...), e.Path, true)
	}
	if e.Count != 0 {
		b = strconv.AppendInt(append(b, `,"count":`...), int64(e.Count), 10)
	}
	if e.Session != "" {
		b = jsonw.AppendString(append(b, `,"session":`...), e.Session, true)
	}
	if e.Detail != "" {
		b = jsonw.AppendString(append(b, `,"detail":`...), e.Detail, true)
	}
	return append(b, '}'), nil
}
