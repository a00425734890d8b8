package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// secretSession is a Claude Code session of n exchanges, about 1 KiB
// each, whose every 7th user message carries a fake GitHub token and every
// 11th a fake AWS access key id (the built-in rules catch both).
func secretSession(session string, n int) []byte {
	g := rand.New(rand.NewPCG(14, 0))
	str := func(alphabet string, k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alphabet[g.IntN(len(alphabet))]
		}
		return string(b)
	}
	var b bytes.Buffer
	filler := strings.Repeat("the build log says nothing new here; ", 20)
	parent := "null"
	for i := range n {
		text := fmt.Sprintf("step %d: %s", i, filler)
		if i%7 == 0 {
			text += " token gh" + "p_" + str("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
		}
		if i%11 == 0 {
			text += " key AK" + "IA" + str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/p","sessionId":%q,"version":"2.1.39","type":"user","uuid":"u%d","timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":%q}}`+"\n",
			parent, session, i, text)
		fmt.Fprintf(&b, `{"parentUuid":"u%d","isSidechain":false,"userType":"external","cwd":"/p","sessionId":%q,"version":"2.1.39","type":"assistant","uuid":"a%d","timestamp":"2026-01-01T10:00:01.000Z","message":{"model":"claude-opus-4-6","id":"m%d","type":"message","role":"assistant","content":[{"type":"text","text":"done %d"}],"usage":{"input_tokens":10,"output_tokens":5}}}`+"\n",
			i, session, i, i, i)
		parent = fmt.Sprintf(`"a%d"`, i)
	}
	return b.Bytes()
}

// TestRedactionTotalsAfterIncrementalSaves: after two `context save`s of
// a growing session, the second built on the first (its first 4 MiB raw
// segment, with the secrets in it, copied, not redacted again), the save
// itself, `context status --json` and `context inspect` report the
// archive's total per rule: what a full save of the same transcript
// reports. They reported only the secrets of the lines the second save
// added.
func TestRedactionTotalsAfterIncrementalSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three saves of a 5.6 MB session; make test-long runs it (snapshot's TestRedactionTotalsIncremental covers the totals in make test)")
	}
	const session = "33333333-4444-4555-8666-777777777777"
	w := newHookWorld(t, session)
	all := secretSession(session, 5600) // about 5.6 MB: the first save fills a 4 MiB segment
	cut := bytes.LastIndexByte(all[:len(all)*4/5], '\n') + 1
	type saveJSON struct {
		Redactions    map[string]int `json:"redactions"`
		NewRedactions map[string]int `json:"redactions_new"`
		Copied        int            `json:"copied_segments"`
	}
	save := func(args ...string) saveJSON {
		t.Helper()
		r := runBen10(t, nil, w.env, append([]string{"context", "save", "--transcript", w.transcript, "--dir", w.project, "--json", "--level", "fastest"}, args...)...)
		if r.code != 0 {
			t.Fatalf("context save %v: %d %s", args, r.code, r.stderr)
		}
		var s saveJSON
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
			t.Fatalf("context save --json: %v\n%s", err, r.stdout)
		}
		return s
	}
	w.writeTranscript(all[:cut])
	first := save()
	w.writeTranscript(all)
	second := save()
	full := save("--full", "--out", filepath.Join(t.TempDir(), "full.ctx"))
	want := full.Redactions
	if len(want) != 2 || want["github-pat"] != 800 || want["aws-access-key-id"] != 510 {
		t.Fatalf("a full save reports %v; the session holds 800 github-pat and 510 aws-access-key-id", want)
	}
	if second.Copied == 0 || sumCounts(second.NewRedactions) >= sumCounts(want) {
		t.Fatalf("the second save did not build on the first: %d segments copied, %v redacted by it", second.Copied, second.NewRedactions)
	}
	if !maps.Equal(second.Redactions, want) {
		t.Errorf("the incremental save reports %v (%v in this save); a full save %v", second.Redactions, second.NewRedactions, want)
	}
	if sumCounts(first.Redactions) >= sumCounts(want) {
		t.Errorf("the first save reports %v, not fewer than the whole session", first.Redactions)
	}

	r := runBen10(t, nil, w.env, "context", "status", "--dir", w.project, "--json")
	var info struct {
		Current struct {
			Extra struct {
				Redactions map[string]int `json:"redactions"`
			} `json:"extra"`
		} `json:"current"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if !maps.Equal(info.Current.Extra.Redactions, want) {
		t.Errorf("status --json: redactions %v, want %v", info.Current.Extra.Redactions, want)
	}

	cur := filepath.Join(w.contextDir(), "current.ctx")
	r = runBen10(t, nil, w.env, "context", "inspect", cur, "--json")
	var ins struct {
		Redaction struct {
			Rules map[string]int `json:"rules"`
		} `json:"redaction"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ins); err != nil {
		t.Fatalf("inspect --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	if !maps.Equal(ins.Redaction.Rules, want) {
		t.Errorf("inspect --json: rules %v, want %v", ins.Redaction.Rules, want)
	}
	r = runBen10(t, nil, w.env, "context", "inspect", cur)
	if line := fmt.Sprintf("true (%d secrets;", sumCounts(want)); !strings.Contains(r.stdout, line) {
		t.Errorf("inspect does not say %q:\n%s%s", line, r.stdout, r.stderr)
	}
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
