package archive

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/redact"
)

// refRedactLines is the one-goroutine definition redactLines must agree
// with: every line body (without "\n" or "\r\n") replaced by fn's result.
func refRedactLines(data []byte, fn func([]byte) []byte) ([]byte, map[int]bool) {
	var out []byte
	changed := map[int]bool{}
	for ln, off := 0, 0; off < len(data); ln++ {
		end := bytes.IndexByte(data[off:], '\n')
		nl := end >= 0
		if !nl {
			end = len(data)
		} else {
			end += off
		}
		body := data[off:end]
		cr := len(body) > 0 && body[len(body)-1] == '\r'
		if cr {
			body = body[:len(body)-1]
		}
		r := fn(body)
		if !bytes.Equal(r, body) {
			changed[ln] = true
		}
		out = append(out, r...)
		if cr {
			out = append(out, '\r')
		}
		if nl {
			out = append(out, '\n')
		}
		off = end + 1
	}
	return out, changed
}

// TestRedactLinesParallel checks that redactLines (and redactFiles, on the
// same data cut into several files) gives the same bytes,
// changed lines and line starts whatever the number of workers, against
// the serial definition, on random files with CRLF, blank lines, a last
// line without a newline and replacements longer and shorter than what
// they replace.
func TestRedactLinesParallel(t *testing.T) {
	fn := func(b []byte) []byte {
		switch {
		case bytes.Contains(b, []byte("LONG")):
			return bytes.ReplaceAll(b, []byte("LONG"), []byte("[REDACTED:a-much-longer-replacement]"))
		case bytes.Contains(b, []byte("SHORTSECRETVALUE")):
			return bytes.ReplaceAll(b, []byte("SHORTSECRETVALUE"), []byte("x"))
		case bytes.Equal(b, []byte("DROP")):
			return nil
		}
		return b
	}
	words := []string{"plain", "LONG", "SHORTSECRETVALUE", "DROP", "", "\r", "text with spaces", `{"k":"v"}`}
	rng := rand.New(rand.NewSource(1))
	for iter := range 60 {
		var buf bytes.Buffer
		size := rng.Intn(600 << 10)
		if iter < 5 {
			size = rng.Intn(64)
		}
		for buf.Len() < size {
			if rng.Intn(4) == 0 {
				buf.WriteString(words[rng.Intn(len(words))])
			} else {
				n := rng.Intn(3000)
				if iter%4 == 1 && rng.Intn(8) == 0 {
					// Lines longer than a block (redactBlock): blocks
					// in which no line starts.
					n = rng.Intn(3 * redactBlock)
				}
				buf.Write(bytes.Repeat([]byte{'a' + byte(rng.Intn(26))}, n))
			}
			switch rng.Intn(5) {
			case 0:
				buf.WriteString("\r\n")
			case 1, 2:
				buf.WriteByte('\n')
			}
		}
		if iter%3 == 0 {
			buf.WriteString("LONG last line without newline")
		}
		data := buf.Bytes()
		// Several files at once (redactFiles, one pool across them): cut
		// data into 1-4 files at random bytes (not only line ends).
		var files [][]byte
		for rest := data; len(rest) > 0; {
			k := len(rest)
			if len(files) < 3 && rng.Intn(2) == 0 {
				k = rng.Intn(len(rest) + 1)
			}
			files = append(files, rest[:k])
			rest = rest[k:]
		}
		for _, workers := range []int{1, 2, 3, 8} {
			rs := redactFiles(context.Background(), files, fn, workers)
			for f, r := range rs {
				w, wc := refRedactLines(files[f], fn)
				if got := applyEdits(files[f], r.edits, false); !bytes.Equal(got, w) || r.size != len(w) || len(r.changed) != len(wc) || !slices.Equal(r.starts, lineStarts(files[f])) {
					t.Fatalf("iter %d, %d workers, file %d of %d: redactFiles differs from the serial definition", iter, workers, f, len(files))
				}
				for ln := range wc {
					if !r.changed[ln] {
						t.Fatalf("iter %d, %d workers, file %d: line %d not reported changed", iter, workers, f, ln)
					}
				}
			}
		}
		want, wantChanged := refRedactLines(data, fn)
		for _, workers := range []int{1, 2, 3, 8} {
			r := redactLines(context.Background(), data, fn, workers)
			changed, starts := r.changed, r.starts
			got := applyEdits(data, r.edits, false)
			if !bytes.Equal(got, want) {
				t.Fatalf("iter %d, %d workers: output differs from the serial definition", iter, workers)
			}
			if ss := r.storedStarts(); !slices.Equal(ss, lineStarts(want)) {
				t.Fatalf("iter %d, %d workers: stored line starts differ from those of the output", iter, workers)
			}
			// In place, into the original's capacity: the same bytes,
			// over the original when they fit, and nothing of the
			// original left past them.
			for _, spare := range []int{0, 64, len(want)} {
				orig := append(make([]byte, 0, len(data)+spare), data...)
				in := applyEdits(orig, r.edits, true)
				if !bytes.Equal(in, want) {
					t.Fatalf("iter %d, %d workers, %d spare: in place output differs", iter, workers, spare)
				}
				if fits := len(want) <= cap(orig); fits != (len(in) == 0 || &in[0] == &orig[0]) {
					t.Fatalf("iter %d, %d workers, %d spare: fits %v, but written over the original: %v", iter, workers, spare, fits, !fits)
				}
				if len(in) < len(orig) && len(r.edits) > 0 && bytes.ContainsFunc(orig[len(in):], func(c rune) bool { return c != 0 }) {
					t.Fatalf("iter %d, %d workers, %d spare: original bytes left past the result", iter, workers, spare)
				}
			}
			if len(changed) != len(wantChanged) {
				t.Fatalf("iter %d, %d workers: %d changed lines, want %d", iter, workers, len(changed), len(wantChanged))
			}
			for ln := range wantChanged {
				if !changed[ln] {
					t.Fatalf("iter %d, %d workers: line %d not reported changed", iter, workers, ln)
				}
			}
			if ws := lineStarts(data); !slices.Equal(starts, ws) {
				t.Fatalf("iter %d, %d workers: %d line starts, want %d (or they differ)", iter, workers, len(starts), len(ws))
			}
			if len(wantChanged) == 0 && len(data) > 0 && &got[0] != &data[0] {
				t.Fatalf("iter %d, %d workers: nothing changed but the data was copied", iter, workers)
			}
		}
	}
}

// BenchmarkRedactLines is the redaction of one 3 MB corpus session's main
// file, every built-in rule, on one goroutine and on two.
func BenchmarkRedactLines(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(b, "claude"), "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	r := redact.Default()
	fn := func(line []byte) []byte { out, _ := r.JSONLine(line); return out }
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				redactLines(context.Background(), data, fn, workers)
			}
		})
	}
}

// TestApplyEditsInPlaceAllocates: the redacted bytes written over a file
// whose capacity holds them take no allocation at all (no copy of the
// file, whatever its size), as the longer and the shorter placeholders
// move the rest of the file right and left; without room, one (the
// copy).
func TestApplyEditsInPlaceAllocates(t *testing.T) {
	line := []byte(`{"text":"key SECRET-0123456789 and more"}` + "\n")
	data := bytes.Repeat(line, 1000)
	n := 0 // lines seen: one worker, in order
	r := redactLines(context.Background(), data, func(b []byte) []byte {
		n++
		if i := bytes.Index(b, []byte("SECRET-")); n%2 == 0 {
			return append(append(append([]byte(nil), b[:i]...), "[REDACTED:a-rather-long-rule-name]"...), b[i+17:]...)
		}
		return bytes.Replace(b, []byte("SECRET-0123456789"), []byte("[R]"), 1)
	}, 1)
	if len(r.edits) != 1000 {
		t.Fatalf("%d edits, want 1000", len(r.edits))
	}
	want := applyEdits(data, r.edits, false)
	for _, c := range []struct {
		name   string
		spare  int
		allocs float64
	}{
		{"room to spare", len(want), 0},
		{"no room", 0, 1},
	} {
		buf := make([]byte, len(data), len(data)+c.spare)
		var out []byte
		got := testing.AllocsPerRun(20, func() {
			copy(buf[:len(data)], data)
			out = applyEdits(buf[:len(data)], r.edits, true)
		})
		if got != c.allocs || !bytes.Equal(out, want) {
			t.Errorf("%s: %v allocations (want %v), output equal %v", c.name, got, c.allocs, bytes.Equal(out, want))
		}
	}
}
