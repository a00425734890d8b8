package claude_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// madeUpSecret matches the secrets benchdata.WithSecrets and manyKeys
// write.
var madeUpSecret = regexp.MustCompile(`ghp_[A-Za-z0-9]{36}|AKIA[A-Z2-7]{16}|sk-ant-api03-[A-Za-z0-9]{48}`)

// manyKeys is a transcript of n user lines each holding k AWS access key
// ids, whose placeholders are longer than they are: its redacted bytes
// outgrow the spare capacity the file is read with.
func manyKeys(n, k int) []byte {
	g := rand.New(rand.NewPCG(16, 40))
	const upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b bytes.Buffer
	for i := range n {
		var keys []string
		for range k {
			key := []byte("AKIA")
			for range 16 {
				key = append(key, upperNum[g.IntN(len(upperNum))])
			}
			keys = append(keys, string(key))
		}
		fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","uuid":"u%d","timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"keys %s"}}`+"\n", i, strings.Join(keys, " "))
	}
	return b.Bytes()
}

// TestSaveRedactsInPlace: a save whose redaction changes lines writes the
// redacted bytes over the transcript it read (the State's raw file is
// that same memory) when they fit in the capacity it was read with, so
// that the transcript is held once; when placeholders lengthen it beyond
// that, it copies. Either way no secret is left in the State's raw files
// or in any segment of the archive, and the archive holds the same raw
// bytes as an encode of the same State by archive.Encode (which leaves
// its State's files alone).
func TestSaveRedactsInPlace(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		inPlace bool
	}{
		{"placeholders within the spare capacity", benchdata.WithSecrets(benchdata.Repeat(src, 1<<20), 2), true},
		{"placeholders beyond it", manyKeys(100, 20), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// (The made-up secrets the rules take for one: a random one
			// may look like a placeholder.)
			var secrets [][]byte
			r, err := redact.New(redact.Config{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range madeUpSecret.FindAll(c.data, -1) {
				if out, _ := r.String("key " + string(s)); !strings.Contains(out, string(s)) {
					secrets = append(secrets, s)
				}
			}
			if len(secrets) < 100 {
				t.Fatalf("%d secrets planted", len(secrets))
			}
			p := filepath.Join(t.TempDir(), "33333333-4444-4555-8666-777777777777.jsonl")
			if err := os.WriteFile(p, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			read := func() []archive.RawFile {
				files, err := claude.ReadFiles(p, archive.ImportOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return files
			}
			opts := redactOpts(t, "in place")
			files := read()
			first := &files[0].Data[:1][0]
			var buf bytes.Buffer
			st, _, err := claude.SaveFiles(context.Background(), &buf, files, archive.ImportOptions{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			arch := buf.Bytes()
			got := st.Raw[0].Data
			if same := &got[0] == first; same != c.inPlace {
				t.Fatalf("redacted bytes written over the file read: %v, want %v", same, c.inPlace)
			}
			for _, s := range secrets {
				if bytes.Contains(got, s) {
					t.Fatalf("secret %s left in the State's raw file", s)
				}
			}
			noSecrets(t, c.name, arch, toStrings(secrets))
			a, err := archive.Open(bytes.NewReader(arch), int64(len(arch)), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := a.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := archive.Encode(context.Background(), &want, &archive.State{Raw: read()}, opts); err != nil {
				t.Fatal(err)
			}
			w, err := archive.Open(bytes.NewReader(want.Bytes()), int64(want.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wantRaw, err := w.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw[0].Data, wantRaw[0].Data) || !bytes.Equal(raw[0].Data, got) {
				t.Fatal("the raw bytes stored differ from those archive.Encode stores")
			}
		})
	}
}

func toStrings(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}
