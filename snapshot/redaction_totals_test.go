package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/store"
)

const plantedSession = "22222222-3333-4444-8555-666666666666"

// plantedTranscript is a Claude Code session of n exchanges whose user
// messages and tool results carry fake secrets the built-in rules catch:
// one, two or none per line, of several rules.
func plantedTranscript(n int) []byte {
	g := rand.New(rand.NewPCG(14, 10))
	str := func(alphabet string, k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alphabet[g.IntN(len(alphabet))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	secrets := []func() string{
		func() string { return "gh" + "p_" + str(alnum, 36) },
		func() string { return "AK" + "IA" + str(upperNum, 16) },
		func() string { return "sk" + "_live_" + str(alnum, 99) },
		func() string {
			return "xo" + "xb-" + str("0123456789", 12) + "-" + str("0123456789", 13) + "-" + str(alnum, 24)
		},
	}
	var b bytes.Buffer
	parent := "null"
	line := func(typ, uuid, msg string) {
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/proj","sessionId":%q,"version":"2.1.39","gitBranch":"main","type":%q,"uuid":%q,"timestamp":"2026-01-01T10:%02d:%02d.000Z","message":%s}`+"\n",
			parent, plantedSession, typ, uuid, (b.Len()/60)%60, b.Len()%60, msg)
		parent = fmt.Sprintf("%q", uuid)
	}
	for i := range n {
		text := fmt.Sprintf("step %d: please look at the build", i)
		switch i % 4 {
		case 1:
			text += " with API_CREDENTIAL=" + secrets[i%len(secrets)]()
		case 2:
			text += " export TOKEN=" + secrets[(i/2)%len(secrets)]() + " and X-Auth: " + secrets[(i/3)%len(secrets)]()
		}
		line("user", fmt.Sprintf("u%d", i), fmt.Sprintf(`{"role":"user","content":%q}`, text))
		reply := fmt.Sprintf("Done with step %d.", i)
		if i%5 == 3 {
			reply += " I used curl -H 'X-Auth: " + secrets[i%len(secrets)]() + "' to check."
		}
		line("assistant", fmt.Sprintf("a%d", i), fmt.Sprintf(`{"model":"claude-opus-4-6","id":"m%d","type":"message","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}}`, i, reply))
	}
	return b.Bytes()
}

// plantSecrets writes a fake GitHub token (deterministic) at the start of
// the first JSON string "content" of every 40th line that has one.
func plantSecrets(data []byte) []byte {
	g := rand.New(rand.NewPCG(14, 14))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	key := []byte(`"content":"`)
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		j := bytes.Index(l, key)
		if i%40 != 0 || j < 0 {
			continue
		}
		tok := make([]byte, 36)
		for k := range tok {
			tok[k] = alnum[g.IntN(len(alnum))]
		}
		j += len(key)
		lines[i] = slices.Concat(l[:j], []byte("token ghp_"), tok, []byte(" "), l[j:])
	}
	return bytes.Join(lines, nil)
}

// growthPoints cuts data after the last complete line before each of the
// fractions 1/4, 1/2, 3/4 of its size, and at its end.
func growthPoints(data []byte) []int {
	var pts []int
	for _, f := range []int{1, 2, 3} {
		cut := bytes.LastIndexByte(data[:len(data)*f/4], '\n') + 1
		if cut > 0 && (len(pts) == 0 || cut > pts[len(pts)-1]) {
			pts = append(pts, cut)
		}
	}
	return append(pts, len(data))
}

// TestRedactionTotalsIncremental: the redactions an archive reports are
// the archive's total, whatever it was built on. The transcript is saved
// at several growth points, each save building on the one before (the
// lines it copies were redacted then), and at each point once more in
// full in another store: the per-rule counts of SaveResult, of the
// current.ctx meta and of the archive's own report are those of the full
// save. The planted transcript is saved with the default raw segment size
// (the earlier lines are matched, their changed lines redacted again) and
// with 2 KiB segments (whole segments copied: there some incremental save
// must have redacted fewer secrets than the archive holds). The corpus
// sessions (make test-long) are saved with the default and with 64 KiB
// segments.
func TestRedactionTotalsIncremental(t *testing.T) {
	type input struct {
		name    string
		data    []byte
		session string
		chunk   int
		// mustCopy: some save must copy redacted lines it does not
		// redact again.
		mustCopy bool
	}
	planted := plantedTranscript(240)
	inputs := []input{
		{"planted", planted, plantedSession, 0, false},
		{"planted-2KiB-segments", planted, plantedSession, 2 << 10, true},
	}
	if dir, ok := testcorpus.Find("claude"); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data = plantSecrets(data) // (the corpus is sanitized: few secrets of its own)
			// (Session "": the save builds on current.ctx whatever
			// session the file names.)
			inputs = append(inputs, input{name: "corpus/" + filepath.Base(f), data: data},
				input{name: "corpus-64KiB-segments/" + filepath.Base(f), data: data, chunk: 64 << 10, mustCopy: len(data) > 1<<20})
		}
	} else {
		t.Log("no corpus (make test-long runs the corpus sessions)")
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			inc, full := newEnv(t, ""), newEnv(t, "")
			dir := t.TempDir()
			p := filepath.Join(dir, "session.jsonl")
			if in.session != "" {
				p = filepath.Join(dir, in.session+".jsonl")
			}
			fewer := false
			var fr *SaveResult
			for k, cut := range growthPoints(in.data) {
				if err := os.WriteFile(p, in.data[:cut], 0o600); err != nil {
					t.Fatal(err)
				}
				ir := saveAt(t, inc.st, p, in.session, in.chunk, false)
				fr = saveAt(t, full.st, p, in.session, in.chunk, true)
				want := fr.Redactions
				if !maps.Equal(ir.Redactions, want) {
					t.Fatalf("point %d (%d bytes): incremental save reports %v, a full save %v", k, cut, ir.Redactions, want)
				}
				if !maps.Equal(fr.NewRedactions, want) {
					t.Fatalf("point %d: a full save reports %v in total but redacted %v", k, want, fr.NewRedactions)
				}
				if got := storedRules(t, inc.st); !maps.Equal(got, want) {
					t.Fatalf("point %d: the archive records %v, want %v", k, got, want)
				}
				if got := metaRedactions(t, inc.st); !maps.Equal(got, want) {
					t.Fatalf("point %d: current.ctx.meta records %v, want %v", k, got, want)
				}
				if sum(ir.NewRedactions) < sum(want) {
					fewer = true
				}
			}
			t.Logf("%d secrets redacted at the end", sum(fr.Redactions))
			if in.mustCopy && !fewer {
				t.Fatal("no incremental save copied redacted lines: the test proves nothing")
			}
		})
	}
}

// saveAt saves transcript p into st's current.ctx (at the fastest level,
// with raw segments of chunk bytes when chunk > 0).
func saveAt(t *testing.T, st *store.Store, p, session string, chunk int, full bool) *SaveResult {
	t.Helper()
	cfg := st.Config()
	opts, red, err := EncodeOptions(cfg, ctxfmt.LevelFastest)
	if err != nil {
		t.Fatal(err)
	}
	opts.ChunkSize = chunk
	res, err := SaveCurrent(context.Background(), st, cfg, SaveRequest{Transcript: p, SessionID: session, Source: "test",
		Encode: &opts, Redactions: red, Full: full})
	if err != nil {
		t.Fatalf("SaveCurrent(%s, full %v): %v", p, full, err)
	}
	return res
}

func storedRules(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	a, err := archive.OpenFile(st.CurrentPath(), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	r := a.Redaction()
	if n, exact := r.Total(); !exact || n != sum(r.Rules) {
		t.Fatalf("the archive's report: total %d, exact %v, rules %v", n, exact, r.Rules)
	}
	return r.Rules
}

func metaRedactions(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	m, err := st.ReadMeta()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := m.Extra["redactions"].(map[string]any)
	out := make(map[string]int, len(raw))
	for k, v := range raw {
		f, _ := v.(float64)
		out[k] = int(f)
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestCreateRecordsRedactionTotals: a compaction snapshot built on an
// earlier one of the session records, in its result and in index.json,
// the secrets of its whole archive, as a snapshot taken without the
// earlier one does.
func TestCreateRecordsRedactionTotals(t *testing.T) {
	data := plantedTranscript(120)
	inc, full := newEnv(t, ""), newEnv(t, "")
	p := filepath.Join(t.TempDir(), plantedSession+".jsonl")
	for k, cut := range growthPoints(data) {
		if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(time.Duration(k) * time.Hour)
		ir := inc.create(t, CreateOptions{TranscriptPath: p, SessionID: plantedSession, Force: true, Now: now})
		fr := full.create(t, CreateOptions{TranscriptPath: p, SessionID: plantedSession, Force: true, Now: now, NoPrevious: true})
		if !maps.Equal(ir.Redactions, fr.Redactions) || sum(fr.Redactions) == 0 {
			t.Fatalf("point %d: the snapshot built on the earlier one reports %v, one without %v", k, ir.Redactions, fr.Redactions)
		}
		s, err := inc.m.Get(ir.Snapshot.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Redactions != sum(fr.Redactions) {
			t.Fatalf("point %d: index.json records %d redactions, want %d", k, s.Redactions, sum(fr.Redactions))
		}
	}
}
