package remote

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript/claude"
)

func TestNormalizeGitURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://github.com/Acme/app.git", "github.com/Acme/app"},
		{"https://user:tok@GitHub.com/acme/app", "github.com/acme/app"},
		{"git@github.com:acme/app.git", "github.com/acme/app"},
		{"ssh://git@github.com:22/acme/app.git", "github.com/acme/app"},
		{"github.com:acme/app", "github.com/acme/app"},
		{"https://gitlab.example.com/group/sub/app/", "gitlab.example.com/group/sub/app"},
	} {
		if got := normalizeGitURL(tc.in); got != tc.want {
			t.Errorf("normalizeGitURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestProjectKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myproj")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := ProjectKey(dir); got != "myproj" {
		t.Fatalf("without origin: %q", got)
	}
	cfg := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/other/x\n[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ProjectKey(dir); got != "github.com/acme/app" {
		t.Fatalf("with origin: %q", got)
	}
}

func TestEntryValidate(t *testing.T) {
	k := testKey(t)
	good := func() Entry {
		p := []byte("line\n")
		e := Entry{Kind: KindHistory, Session: "s", Harness: "claude", Files: []File{{Name: "s.jsonl", Size: 5, Chunks: []ChunkRef{{ID: k.ChunkID(p), Size: 5}}}}}
		e.ID = k.entryID(&e)
		return e
	}
	e := good()
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(e *Entry){
		"dot-dot name":   func(e *Entry) { e.Files[0].Name = "../../.bashrc" },
		"absolute name":  func(e *Entry) { e.Files[0].Name = "/etc/passwd" },
		"backslash":      func(e *Entry) { e.Files[0].Name = `a\..\b` },
		"size mismatch":  func(e *Entry) { e.Files[0].Size = 6 },
		"huge chunk":     func(e *Entry) { e.Files[0].Chunks[0].Size = MaxChunk + 1; e.Files[0].Size = MaxChunk + 1 },
		"bad chunk id":   func(e *Entry) { e.Files[0].Chunks[0].ID = "../x" },
		"no files":       func(e *Entry) { e.Files = nil },
		"bad entry id":   func(e *Entry) { e.ID = "x" },
		"negative chunk": func(e *Entry) { e.Files[0].Chunks[0].Size = -5; e.Files[0].Size = -5 },
	} {
		e := good()
		mutate(&e)
		if err := e.validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Two manifests written at once by two machines: the merge keeps every
// entry once.
func TestMergeEntries(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := manifest{Version: 1, Entries: []Entry{{ID: "a", Updated: t0, Pushed: t0.Add(time.Hour)}, {ID: "b", Updated: t0.Add(time.Minute)}}}
	b := manifest{Version: 1, Entries: []Entry{{ID: "a", Updated: t0, Pushed: t0}, {ID: "c", Updated: t0.Add(-time.Minute)}}}
	got := mergeEntries([]manifest{a, b})
	if len(got) != 3 || got[0].ID != "c" || got[1].ID != "a" || got[2].ID != "b" || !got[1].Pushed.Equal(t0) {
		t.Fatalf("merge: %+v", got)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ in, bucket, prefix string }{
		{"s3://team-ctx", "team-ctx", ""},
		{"s3://team-ctx/", "team-ctx", ""},
		{"s3://team-ctx/ben10/acme", "team-ctx", "ben10/acme/"},
	} {
		b, p, err := ParseURL(tc.in)
		if err != nil || b != tc.bucket || p != tc.prefix {
			t.Errorf("ParseURL(%q) = %q %q %v", tc.in, b, p, err)
		}
	}
	for _, bad := range []string{"", "team", "http://b/x", "s3://", "s3://B_ad/x", "s3://ok-bucket/a//b", "s3://ok-bucket/../x", "s3://key:secret@bucket/x"} {
		if _, _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
}

func TestConfigAddRemove(t *testing.T) {
	home := t.TempDir()
	c, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(Remote{Name: "team", URL: "s3://bucket/p", Endpoint: "http://127.0.0.1:9000"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(Remote{Name: "team", URL: "s3://bucket/q"}); err == nil {
		t.Fatal("a duplicate name was added")
	}
	if err := c.Add(Remote{Name: "x", URL: "s3://bucket/q", Endpoint: "ftp://h"}); err == nil {
		t.Fatal("an ftp endpoint was accepted")
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(ConfigPath(home)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("remotes file: %v %v", fi, err)
	}
	c2, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c2.Get("")
	if err != nil || r.Name != "team" || r.URL != "s3://bucket/p" {
		t.Fatalf("Get: %+v %v", r, err)
	}
	if err := c2.Remove("team"); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Get(""); err == nil {
		t.Fatal("Get after Remove found a remote")
	}
}

// sealedSize is what the bucket stores for the chunks of data not in seen.
func sealedSize(t testing.TB, k *Key, data []byte, prior [][]ChunkRef, seen map[string]bool) ([]ChunkRef, int64) {
	var n int64
	refs := k.chunkFile(data, prior, func(id string, p []byte) {
		if seen[id] {
			return
		}
		seen[id] = true
		obj, err := k.SealChunk(id, p)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(len(obj))
	}, func(string) {})
	return refs, n
}

// Ten snapshots of one growing session (a real 3 MB Claude Code
// transcript cut at 10 %, 20 %, … 100 % of its lines) store at most
// twice the bytes of the last snapshot's archive; pushing the last one
// again stores nothing.
func TestDedupGrowingSession(t *testing.T) {
	dir := testcorpus.Dir(t, "claude")
	src := filepath.Join(dir, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skip(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	tmp := t.TempDir()
	// A fixed key: chunk boundaries depend on it, and so, within a few
	// percent, does the figure.
	k := keyFrom([KeySize]byte{1, 2, 3})
	seen := map[string]bool{}
	var prior [][]ChunkRef
	var stored, last int64
	var rawLast []byte
	for i := 1; i <= 10; i++ {
		// Without redaction an archive's raw file is the transcript's
		// bytes: chunk the prefixes directly, encode only the last.
		rawLast = bytes.Join(lines[:len(lines)*i/10], nil)
		refs, n := sealedSize(t, k, rawLast, prior, seen)
		prior = append(prior, refs)
		stored += n
	}
	p := filepath.Join(tmp, filepath.Base(src))
	if err := os.WriteFile(p, rawLast, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := claude.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		t.Fatal(err)
	}
	last = int64(buf.Len())
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := a.RawFiles()
	if err != nil || len(files) == 0 || !bytes.Equal(files[0].Data, rawLast) {
		t.Fatalf("the archive's raw file is not the transcript (%v)", err)
	}
	ratio := float64(stored) / float64(last)
	t.Logf("10 snapshots of a %d-byte session: %d bytes stored, last archive %d bytes: %.2f×", len(rawLast), stored, last, ratio)
	if ratio > 2 {
		t.Fatalf("stored %.2f× the last snapshot's size, want ≤ 2", ratio)
	}
	if _, n := sealedSize(t, k, rawLast, prior, seen); n != 0 {
		t.Fatalf("pushing the last snapshot again stores %d bytes", n)
	}
}
