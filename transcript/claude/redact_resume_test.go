package claude_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// redactOpts are encode options redacting with the built-in rules.
func redactOpts(t *testing.T, fp string) archive.EncodeOptions {
	t.Helper()
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return archive.EncodeOptions{
		Codec: ctxfmt.CodecZstd, Now: fixedNow, RedactFingerprint: fp,
		RedactLine: func(l []byte) []byte { out, _ := r.JSONLine(l); return out },
		RedactText: func(s string) string { out, _ := r.String(s); return out },
	}
}

// saveRedacted saves the session at p with redaction, incrementally on
// top of prev when given.
func saveRedacted(t *testing.T, p string, prev []byte, fp string) ([]byte, *archive.State) {
	t.Helper()
	return saveWith(t, p, prev, redactOpts(t, fp))
}

// secretKeys are the JSON keys whose string values get a planted secret:
// message texts, tool inputs (commands, file contents, edits) and tool
// results, which update records read earlier (a tool's output, a file's
// hash).
var secretKeys = [][]byte{
	[]byte(`"text":"`), []byte(`"content":"`), []byte(`"command":"`), []byte(`"description":"`),
	[]byte(`"stdout":"`), []byte(`"originalFile":"`), []byte(`"newString":"`), []byte(`"oldString":"`),
	[]byte(`"new_string":"`), []byte(`"old_string":"`), []byte(`"prompt":"`), []byte(`"summary":"`),
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newSecret returns a distinct secret one of the built-in rules finds.
func newSecret(rng *rand.Rand, k int) string {
	rnd := func(n int, set string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[rng.IntN(len(set))]
		}
		return string(b)
	}
	switch k % 3 {
	case 0:
		return "ghp_" + rnd(36, alnum)
	case 1:
		return "AKIA" + rnd(16, alnum[:26]+alnum[52:])
	default:
		return "gho_" + rnd(36, alnum)
	}
}

// plant inserts secrets into string values of about one line in every
// `every` of data (always into the last lines, the tail of an incremental
// save, and into tool-result lines), and returns the new data and the
// secrets planted.
func plant(rng *rand.Rand, data []byte, every int) ([]byte, []string) {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	var secrets []string
	for i, l := range lines {
		tail := i >= len(lines)-6
		result := bytes.Contains(l, []byte(`"tool_use_id"`))
		if !tail && !(result && rng.IntN(3) == 0) && rng.IntN(every) != 0 {
			continue
		}
		var at []int
		for _, k := range secretKeys {
			for off := 0; ; {
				j := bytes.Index(l[off:], k)
				if j < 0 {
					break
				}
				at = append(at, off+j+len(k))
				off += j + len(k)
			}
		}
		if len(at) == 0 {
			continue
		}
		pos := at[rng.IntN(len(at))]
		s := newSecret(rng, len(secrets))
		secrets = append(secrets, s)
		nl := make([]byte, 0, len(l)+len(s)+2)
		nl = append(append(append(nl, l[:pos]...), s+" "...), l[pos:]...)
		lines[i] = nl
	}
	return bytes.Join(lines, nil), secrets
}

// noSecrets decompresses every segment of the archive and fails when a
// planted secret appears in one.
func noSecrets(t *testing.T, what string, arch []byte, secrets []string) {
	t.Helper()
	r, err := ctxfmt.NewReader(bytes.NewReader(arch), int64(len(arch)), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.NumSegments() {
		b, err := r.ReadSegment(i)
		if err != nil {
			t.Fatalf("%s: segment %d: %v", what, i, err)
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Fatalf("%s: planted secret %s in segment %d (%s)", what, s, i, r.Segments()[i].Type)
			}
		}
	}
	for _, s := range secrets {
		if bytes.Contains(arch, []byte(s)) {
			t.Fatalf("%s: planted secret %s in the archive bytes", what, s)
		}
	}
}

// checkRedactedResume saves steps[0] with redaction, then each later step
// incrementally, and checks that every incremental archive copies raw
// segments (for steps after the first, when wantResumed; the
// latter for a large session), holds the same content as a full redacted
// save and holds none of the secrets.
func checkRedactedResume(t *testing.T, name string, steps [][]archive.RawFile, secrets []string, wantResumed bool) {
	t.Helper()
	for len(steps) > 0 {
		if _, err := claude.ImportFiles(steps[0], archive.ImportOptions{}); err == nil {
			break
		}
		steps = steps[1:]
	}
	dir := t.TempDir()
	var prev []byte
	for k, files := range steps {
		p := writeSession(t, dir, files)
		o := redactOpts(t, "fp-1")
		inc, _, stats := saveStats(t, p, prev, o)
		// The four full sessions (named by their UUID) are large enough
		// for their first raw chunk to be copied.
		if k > 0 && wantResumed && strings.Count(name, "-") == 4 && stats.CopiedSegments == 0 {
			t.Fatalf("%s step %d: nothing copied", name, k)
		}
		full, _ := saveRedacted(t, p, nil, "fp-1")
		what := fmt.Sprintf("%s step %d", name, k)
		sameArchive(t, what, inc, full)
		noSecrets(t, what+" incremental", inc, secrets)
		noSecrets(t, what+" full", full, secrets)
		prev = inc
	}
}

func TestRedactedResumeFixtures(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, name := range []string{"11111111-2222-4333-8444-555555555555.jsonl", "hostile.jsonl", "v1.jsonl"} {
		files, err := claude.ReadFiles(filepath.Join("testdata", name), archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		planted, all := plantFiles(rng, files)
		if len(all) == 0 {
			t.Fatalf("%s: no secret planted", name)
		}
		main := planted[0].Data
		n := bytes.Count(main, []byte{'\n'})
		for range 6 {
			a := rng.IntN(n + 1)
			b := a + rng.IntN(n-a+1)
			var steps [][]archive.RawFile
			for _, cut := range []int{a, b, n + 1} {
				steps = append(steps, append([]archive.RawFile{{Name: planted[0].Name, Data: cutAfterLines(main, cut)}}, planted[1:]...))
			}
			checkRedactedResume(t, name, steps, all, false)
		}
		// Random byte cuts too (a line being written when saved).
		a := rng.IntN(len(main) + 1)
		steps := [][]archive.RawFile{
			append([]archive.RawFile{{Name: planted[0].Name, Data: main[:a]}}, planted[1:]...),
			planted,
		}
		checkRedactedResume(t, name+" (byte cut)", steps, all, false)
	}
}

func TestRedactedResumeCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range claudeCorpus(t) {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for i := range files {
			d, s := plant(rng, files[i].Data, 200)
			files[i].Data = d
			all = append(all, s...)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		with := func(data []byte) []archive.RawFile {
			return append([]archive.RawFile{{Name: files[0].Name, Data: data}}, files[1:]...)
		}
		steps := [][]archive.RawFile{
			with(cutAfterLines(main, n/2)),
			with(cutAfterLines(main, max(n-20, n/2+1))),
			with(main),
		}
		checkRedactedResume(t, filepath.Base(p), steps, all, true)
	}
}

// A previous archive redacted with another configuration, or without a
// fingerprint, or not redacted, is never copied from: its raw
// segments could hold what the new configuration hides.
func TestRedactedResumeNeedsSameFingerprint(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	files, err := claude.ReadFiles(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main, secrets := plant(rng, files[0].Data, 2)
	n := bytes.Count(main, []byte{'\n'})
	dir := t.TempDir()
	p := writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: cutAfterLines(main, n/2)}}, files[1:]...))
	redacted, _ := saveRedacted(t, p, nil, "fp-1")
	plain, _ := save(t, p, nil)
	p = writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: main}}, files[1:]...))
	for _, c := range []struct {
		name string
		prev []byte
		fp   string
	}{
		{"other fingerprint", redacted, "fp-2"},
		{"no fingerprint", redacted, ""},
		{"unredacted previous", plain, "fp-1"},
	} {
		inc, _ := saveRedacted(t, p, c.prev, c.fp)
		a, err := archive.Open(bytes.NewReader(inc), int64(len(inc)), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		full, _ := saveRedacted(t, p, nil, c.fp)
		sameArchive(t, c.name, inc, full)
		noSecrets(t, c.name, inc, secrets)
		_ = a
	}
	// And the other way: a redacted previous archive under an unredacted
	// save.
	inc, _ := save(t, p, redacted)
	full, _ := save(t, p, nil)
	sameArchive(t, "redacted previous, unredacted save", inc, full)
}

// plantFiles plants secrets (plant, 3 per file) in copies of files and
// returns the copies and every secret planted.
func plantFiles(rng *rand.Rand, files []archive.RawFile) ([]archive.RawFile, []string) {
	var all []string
	planted := make([]archive.RawFile, len(files))
	for i, f := range files {
		d, s := plant(rng, f.Data, 3)
		planted[i] = archive.RawFile{Name: f.Name, Data: d}
		all = append(all, s...)
	}
	return planted, all
}

// A redacted incremental save whose reused chunks had no line changed by
// redaction takes their stored bytes from the file itself (nothing
// decompressed): each step must equal a full redacted save, copy the
// previous archive's chunks, and hold none of the secrets, with the new
// tail clean and with secrets in it (and once with a secret in the reused
// part, which is then read back from the previous archive).
func TestRedactedResumeCleanPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	files, err := claude.ReadFiles(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	n := bytes.Count(main, []byte{'\n'})
	a, b := n/3, 2*n/3
	off := len(cutAfterLines(main, b))
	tail, secrets := plant(rng, main[off:], 1<<30)
	if len(secrets) == 0 {
		t.Fatal("no secret planted in the tail")
	}
	planted := append(append([]byte(nil), main[:off]...), tail...)
	with := func(data []byte) []archive.RawFile {
		return append([]archive.RawFile{{Name: files[0].Name, Data: data}}, files[1:]...)
	}
	steps := [][]archive.RawFile{
		with(cutAfterLines(main, a)), // clean
		with(cutAfterLines(main, b)), // clean prefix, clean tail
		with(planted),                // clean prefix, secrets in the tail
		with(append(planted, main[len(cutAfterLines(main, 1)):]...)), // secrets in the reused part
	}
	dir := t.TempDir()
	var prev []byte
	for k, fs := range steps {
		p := writeSession(t, dir, fs)
		o := redactOpts(t, "fp-1")
		o.ChunkSize = 1024 // several chunks, most of them reused
		inc, _, stats := saveStats(t, p, prev, o)
		full, _ := saveWith(t, p, nil, o)
		what := fmt.Sprintf("clean prefix, step %d", k)
		if k > 0 && stats.CopiedSegments == 0 {
			t.Fatalf("%s: no segment copied", what)
		}
		sameArchive(t, what, inc, full)
		noSecrets(t, what+" incremental", inc, secrets)
		prev = inc
	}
}

// The archive's bytes do not depend on how many goroutines redact, hash
// and compress: a redacted save of files with planted secrets (several
// chunks, subagent files, packed at LevelBest) is the same with 1, 2 and 4,
// full and incremental.
func TestSaveSameBytesWhateverConcurrency(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	files, err := claude.ReadFiles(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	planted, secrets := plantFiles(rng, files)
	// A main file of several redaction blocks: the fixture repeated.
	main := bytes.Repeat(planted[0].Data, 1+(300<<10)/len(planted[0].Data))
	steps := [][]archive.RawFile{
		append([]archive.RawFile{{Name: planted[0].Name, Data: cutAfterLines(main, bytes.Count(main, []byte{'\n'})/2)}}, planted[1:]...),
		append([]archive.RawFile{{Name: planted[0].Name, Data: main}}, planted[1:]...),
	}
	for _, lvl := range []ctxfmt.Level{ctxfmt.LevelDefault, ctxfmt.LevelBest} {
		var prev []byte
		for k, fs := range steps {
			p := writeSession(t, t.TempDir(), fs)
			var want []byte
			for _, conc := range []int{1, 2, 4} {
				o := redactOpts(t, "fp-1")
				o.Level, o.Concurrency, o.ChunkSize = lvl, conc, 64<<10
				got, _, _ := saveStats(t, p, prev, o)
				noSecrets(t, fmt.Sprintf("level %v step %d, %d goroutines", lvl, k, conc), got, secrets)
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("level %v step %d: %d goroutines wrote other bytes than 1", lvl, k, conc)
				}
			}
			prev = want
		}
	}
}
