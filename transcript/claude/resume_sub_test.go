package claude_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// subLines generates n lines of a subagent file for agent: prompts, tool
// uses (Read, Write, Edit, Bash, Grep) with their results (revealing file
// contents), usage (some responses split over two lines sharing an id),
// custom titles, unknown line types, blank lines, CRLF and lines that are
// not JSON. Tool and message ids are the agent's own.
func subLines(rng *rand.Rand, agent string, n int) []string {
	const cwd = "/home/dev/proj"
	// Some of the main fixture's paths too (pkg/calc/add.go, docs/calc.md).
	paths := []string{cwd + "/main.go", cwd + "/util.go", cwd + "/docs/a.md", "/etc/hosts", cwd + "/sub-" + agent + ".go",
		cwd + "/pkg/calc/add.go", cwd + "/docs/calc.md"}
	hdr := func(typ, uuid string, k int) string {
		return fmt.Sprintf(`"parentUuid":null,"isSidechain":true,"cwd":%q,"sessionId":"11111111-2222-4333-8444-555555555555","type":%q,"uuid":%q,"agentId":%q,"timestamp":"2026-01-01T11:%02d:%02d.000Z"`,
			cwd, typ, uuid, agent, (k/60)%60, k%60)
	}
	var out []string
	k := 0
	for len(out) < n {
		k++
		id := fmt.Sprintf("toolu_%s_%d", agent, k)
		mid := fmt.Sprintf("msg_%s_%d", agent, k)
		p := paths[rng.IntN(len(paths))]
		usage := fmt.Sprintf(`"usage":{"input_tokens":%d,"output_tokens":%d,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}`, 10+k, k)
		use := func(name, input string) string {
			return "{" + hdr("assistant", "a"+id, k) + fmt.Sprintf(`,"requestId":"req_%s_%d","message":{"id":%q,"role":"assistant","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}],%s}}`,
				agent, k, mid, id, name, input, usage)
		}
		result := func(text string, isErr bool, tur string) string {
			return "{" + hdr("user", "r"+id, k) + fmt.Sprintf(`,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q,"is_error":%v}]},"toolUseResult":%s}`,
				id, text, isErr, tur)
		}
		content := fmt.Sprintf("package x // %d\n", rng.IntN(5))
		switch rng.IntN(12) {
		case 0:
			out = append(out, "{"+hdr("user", "p"+id, k)+fmt.Sprintf(`,"message":{"role":"user","content":"look at %s please"}}`, p))
		case 1:
			out = append(out, use("Read", fmt.Sprintf(`{"file_path":%q}`, p)))
			if rng.IntN(4) > 0 {
				out = append(out, result(content, false, fmt.Sprintf(`{"type":"text","file":{"filePath":%q,"content":%q,"numLines":1,"startLine":1,"totalLines":1}}`, p, content)))
			}
		case 2:
			out = append(out, use("Write", fmt.Sprintf(`{"file_path":%q,"content":%q}`, p, content)))
			out = append(out, result("written", false, `{"type":"create"}`))
		case 3:
			out = append(out, use("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"x","new_string":"y"}`, p)))
			if rng.IntN(3) > 0 {
				out = append(out, result("edited", false, fmt.Sprintf(`{"filePath":%q,"oldString":"x","newString":"y","originalFile":%q,"replaceAll":false}`, p, content+"x")))
			}
		case 4:
			out = append(out, use("Bash", fmt.Sprintf(`{"command":"go test ./%d","description":"run"}`, rng.IntN(3))))
			out = append(out, result("FAIL exit 1", rng.IntN(2) == 0, `{"stdout":"","stderr":"","durationMs":12}`))
		case 5:
			// One response written as two lines with the same usage.
			txt := "{" + hdr("assistant", "t"+id, k) + fmt.Sprintf(`,"requestId":"req_%s_%d","message":{"id":%q,"role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"done %d"}],%s}}`, agent, k, mid, k, usage)
			out = append(out, txt, strings.Replace(txt, `"uuid":"t`, `"uuid":"t2`, 1))
		case 6:
			out = append(out, fmt.Sprintf(`{"type":"custom-title","customTitle":"title %s %d","sessionId":"11111111-2222-4333-8444-555555555555"}`, agent, k))
		case 7:
			out = append(out, fmt.Sprintf(`{"type":"mystery-%d","x":1}`, rng.IntN(2)))
		case 8:
			out = append(out, "")
		case 9:
			out = append(out, `{"type":"user", this is not json`)
		case 10:
			out = append(out, use("Grep", `{"pattern":"func","path":"."}`)+"\r")
		case 11:
			out = append(out, "{"+hdr("system", "s"+id, k)+`,"subtype":"local_command","content":"<local-command-stdout>ok</local-command-stdout>"}`)
		}
	}
	return out[:n]
}

func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func subName(agent string) string {
	return strings.TrimSuffix(withSubagents, ".jsonl") + "/subagents/agent-" + agent + ".jsonl"
}

// subSession is the fixture's main file cut to mainLines lines with the
// given subagent files (name → content), sorted by name as ReadFiles
// sorts them.
func subSession(t *testing.T, mainLines int, subs map[string][]byte) []archive.RawFile {
	t.Helper()
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{NoSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	out := []archive.RawFile{{Name: files[0].Name, Data: cutAfterLines(files[0].Data, mainLines)}}
	var names []string
	for n := range subs {
		names = append(names, n)
	}
	// ReadFiles's order.
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	for _, n := range names {
		out = append(out, archive.RawFile{Name: n, Data: subs[n]})
	}
	return out
}

// runSubSteps saves steps[0] in full, then each later step incrementally
// on the previous archive (each step in a fresh folder, so removed files
// are gone), compares each with a full save, with redaction off and on,
// and returns the number of subagent files resumed from a recorded
// contribution per step (without redaction).
func runSubSteps(t *testing.T, name string, steps [][]archive.RawFile) []int64 {
	t.Helper()
	var replays []int64
	for _, redacted := range []bool{false, true} {
		var prev []byte
		for k, files := range steps {
			p := writeSession(t, t.TempDir(), files)
			before := claude.SubReplays()
			var inc, full []byte
			var st *archive.State
			if redacted {
				inc, st = saveRedacted(t, p, prev, "fp-1")
				full, _ = saveRedacted(t, p, nil, "fp-1")
			} else {
				inc, st = save(t, p, prev)
				full, _ = save(t, p, nil)
			}
			if k > 0 && !st.Source.Partial {
				t.Fatalf("%s step %d (redacted %v): not resumed", name, k, redacted)
			}
			n := claude.SubReplays() - before
			sameArchive(t, fmt.Sprintf("%s step %d (redacted %v)", name, k, redacted), inc, full)
			if !redacted {
				replays = append(replays, n)
			} else if k > 0 && n != replays[k] {
				t.Fatalf("%s step %d: %d subagent files resumed when redacted, %d when not", name, k, n, replays[k])
			}
			prev = inc
		}
	}
	return replays
}

// Subagent files unchanged, grown, added, removed and caught mid-line:
// every incremental save equals a full one, and the unchanged and grown
// files are resumed from their own resume points.
func TestSubagentResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := subLines(rng, "aaa", 60)
	b := subLines(rng, "bbb", 40)
	c := subLines(rng, "ccc", 30)
	mid := func(lines []string, n int) []byte {
		d := joinLines(lines[:n+1])
		return d[:len(d)-len(lines[n])/2-1]
	}
	for _, tc := range []struct {
		name  string
		steps [][]archive.RawFile
		want  []int64 // files resumed per step
	}{
		{"unchanged", [][]archive.RawFile{
			subSession(t, 10, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b)}),
			subSession(t, 16, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b)}),
			subSession(t, 23, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b)}),
		}, []int64{0, 2, 2}},
		{"grown", [][]archive.RawFile{
			subSession(t, 10, map[string][]byte{subName("aaa"): joinLines(a[:20]), subName("bbb"): joinLines(b[:5])}),
			subSession(t, 16, map[string][]byte{subName("aaa"): joinLines(a[:41]), subName("bbb"): joinLines(b[:5])}),
			subSession(t, 23, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b)}),
		}, []int64{0, 2, 2}},
		{"added", [][]archive.RawFile{
			subSession(t, 10, map[string][]byte{subName("bbb"): joinLines(b)}),
			// A file sorted before the existing one shifts its index.
			subSession(t, 16, map[string][]byte{subName("aaa"): joinLines(a[:10]), subName("bbb"): joinLines(b)}),
			subSession(t, 23, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b), subName("ccc"): joinLines(c)}),
		}, []int64{0, 1, 2}},
		{"removed", [][]archive.RawFile{
			subSession(t, 10, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b), subName("ccc"): joinLines(c)}),
			subSession(t, 16, map[string][]byte{subName("bbb"): joinLines(b), subName("ccc"): joinLines(c)}),
			subSession(t, 23, map[string][]byte{subName("ccc"): joinLines(c)}),
		}, []int64{0, 2, 1}},
		{"truncated mid-line", [][]archive.RawFile{
			subSession(t, 10, map[string][]byte{subName("aaa"): mid(a, 30), subName("bbb"): mid(b, 1)}),
			subSession(t, 16, map[string][]byte{subName("aaa"): mid(a, 45), subName("bbb"): mid(b, 20)}),
			subSession(t, 23, map[string][]byte{subName("aaa"): joinLines(a), subName("bbb"): joinLines(b)}),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runSubSteps(t, tc.name, tc.steps)
			if tc.want != nil && fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("subagent files resumed per step: %v, want %v", got, tc.want)
			}
		})
	}
}

// Random subagent files and random cuts (mid-line too) of the main file
// and the subagent files: each incremental save equals a full one.
func TestSubagentResumeRandomCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{NoSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	resumed := int64(0)
	for r := range 6 {
		subs := map[string][]byte{}
		for _, ag := range []string{"x1", "x2", "x3"}[:1+r%3] {
			subs[subName(ag)] = joinLines(subLines(rng, ag, 20+rng.IntN(40)))
		}
		cut := func(d []byte, lo int) int { return lo + rng.IntN(len(d)-lo+1) }
		var steps [][]archive.RawFile
		mc, sc := 0, map[string]int{}
		for range 3 {
			mc = cut(main, mc)
			m := map[string][]byte{}
			for n, d := range subs {
				sc[n] = cut(d, sc[n])
				m[n] = d[:sc[n]]
			}
			s := subSession(t, 0, m)
			s[0].Data = main[:mc]
			steps = append(steps, s)
		}
		full := subSession(t, 0, subs)
		full[0].Data = main
		steps = append(steps, full)
		checkResume(t, fmt.Sprintf("random %d", r), steps, false)
		resumed = claude.SubReplays()
	}
	if resumed == 0 {
		t.Fatal("no subagent file resumed from its own resume point")
	}
}

// A subagent file whose lines depend on the lines read before it (a
// result for a main-file tool, a legacy summary line) is read again every
// time; one whose tool ids the main file's new lines start using is read
// again too. Both give what a full import gives.
func TestSubagentResumeDependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	a := subLines(rng, "aaa", 30)
	b := subLines(rng, "bbb", 30)
	// toolu_1 is a main-file tool of the fixture.
	dep := append(append([]string(nil), b...),
		`{"type":"user","isSidechain":true,"uuid":"dep1","timestamp":"2026-01-01T12:00:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"late","is_error":true}]}}`)
	sum := append(append([]string(nil), a...), `{"type":"summary","summary":"Earlier work","leafUuid":"x"}`)
	got := runSubSteps(t, "dependent", [][]archive.RawFile{
		subSession(t, 12, map[string][]byte{subName("aaa"): joinLines(sum), subName("bbb"): joinLines(dep)}),
		subSession(t, 23, map[string][]byte{subName("aaa"): joinLines(sum), subName("bbb"): joinLines(dep)}),
	})
	if got[1] != 0 {
		t.Fatalf("%d dependent subagent files resumed", got[1])
	}

	// The main file's new lines use a tool id, or a usage key, of the
	// subagent file.
	files := subSession(t, 12, map[string][]byte{subName("aaa"): joinLines(a)})
	field := func(key string) string {
		for _, l := range a {
			if i := strings.Index(l, key); i >= 0 && strings.Contains(l, `"tool_use"`) {
				v := l[i+len(key):]
				return v[:strings.IndexByte(v, '"')]
			}
		}
		t.Fatal("no tool use in the generated subagent file")
		return ""
	}
	id, mid, req := field(`"tool_use","id":"`), field(`"message":{"id":"`), field(`"requestId":"`)
	for _, c := range []struct{ name, line string }{
		{"tool id", `{"type":"assistant","uuid":"m-late","sessionId":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T12:00:01.000Z","message":{"id":"msg-late","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{"file_path":"/home/dev/proj/late.go"}}]}}`},
		{"usage key", `{"type":"assistant","uuid":"m-late","sessionId":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T12:00:01.000Z","requestId":"` + req + `","message":{"id":"` + mid + `","role":"assistant","content":[{"type":"text","text":"same response"}],"usage":{"input_tokens":7,"output_tokens":9}}}`},
	} {
		grown := subSession(t, 12, map[string][]byte{subName("aaa"): joinLines(a)})
		grown[0].Data = append(append([]byte(nil), grown[0].Data...), []byte(c.line+"\n")...)
		got = runSubSteps(t, "main reuses a subagent "+c.name, [][]archive.RawFile{files, grown})
		if got[1] != 0 {
			t.Fatalf("resumed a subagent file whose %s the main file now uses", c.name)
		}
	}

}

// sideLine is one subagent line of agent: typ with the fields given (JSON
// object members).
func sideLine(agent, typ, uuid, fields string) string {
	return `{"parentUuid":null,"isSidechain":true,"cwd":"/home/dev/proj","sessionId":"11111111-2222-4333-8444-555555555555","agentId":"` + agent +
		`","type":"` + typ + `","uuid":"` + uuid + `","timestamp":"2026-01-01T11:30:00.000Z",` + fields + `}`
}

func sideUse(agent, id, msgID, name, input string) string {
	return sideLine(agent, "assistant", "u-"+id, `"requestId":"req-`+msgID+`","message":{"id":"`+msgID+`","role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":`+input+`}],"usage":{"input_tokens":3,"output_tokens":4}}`)
}

func sideReadResult(agent, id, path, content string) string {
	return sideLine(agent, "user", "r-"+id, `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}]},"toolUseResult":{"type":"text","file":{"filePath":"`+path+`","content":"`+content+`","numLines":1,"startLine":1,"totalLines":1}}`)
}

// What subagent lines do to the state the main file's lines left: hashes
// they drop or set on the main file's paths, a compaction waiting for its
// summary, and lines that answer or repeat another subagent file's.
func TestSubagentResumeInteractions(t *testing.T) {
	const p = "/home/dev/proj/"
	rng := rand.New(rand.NewPCG(15, 16))
	// Each file starts with its own generated lines and a line older than
	// any of the main file's.
	with := func(agent string, lines ...string) []byte {
		filler := append(subLines(rng, agent, 10), `{"type":"progress","timestamp":"2025-12-31T00:00:00.000Z"}`)
		return joinLines(append(filler, lines...))
	}

	// Hash operations on paths the main file knows the content of.
	hashes := with("hh",
		sideUse("hh", "toolu_hh_1", "msg_hh_1", "Edit", `{"file_path":"`+p+`pkg/calc/add.go","old_string":"a","new_string":"b"}`),
		sideUse("hh", "toolu_hh_2", "msg_hh_2", "Write", `{"file_path":"`+p+`docs/calc.md","content":"new text"}`),
		sideUse("hh", "toolu_hh_3", "msg_hh_3", "Read", `{"file_path":"`+p+`docs/new.md"}`),
		sideReadResult("hh", "toolu_hh_3", p+"docs/new.md", "fresh"),
	)
	got := runSubSteps(t, "hash operations", [][]archive.RawFile{
		subSession(t, 4, map[string][]byte{subName("hh"): hashes}),
		subSession(t, 12, map[string][]byte{subName("hh"): hashes}),
		subSession(t, 23, map[string][]byte{subName("hh"): hashes}),
	})
	if fmt.Sprint(got) != "[0 1 1]" {
		t.Fatalf("hash operations: resumed per step %v, want [0 1 1]", got)
	}

	// A compaction of the main file waits for its summary, which a
	// subagent line holds: the file is read again.
	summary := with("cs", sideLine("cs", "user", "cs-1", `"isCompactSummary":true,"message":{"role":"user","content":"This session is being continued. Summary: X"}`))
	files := subSession(t, 12, map[string][]byte{subName("cs"): summary})
	boundary := append(append([]byte(nil), files[0].Data...),
		[]byte(`{"type":"system","subtype":"compact_boundary","uuid":"cb-late","sessionId":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T12:00:00.000Z","compactMetadata":{"trigger":"auto","preTokens":1234}}`+"\n")...)
	grown := subSession(t, 12, map[string][]byte{subName("cs"): summary})
	grown[0].Data = boundary
	got = runSubSteps(t, "pending compaction", [][]archive.RawFile{files, grown})
	if got[1] != 0 {
		t.Fatal("resumed a subagent file holding the summary a compaction waits for")
	}

	// bbb answers aaa's Read again (revealing other content) and ccc
	// repeats one of aaa's responses: neither is recorded, so once aaa is
	// gone they are read in full (the answer then binds to nothing and the
	// response counts).
	aaa := with("aaa",
		sideUse("aaa", "toolu_aaa_x", "msg_aaa_x", "Read", `{"file_path":"`+p+`docs/x.md"}`),
		sideReadResult("aaa", "toolu_aaa_x", p+"docs/x.md", "first"),
	)
	bbb := with("bbb",
		sideUse("bbb", "toolu_bbb_x", "msg_bbb_x", "Read", `{"file_path":"`+p+`docs/x.md"}`),
		sideReadResult("bbb", "toolu_aaa_x", p+"docs/x.md", "other"),
	)
	ccc := with("ccc", sideUse("ccc", "toolu_ccc_x", "msg_aaa_x", "Grep", `{"pattern":"p"}`))
	got = runSubSteps(t, "depends on another subagent file", [][]archive.RawFile{
		subSession(t, 12, map[string][]byte{subName("aaa"): aaa, subName("bbb"): bbb, subName("ccc"): ccc}),
		subSession(t, 16, map[string][]byte{subName("aaa"): aaa, subName("bbb"): bbb, subName("ccc"): ccc}),
		subSession(t, 23, map[string][]byte{subName("bbb"): bbb, subName("ccc"): ccc}),
	})
	if fmt.Sprint(got) != "[0 1 0]" {
		t.Fatalf("subagent files resumed per step %v, want [0 1 0]", got)
	}
}

// A subagent file changed in its recorded prefix (same length) is read
// again, never resumed over.
func TestSubagentResumeSameLengthChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := joinLines(subLines(rng, "aaa", 30))
	changed := bytes.Replace(a, []byte("toolu_aaa_"), []byte("toolu_aab_"), 1)
	if bytes.Equal(a, changed) {
		t.Fatal("nothing changed")
	}
	got := runSubSteps(t, "same-length change", [][]archive.RawFile{
		subSession(t, 12, map[string][]byte{subName("aaa"): a}),
		subSession(t, 23, map[string][]byte{subName("aaa"): changed}),
	})
	if got[1] != 0 {
		t.Fatal("resumed over a changed subagent file")
	}
}

// On the corpus, sessions with subagent files resume them: unchanged ones
// from their recorded contribution.
func TestSubagentResumeCorpus(t *testing.T) {
	found := false
	for _, p := range claudeCorpus(t) {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 2 {
			continue
		}
		found = true
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		steps := [][]archive.RawFile{
			withMain(files, cutAfterLines(main, n/2), true),
			withMain(files, cutAfterLines(main, n-20), false),
			withMain(files, main, false),
		}
		got := runSubSteps(t, filepath.Base(p), steps)
		if got[1] == 0 || got[2] != int64(len(files)-1) {
			t.Fatalf("%s: subagent files resumed per step %v, want some then all %d", filepath.Base(p), got, len(files)-1)
		}
	}
	if !found {
		t.Skip("no corpus session with subagent files")
	}
}
