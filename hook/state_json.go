package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ben10ctx/ben10/internal/jscan"
	"github.com/ben10ctx/ben10/internal/jsonw"
)

// hook-state.json without encoding/json's reflection (see json_fields.go
// for the rules). marshalState is json.MarshalIndent(s, "", " ") byte for
// byte; unmarshalState is json.Unmarshal(data, s).

var stateFields = newFieldSet("version", "project", "sessions", "recoveries")

var sessionFields = newFieldSet("transcript", "started", "last_event", "ended", "end_reason",
	"prompts", "prompts_since_checkpoint", "modifications_since_checkpoint", "last_checkpoint",
	"checkpoints", "snapshots", "compact_summary", "pre_compact_size", "pre_compact_transcript",
	"last_checkpoint_error", "compact_summary_tag")

var recoveryFields = newFieldSet("id", "kind", "state", "source_session", "target_session",
	"snapshot", "path", "key", "created", "created_by_pid", "consumed_at", "consumed_by",
	"consumed_by_pid", "chars", "note")

// unmarshalState decodes data into s as json.Unmarshal(data, s) does.
func unmarshalState(data []byte, s *State) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, s) // encoding/json's syntax error
	}
	err := decodeState(data, docValue(data), s)
	if errors.Is(err, errFallback) {
		return json.Unmarshal(data, s)
	}
	return err
}

func decodeState(b []byte, v jscan.Val, s *State) error {
	switch c := v.Kind(b); c {
	case 'n':
		return nil
	case '{':
	default:
		return &jsonTypeError{"(top level)", jsonKind(c), "hook.State"}
	}
	return eachField(b, v, stateFields, func(i int, x jscan.Val) error {
		switch i {
		case 0:
			return decIntN(b, x, "version", &s.Version)
		case 1:
			return decString(b, x, "project", &s.Project)
		case 2:
			return decodeSessions(b, x, s)
		default:
			return decodeRecoveries(b, x, s)
		}
	})
}

func decodeSessions(b []byte, x jscan.Val, s *State) error {
	switch c := x.Kind(b); c {
	case 'n':
		s.Sessions = nil
		return nil
	case '{':
	default:
		return &jsonTypeError{"sessions", jsonKind(c), "map[string]*hook.SessionState"}
	}
	if s.Sessions == nil {
		s.Sessions = map[string]*SessionState{}
	}
	var ferr error
	err := jscan.EachField(b, x, func(key []byte, e jscan.Val) {
		if ferr != nil {
			return
		}
		k, ok := unescapeKey(b, key)
		if !ok {
			ferr = fmt.Errorf("invalid object key %q", key)
			return
		}
		var ss *SessionState
		switch c := e.Kind(b); c {
		case 'n':
		case '{':
			ss = &SessionState{}
			if ferr = decodeSession(b, e, ss); ferr != nil {
				return
			}
		default:
			ferr = &jsonTypeError{"sessions", jsonKind(c), "hook.SessionState"}
			return
		}
		s.Sessions[string(k)] = ss
	})
	if err != nil {
		return errFallback
	}
	return ferr
}

func decodeSession(b []byte, v jscan.Val, ss *SessionState) error {
	return eachField(b, v, sessionFields, func(i int, x jscan.Val) error {
		switch i {
		case 0:
			return decString(b, x, "transcript", &ss.Transcript)
		case 1:
			return decTime(b, x, "started", &ss.Started)
		case 2:
			return decTime(b, x, "last_event", &ss.LastEvent)
		case 3:
			return decTime(b, x, "ended", &ss.Ended)
		case 4:
			return decString(b, x, "end_reason", &ss.EndReason)
		case 5:
			return decIntN(b, x, "prompts", &ss.Prompts)
		case 6:
			return decIntN(b, x, "prompts_since_checkpoint", &ss.SinceCheckpoint)
		case 7:
			return decIntN(b, x, "modifications_since_checkpoint", &ss.Modifications)
		case 8:
			return decTime(b, x, "last_checkpoint", &ss.LastCheckpoint)
		case 9:
			return decIntN(b, x, "checkpoints", &ss.Checkpoints)
		case 10:
			return decIntN(b, x, "snapshots", &ss.Snapshots)
		case 11:
			return decString(b, x, "compact_summary", &ss.CompactSummary)
		case 12:
			return decInt(b, x, "pre_compact_size", &ss.PreCompactSize)
		case 13:
			return decString(b, x, "pre_compact_transcript", &ss.PreCompactTranscript)
		case 14:
			return decString(b, x, "last_checkpoint_error", &ss.LastCheckpointErr)
		default:
			return decString(b, x, "compact_summary_tag", &ss.CompactSummaryTag)
		}
	})
}

// decodeRecoveries decodes the recoveries array as encoding/json decodes
// into a slice: elements are decoded over the slice's existing elements
// (a repeated key), the slice is truncated to the array's length, and an
// empty array gives an empty, non-nil slice.
func decodeRecoveries(b []byte, x jscan.Val, s *State) error {
	switch c := x.Kind(b); c {
	case 'n':
		s.Recoveries = nil
		return nil
	case '[':
	default:
		return &jsonTypeError{"recoveries", jsonKind(c), "[]hook.Recovery"}
	}
	rs := s.Recoveries
	n := 0
	var ferr error
	err := jscan.EachElem(b, x, func(e jscan.Val) {
		if ferr != nil {
			return
		}
		if n >= cap(rs) {
			rs = append(rs, Recovery{}) // len(rs) == cap(rs) == n here
		}
		if n >= len(rs) {
			rs = rs[:n+1]
		}
		r := &rs[n]
		n++
		switch c := e.Kind(b); c {
		case 'n':
		case '{':
			ferr = decodeRecovery(b, e, r)
		default:
			ferr = &jsonTypeError{"recoveries", jsonKind(c), "hook.Recovery"}
		}
	})
	if err != nil {
		return errFallback
	}
	if n < len(rs) {
		rs = rs[:n]
	}
	if n == 0 {
		rs = []Recovery{}
	}
	s.Recoveries = rs
	return ferr
}

func decodeRecovery(b []byte, v jscan.Val, r *Recovery) error {
	return eachField(b, v, recoveryFields, func(i int, x jscan.Val) error {
		switch i {
		case 0:
			return decString(b, x, "id", &r.ID)
		case 1:
			return decString(b, x, "kind", &r.Kind)
		case 2:
			return decString(b, x, "state", &r.State)
		case 3:
			return decString(b, x, "source_session", &r.SourceSession)
		case 4:
			return decString(b, x, "target_session", &r.TargetSession)
		case 5:
			return decString(b, x, "snapshot", &r.Snapshot)
		case 6:
			return decString(b, x, "path", &r.Path)
		case 7:
			return decString(b, x, "key", &r.Key)
		case 8:
			return decTime(b, x, "created", &r.Created)
		case 9:
			return decIntN(b, x, "created_by_pid", &r.CreatedBy)
		case 10:
			return decTime(b, x, "consumed_at", &r.ConsumedAt)
		case 11:
			return decString(b, x, "consumed_by", &r.ConsumedBy)
		case 12:
			return decIntN(b, x, "consumed_by_pid", &r.ConsumedPID)
		case 13:
			return decIntN(b, x, "chars", &r.Chars)
		default:
			return decString(b, x, "note", &r.Note)
		}
	})
}

// marshalState returns json.MarshalIndent(s, "", " "): the compact form
// written by hand, then indented by json.Indent (encoding/json's
// MarshalIndent is exactly Marshal then Indent).
func marshalState(s *State) ([]byte, error) {
	compact, err := appendState(make([]byte, 0, 1024), s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(compact) + len(compact)/4)
	if err := json.Indent(&buf, compact, "", " "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendState appends json.Marshal(s).
func appendState(b []byte, s *State) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, int64(s.Version), 10)
	b = append(b, `,"project":`...)
	b = jsonw.AppendString(b, s.Project, true)
	b = append(b, `,"sessions":`...)
	if s.Sessions == nil {
		b = append(b, "null"...)
	} else {
		keys := make([]string, 0, len(s.Sessions))
		for k := range s.Sessions {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, k, true)
			b = append(b, ':')
			var err error
			if b, err = appendSession(b, s.Sessions[k]); err != nil {
				return nil, fmt.Errorf("session %q: %w", k, err)
			}
		}
		b = append(b, '}')
	}
	b = append(b, `,"recoveries":`...)
	if s.Recoveries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Recoveries {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendRecovery(b, &s.Recoveries[i]); err != nil {
				return nil, fmt.Errorf("recovery %d: %w", i, err)
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// member starts an object member: the comma unless it is the first.
func member(b []byte, first *bool, name string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func appendSession(b []byte, ss *SessionState) ([]byte, error) {
	if ss == nil {
		return append(b, "null"...), nil
	}
	var err error
	first := true
	b = append(b, '{')
	if ss.Transcript != "" {
		b = jsonw.AppendString(member(b, &first, "transcript"), ss.Transcript, true)
	}
	if !ss.Started.IsZero() {
		if b, err = jsonw.AppendTime(member(b, &first, "started"), ss.Started); err != nil {
			return nil, err
		}
	}
	if b, err = jsonw.AppendTime(member(b, &first, "last_event"), ss.LastEvent); err != nil {
		return nil, err
	}
	if !ss.Ended.IsZero() {
		if b, err = jsonw.AppendTime(member(b, &first, "ended"), ss.Ended); err != nil {
			return nil, err
		}
	}
	if ss.EndReason != "" {
		b = jsonw.AppendString(member(b, &first, "end_reason"), ss.EndReason, true)
	}
	b = strconv.AppendInt(member(b, &first, "prompts"), int64(ss.Prompts), 10)
	b = strconv.AppendInt(member(b, &first, "prompts_since_checkpoint"), int64(ss.SinceCheckpoint), 10)
	b = strconv.AppendInt(member(b, &first, "modifications_since_checkpoint"), int64(ss.Modifications), 10)
	if !ss.LastCheckpoint.IsZero() {
		if b, err = jsonw.AppendTime(member(b, &first, "last_checkpoint"), ss.LastCheckpoint); err != nil {
			return nil, err
		}
	}
	b = strconv.AppendInt(member(b, &first, "checkpoints"), int64(ss.Checkpoints), 10)
	b = strconv.AppendInt(member(b, &first, "snapshots"), int64(ss.Snapshots), 10)
	if ss.CompactSummary != "" {
		b = jsonw.AppendString(member(b, &first, "compact_summary"), ss.CompactSummary, true)
	}
	if ss.CompactSummaryTag != "" {
		b = jsonw.AppendString(member(b, &first, "compact_summary_tag"), ss.CompactSummaryTag, true)
	}
	if ss.PreCompactSize != 0 {
		b = strconv.AppendInt(member(b, &first, "pre_compact_size"), ss.PreCompactSize, 10)
	}
	if ss.PreCompactTranscript != "" {
		b = jsonw.AppendString(member(b, &first, "pre_compact_transcript"), ss.PreCompactTranscript, true)
	}
	if ss.LastCheckpointErr != "" {
		b = jsonw.AppendString(member(b, &first, "last_checkpoint_error"), ss.LastCheckpointErr, true)
	}
	return append(b, '}'), nil
}

func appendRecovery(b []byte, r *Recovery) ([]byte, error) {
	var err error
	first := true
	b = append(b, '{')
	b = jsonw.AppendString(member(b, &first, "id"), r.ID, true)
	b = jsonw.AppendString(member(b, &first, "kind"), r.Kind, true)
	b = jsonw.AppendString(member(b, &first, "state"), r.State, true)
	b = jsonw.AppendString(member(b, &first, "source_session"), r.SourceSession, true)
	if r.TargetSession != "" {
		b = jsonw.AppendString(member(b, &first, "target_session"), r.TargetSession, true)
	}
	if r.Snapshot != "" {
		b = jsonw.AppendString(member(b, &first, "snapshot"), r.Snapshot, true)
	}
	if r.Path != "" {
		b = jsonw.AppendString(member(b, &first, "path"), r.Path, true)
	}
	b = jsonw.AppendString(member(b, &first, "key"), r.Key, true)
	if b, err = jsonw.AppendTime(member(b, &first, "created"), r.Created); err != nil {
		return nil, err
	}
	if r.CreatedBy != 0 {
		b = strconv.AppendInt(member(b, &first, "created_by_pid"), int64(r.CreatedBy), 10)
	}
	if !r.ConsumedAt.IsZero() {
		if b, err = jsonw.AppendTime(member(b, &first, "consumed_at"), r.ConsumedAt); err != nil {
			return nil, err
		}
	}
	if r.ConsumedBy != "" {
		b = jsonw.AppendString(member(b, &first, "consumed_by"), r.ConsumedBy, true)
	}
	if r.ConsumedPID != 0 {
		b = strconv.AppendInt(member(b, &first, "consumed_by_pid"), int64(r.ConsumedPID), 10)
	}
	if r.Chars != 0 {
		b = strconv.AppendInt(member(b, &first, "chars"), int64(r.Chars), 10)
	}
	if r.Note != "" {
		b = jsonw.AppendString(member(b, &first, "note"), r.Note, true)
	}
	return append(b, '}'), nil
}
