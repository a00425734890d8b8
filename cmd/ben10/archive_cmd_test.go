package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// archiveFixture writes a few sample files and returns their paths.
func archiveFixture(t *testing.T) (dir string, files map[string][]byte) {
	t.Helper()
	dir = t.TempDir()
	files = map[string][]byte{
		"metadata":     []byte(`{"project":"/home/dev/demo","assistant":"claude-code"}`),
		"conversation": bytes.Repeat([]byte(`{"role":"user","text":"run the tests"}`+"\n"+`{"role":"assistant","text":"All 42 tests pass."}`+"\n"), 200),
		"summaries":    {},
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

func packArgs(dir string, extra ...string) []string {
	args := append([]string{"archive", "pack"}, extra...)
	for _, name := range []string{"metadata", "conversation", "summaries"} {
		args = append(args, name+"="+filepath.Join(dir, name))
	}
	return args
}

func TestArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	for _, codec := range []string{"none", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			dir, files := archiveFixture(t)
			out := filepath.Join(dir, "a.ctx")
			r := runBen10(t, nil, nil, packArgs(dir, "--out", out, "--codec", codec, "--level", "best")...)
			if r.code != 0 || !strings.Contains(r.stdout, "packed 3 segments") {
				t.Fatalf("pack: %+v", r)
			}
			fi, err := os.Stat(out)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("archive mode: %v %v", fi.Mode(), err)
			}
			r = runBen10(t, nil, nil, "--json", "archive", "inspect", out)
			var info struct {
				Version   int  `json:"version"`
				Encrypted bool `json:"encrypted"`
				Segments  []struct {
					Type   string `json:"type"`
					Codec  string `json:"codec"`
					RawLen int    `json:"raw_bytes"`
				} `json:"segments"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || r.code != 0 {
				t.Fatalf("inspect --json: %v %+v", err, r)
			}
			if info.Version != 1 || info.Encrypted || len(info.Segments) != 3 || info.Segments[1].Type != "conversation" ||
				info.Segments[1].RawLen != len(files["conversation"]) || info.Segments[1].Codec != codec {
				t.Fatalf("inspect: %+v", info)
			}
			r = runBen10(t, nil, nil, "archive", "inspect", out)
			if r.code != 0 || !strings.Contains(r.stdout, "conversation") || !strings.Contains(r.stdout, "encrypted: no") {
				t.Fatalf("inspect: %+v", r)
			}
			for _, deep := range []string{"", "--deep"} {
				args := []string{"archive", "verify", out}
				if deep != "" {
					args = append(args, deep)
				}
				if r = runBen10(t, nil, nil, args...); r.code != 0 || !strings.Contains(r.stdout, "ok") {
					t.Fatalf("verify %s: %+v", deep, r)
				}
			}
			unp := filepath.Join(dir, "out")
			if r = runBen10(t, nil, nil, "archive", "unpack", out, "--dir", unp); r.code != 0 {
				t.Fatalf("unpack: %+v", r)
			}
			for i, name := range []string{"metadata", "conversation", "summaries"} {
				got, err := os.ReadFile(filepath.Join(unp, "00"+string(rune('0'+i))+"-"+name+".bin"))
				if err != nil || !bytes.Equal(got, files[name]) {
					t.Fatalf("unpacked %s: %v", name, err)
				}
			}
			if r = runBen10(t, nil, nil, "archive", "unpack", out, "--dir", unp); r.code == 0 || !strings.Contains(r.stderr, "not overwriting") {
				t.Fatalf("unpack over existing files: %+v", r)
			}
		})
	}
}

func TestArchiveEncrypted(t *testing.T) {
	t.Parallel()
	dir, files := archiveFixture(t)
	out := filepath.Join(dir, "e.ctx")
	passFile := filepath.Join(dir, "pass")
	if err := os.WriteFile(passFile, []byte("hunter2 is not a good passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBen10(t, nil, nil, packArgs(dir, "--out", out, "--encrypt", "--passphrase-file", passFile)...); r.code != 0 {
		t.Fatalf("pack: %+v", r)
	}
	raw, _ := os.ReadFile(out)
	if bytes.Contains(raw, files["metadata"][:20]) {
		t.Fatal("plaintext visible in the encrypted archive")
	}
	// Inspect needs no passphrase.
	if r := runBen10(t, nil, nil, "archive", "inspect", out); r.code != 0 || !strings.Contains(r.stdout, "argon2id") {
		t.Fatalf("inspect: %+v", r)
	}
	env := []string{"BEN10_PASSPHRASE=hunter2 is not a good passphrase"}
	if r := runBen10(t, nil, env, "archive", "verify", "--deep", out); r.code != 0 {
		t.Fatalf("verify with env passphrase: %+v", r)
	}
	if testing.Short() {
		// -short: the reads below each derive the key, at the default
		// Argon2id cost of the packed archive (64 MiB, three passes); the
		// same segments sealed with a cheap cost take the same paths in
		// the binary. make test-long reads the packed archive.
		out = filepath.Join(dir, "cheap.ctx")
		raw = cheapEncrypted(t, out, "hunter2 is not a good passphrase", files)
	}
	if r := runBen10(t, nil, nil, "archive", "verify", "--deep", "--passphrase-file", passFile, out); r.code != 0 {
		t.Fatalf("verify with passphrase file: %+v", r)
	}
	if r := runBen10(t, nil, []string{"BEN10_PASSPHRASE=wrong"}, "archive", "verify", "--deep", out); r.code != 1 || !strings.Contains(r.stderr, "wrong passphrase") {
		t.Fatalf("wrong passphrase: %+v", r)
	}
	if r := runBen10(t, nil, nil, "archive", "unpack", out, "--dir", filepath.Join(dir, "x")); r.code == 0 || !strings.Contains(r.stderr, "encrypted") {
		t.Fatalf("unpack without passphrase: %+v", r)
	}
	unp := filepath.Join(dir, "out")
	if r := runBen10(t, nil, env, "archive", "unpack", out, "--dir", unp); r.code != 0 {
		t.Fatalf("unpack: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(unp, "002-conversation.bin")); !bytes.Equal(got, files["conversation"]) {
		t.Fatal("decrypted conversation differs")
	}
	if _, err := os.Stat(filepath.Join(unp, "000-crypto-params.bin")); err == nil {
		t.Fatal("crypto-params unpacked")
	}
	// Tampering (one flipped byte) is named by region, exit 2.
	raw[len(raw)-40] ^= 0x10 // inside the conversation: footer 16 + empty summaries 16
	if err := os.WriteFile(out, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBen10(t, nil, env, "archive", "verify", "--deep", out)
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "segment 2 (conversation)") {
		t.Fatalf("tampered: %+v", r)
	}
	// The passphrase is never a command-line argument.
	if r := runBen10(t, nil, nil, packArgs(dir, "--out", out, "--encrypt", "--passphrase", "x")...); r.code == 0 {
		t.Fatal("--passphrase accepted on the command line")
	}
	if r := runBen10(t, nil, nil, packArgs(dir, "--out", filepath.Join(dir, "n.ctx"), "--encrypt")...); r.code == 0 || !strings.Contains(r.stderr, "BEN10_PASSPHRASE") {
		t.Fatalf("--encrypt without passphrase: %+v", r)
	}
}

// cheapEncrypted writes to path what `archive pack --encrypt` writes for
// the fixture's files (crypto parameters, metadata, conversation,
// summaries), its key derived from pass with a cheap Argon2id cost, and
// returns the bytes.
func cheapEncrypted(t *testing.T, path, pass string, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Encryption: &ctxfmt.Encryption{
		Passphrase: []byte(pass), Argon2: ctxfmt.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []struct {
		t    ctxfmt.SegmentType
		name string
	}{{ctxfmt.TypeMetadata, "metadata"}, {ctxfmt.TypeConversation, "conversation"}, {ctxfmt.TypeSummaries, "summaries"}} {
		if err := w.Add(seg.t, files[seg.name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestArchiveVerifyDamage(t *testing.T) {
	t.Parallel()
	dir, _ := archiveFixture(t)
	out := filepath.Join(dir, "a.ctx")
	if r := runBen10(t, nil, nil, packArgs(dir, "--out", out)...); r.code != 0 {
		t.Fatalf("pack: %+v", r)
	}
	good, _ := os.ReadFile(out)
	cases := []struct {
		name   string
		mod    func([]byte) []byte
		region string
	}{
		{"header", func(b []byte) []byte { b[9] ^= 1; return b }, "header"},
		{"index", func(b []byte) []byte { b[40] ^= 1; return b }, "index"},
		{"segment", func(b []byte) []byte { b[len(b)-40] ^= 1; return b }, "segment 1 (conversation)"},
		{"footer", func(b []byte) []byte { b[len(b)-12] ^= 1; return b }, "footer"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-100] }, "truncated"},
		{"not a ctx", func(b []byte) []byte { return []byte("hello world, not an archive at all ........................") }, "bad magic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(out, c.mod(bytes.Clone(good)), 0o600); err != nil {
				t.Fatal(err)
			}
			r := runBen10(t, nil, nil, "archive", "verify", "--deep", out)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.region) {
				t.Fatalf("got code %d, stderr %q; want exit 2 naming %q", r.code, r.stderr, c.region)
			}
		})
	}
	if r := runBen10(t, nil, nil, "archive", "verify", filepath.Join(dir, "missing.ctx")); r.code != 1 {
		t.Fatalf("missing file: %+v", r)
	}
	if r := runBen10(t, nil, nil, "archive", "pack", "--out", out, "bogus="+filepath.Join(dir, "metadata")); r.code == 0 || !strings.Contains(r.stderr, "unknown segment type") {
		t.Fatalf("bad type: %+v", r)
	}
}
