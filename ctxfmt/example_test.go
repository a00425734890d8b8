package ctxfmt_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ben10ctx/ben10/ctxfmt"
)

func Example() {
	var buf bytes.Buffer
	w, _ := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd})
	w.Add(ctxfmt.TypeMetadata, []byte(`{"session":"s1"}`))
	w.Add(ctxfmt.TypeConversation, bytes.Repeat([]byte("user: hi\nassistant: hello\n"), 100))
	if err := w.Close(); err != nil {
		panic(err)
	}

	file := buf.Bytes()
	r, err := ctxfmt.NewReader(bytes.NewReader(file), int64(len(file)), ctxfmt.ReaderOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range r.Segments() {
		fmt.Printf("%d %s %s raw=%d\n", s.Index, s.Type, s.Codec, s.RawLen)
	}
	meta, _ := r.ReadSegment(r.Find(ctxfmt.TypeMetadata)[0])
	fmt.Println(string(meta))

	file[len(file)-20] ^= 1 // damage the last segment
	err = ctxfmt.Verify(bytes.NewReader(file), int64(len(file)), ctxfmt.VerifyOptions{Deep: true})
	fmt.Println(errors.Is(err, ctxfmt.ErrChecksum))
	// Output:
	// 0 metadata none raw=16
	// 1 conversation zstd raw=2600
	// {"session":"s1"}
	// true
}

func ExampleWriter_encrypted() {
	var buf bytes.Buffer
	w, _ := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{
		Codec:      ctxfmt.CodecLZ4,
		Encryption: &ctxfmt.Encryption{Passphrase: []byte("s3cret"), Argon2: ctxfmt.Argon2Params{Time: 1, MemoryKiB: 1024, Threads: 1}},
	})
	w.Add(ctxfmt.TypeConversation, []byte("private"))
	w.Close()

	file := buf.Bytes()
	_, err := ctxfmt.NewReader(bytes.NewReader(file), int64(len(file)), ctxfmt.ReaderOptions{Passphrase: []byte("guess")})
	fmt.Println(errors.Is(err, ctxfmt.ErrWrongKey))
	r, _ := ctxfmt.NewReader(bytes.NewReader(file), int64(len(file)), ctxfmt.ReaderOptions{Passphrase: []byte("s3cret")})
	p, _ := r.ReadSegment(1) // segment 0 is the crypto parameters
	fmt.Println(string(p))
	// Output:
	// true
	// private
}

// The PRD's compression_level (a zstd level 1–22) maps onto the five
// levels; the level's name is what an application records, since the
// file itself does not store it.
func ExampleLevelFromZstd() {
	for _, n := range []int{1, 3, 9, 12, 19} {
		l := ctxfmt.LevelFromZstd(n)
		back, _ := ctxfmt.ParseLevel(l.String())
		fmt.Println(n, l, back == l)
	}
	// Output:
	// 1 fastest true
	// 3 default true
	// 9 better true
	// 12 best true
	// 19 max true
}

// Writing at LevelMax, meant for archives written once and kept.
func ExampleLevel_max() {
	payload := bytes.Repeat([]byte(`{"type":"assistant","message":{"content":"All tests pass."}}`+"\n"), 500)
	var buf bytes.Buffer
	w, _ := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax})
	w.Add(ctxfmt.TypeRawTranscript, payload)
	if err := w.Close(); err != nil {
		panic(err)
	}
	r, _ := ctxfmt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ctxfmt.ReaderOptions{})
	got, _ := r.ReadSegment(0)
	fmt.Println(r.Segments()[0].Codec, bytes.Equal(got, payload), buf.Len() < len(payload)/20)
	// Output: zstd true true
}
