package ctxfmt

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestDictCompressGC compresses against a dictionary at LevelMax (with
// cgo: libzstd through a BulkProcessor, whose finalizer frees the
// dictionary) while garbage collections run back to back: the dictionary
// must stay alive for the whole C call (it was freed under libzstd, a
// SIGSEGV, before runtime.KeepAlive), and every frame must decode.
func TestDictCompressGC(t *testing.T) {
	src := bytes.Repeat([]byte("hello world, some text 0123456789 abcdefghij\n"), 4000)
	dict := bytes.Repeat([]byte("dictionary words hello world "), 300)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			runtime.GC()
			time.Sleep(20 * time.Microsecond)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDictRaw(0, dict))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for range 200 {
		frame, err := compressDict(LevelMax, src, dict)
		if err != nil {
			t.Fatal(err)
		}
		out, err := dec.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("round trip through the dictionary failed: %v", err)
		}
	}
}
