package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// A session imported with package transcript/claude, encoded, opened
// lazily and read back.
func ExampleEncode() {
	st, err := claude.Import(context.Background(), filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		panic(err)
	}
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		panic(err)
	}
	m := a.Meta()
	fmt.Println(m.SessionID, m.GitBranch, len(a.RawFileInfos()), "raw files")
	msgs, err := a.Messages()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(msgs) == m.MessageCount)
	// Output:
	// 11111111-2222-4333-8444-555555555555 main 2 raw files
	// true
}

// The recovery digest is built from the small stored recall: neither the
// conversation nor the raw transcript is decompressed.
func ExampleArchive_Recall() {
	st, err := claude.Import(context.Background(), filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		panic(err)
	}
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		panic(err)
	}
	r, ok, err := a.Recall()
	if err != nil || !ok {
		panic(fmt.Sprint(ok, err))
	}
	d := archive.Digest(r, archive.DigestOptions{Budget: archive.DefaultDigestBudget})
	fmt.Println(archive.DigestLen(d) <= archive.DefaultDigestBudget, bytes.HasPrefix([]byte(d), []byte("# Ben10 context")))
	// Output: true true
}

// ExportRaw gives back the transcript files byte for byte; Restore writes
// them as a resumable Claude Code session under a fresh session id.
func ExampleArchive_ExportRaw() {
	p := filepath.Join(fixtureDir, v2+".jsonl")
	st, err := claude.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Now: func() time.Time { return time.Unix(0, 0) }}); err != nil {
		panic(err)
	}
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		panic(err)
	}
	tmp, err := os.MkdirTemp("", "ben10-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	paths, err := a.ExportRaw(filepath.Join(tmp, "export"))
	if err != nil {
		panic(err)
	}
	orig, _ := os.ReadFile(p)
	got, _ := os.ReadFile(paths[0])
	fmt.Println(len(paths), "files;", "main file identical:", bytes.Equal(orig, got))

	res, err := a.Restore(archive.RestoreOptions{
		ProjectDir: filepath.Join(tmp, "project"),
		ConfigDir:  filepath.Join(tmp, "claude"),
		SessionID:  "99999999-8888-4777-8666-555555555555",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("claude --resume", res.SessionID, "was", res.OldSessionID)
	// Output:
	// 2 files; main file identical: true
	// claude --resume 99999999-8888-4777-8666-555555555555 was 11111111-2222-4333-8444-555555555555
}

// An Encoder compresses the raw transcript while the caller still builds
// the model; the bytes are those of Encode.
func ExampleNewEncoder() {
	files, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		panic(err)
	}
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Now: func() time.Time { return time.Unix(0, 0) }}
	var a, b bytes.Buffer
	enc, err := archive.NewEncoder(context.Background(), &a, opts)
	if err != nil {
		panic(err)
	}
	enc.StartRaw(files) // compression starts now, in the background
	st, err := claude.ImportFiles(files, archive.ImportOptions{})
	if err != nil {
		panic(err)
	}
	if _, err := enc.Finish(st); err != nil {
		panic(err)
	}
	if err := archive.Encode(context.Background(), &b, st, opts); err != nil {
		panic(err)
	}
	fmt.Println(bytes.Equal(a.Bytes(), b.Bytes()))
	// Output: true
}
