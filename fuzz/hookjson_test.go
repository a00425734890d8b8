package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hooknote"
)

// The hook decodes its stdin and hook-state.json, and encodes its stdout,
// with encoding/json, behind its own checks (size, version, sentinels).
// These targets check that those checks keep encoding/json's answer and
// turn every refusal into the package's sentinel error.

var hookStateSeeds = []string{
	`{"version":1,"project":"/p","sessions":{"s":{"last_event":"2026-01-02T03:04:05.000000006Z","prompts":2,"prompts_since_checkpoint":0,"modifications_since_checkpoint":0,"checkpoints":0,"snapshots":1,"pre_compact_size":123}},"recoveries":[{"id":"rc-1","kind":"compact","state":"active","source_session":"s","key":"snapshot:1","created":"2026-01-02T03:04:05Z","created_by_pid":7}]}`,
	`{"VERSION":1,"ſessions":{"a":null},"recoveries":[null,{"\u212aind":"x"}],"recoveries":[{}]}`,
	`{"version":2}`, `null`, `[]`, `{"project":"\ud800\xff<&>"}`, `{"sessions":{"x":{"last_event":"bad"}}}`,
}

// FuzzHookStateDecode: ReadState of a hook-state.json gives exactly what
// decoding it with encoding/json (and ReadState's checks) gives, and
// ErrStateCorrupt exactly when encoding/json refuses it.
func FuzzHookStateDecode(f *testing.F) {
	for _, s := range hookStateSeeds {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(root, hook.StateName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, gerr := hooknote.ReadState(root)
		want := &hook.State{Version: hook.StateVersion, Sessions: map[string]*hook.SessionState{}}
		werr := json.Unmarshal(data, want)
		if werr == nil && want.Version > hook.StateVersion {
			werr = errors.New("version too new")
		}
		if werr != nil {
			if !errors.Is(gerr, hook.ErrStateCorrupt) {
				t.Fatalf("%q: ReadState error %v; encoding/json: %v", data, gerr, werr)
			}
			return
		}
		if gerr != nil {
			t.Fatalf("%q: ReadState error %v; encoding/json accepts it", data, gerr)
		}
		if want.Sessions == nil {
			want.Sessions = map[string]*hook.SessionState{}
		}
		for k, v := range want.Sessions {
			if v == nil {
				delete(want.Sessions, k)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got  %+v\n want %+v", data, got, want)
		}
	})
}

// FuzzHookInputDecode: ParseInput gives what encoding/json gives, and
// ErrBadInput exactly when encoding/json refuses the input.
func FuzzHookInputDecode(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"SessionStart","source":"compact"}`,
		`{"SESSION_ID":"s","tool_input":{"a":[1,null]},"tool_response":null,"duration_ms":12,"stop_hook_active":true}`,
		`{"duration_ms":1.5}`, `{"prompt":"\ud83d\ude00\xff"}`, `[]`, `null`, ` `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gerr := hook.ParseInput(data)
		trimmed := bytes.TrimSpace(data)
		var want hook.Input
		werr := json.Unmarshal(trimmed, &want)
		if len(trimmed) == 0 || werr != nil {
			if !errors.Is(gerr, hook.ErrBadInput) {
				t.Fatalf("%q: ParseInput error %v; encoding/json: %v", data, gerr, werr)
			}
			return
		}
		if gerr != nil {
			t.Fatalf("%q: ParseInput error %v; encoding/json accepts it", data, gerr)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q:\n got  %+v\n want %+v", data, *got, want)
		}
	})
}

// FuzzHookOutputEncode: Output.Write writes what a json.Encoder without
// HTML escaping writes.
func FuzzHookOutputEncode(f *testing.F) {
	f.Add("Ben10: restored <ctx> & more", "SessionStart", "text\n\u2028\xff\x01", uint8(3))
	f.Add("", "", "", uint8(0))
	f.Fuzz(func(t *testing.T, msg, event, ctx string, flags uint8) {
		o := &hook.Output{SystemMessage: msg, SuppressOutput: flags&1 != 0}
		if flags&2 != 0 {
			o.HookSpecificOutput = &hook.SpecificOutput{HookEventName: hook.Event(event), AdditionalContext: ctx}
		}
		if flags&4 != 0 {
			c := flags&8 != 0
			o.Continue = &c
		}
		var got bytes.Buffer
		gerr := o.Write(&got)
		if gerr != nil {
			if o.HookSpecificOutput == nil || len([]rune(ctx)) <= hook.MaxAdditionalContext {
				t.Fatalf("Write: %v", gerr)
			}
			return
		}
		if o.IsEmpty() {
			if got.Len() != 0 {
				t.Fatalf("empty output wrote %q", got.Bytes())
			}
			return
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%+v:\n got  %s\n want %s", o, got.Bytes(), want.Bytes())
		}
	})
}
