package archive

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

func randomFiles(rng *rand.Rand, n int) []FileRecord {
	hashes := []string{"", "abc", strings.Repeat("0f", 32), strings.Repeat("AB", 32), strings.Repeat("g1", 32), strings.Repeat("9", 63), strings.Repeat("e", 65)}
	base := time.Date(2026, 2, 11, 22, 0, 0, 0, time.UTC)
	var fs []FileRecord
	for i := range n {
		h := hashes[rng.IntN(len(hashes))]
		if rng.IntN(2) == 0 {
			b := make([]byte, 32)
			for k := range b {
				b[k] = byte(rng.IntN(256))
			}
			h = hexString(b)
		}
		var t time.Time
		switch rng.IntN(4) {
		case 3:
			t = time.Unix(1<<50-int64(rng.IntN(9)), 0)
		case 1:
			t = base.Add(time.Duration(rng.Int64N(1<<36)) * time.Millisecond)
		case 2:
			t = base.Add(time.Duration(rng.Int64N(1 << 50)))
		}
		fs = append(fs, FileRecord{Path: strings.Repeat("d/", i%5) + "f.go", Hash: h, AccessCount: rng.IntN(1000), Reads: rng.IntN(300),
			Edits: rng.IntN(70000), Writes: rng.IntN(3), LastAccess: t})
	}
	return fs
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func filesEqual(a, b []FileRecord) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.LastAccess.Equal(y.LastAccess) {
			return false
		}
		x.LastAccess, y.LastAccess = time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// TestFileRegistryCompact: the compact form gives every record back (hex
// hashes as bytes, any other hash as text) and is smaller than the map
// form; the map form pre-release builds wrote is refused with ErrSchema.
func TestFileRegistryCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 4))
	for i := range 200 {
		fs := randomFiles(rng, rng.IntN(60))
		b, err := marshal(fileRegistry(fs))
		if err != nil {
			t.Fatal(err)
		}
		var got fileRegistry
		if err := unmarshal(b, &got); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if !filesEqual(fs, got) {
			t.Fatalf("%d: round trip:\n got %+v\nwant %+v", i, got, fs)
		}
		old, err := msgpack.Marshal(fs)
		if err != nil {
			t.Fatal(err)
		}
		var back fileRegistry
		if err := unmarshal(old, &back); len(fs) > 0 && (!errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "map form")) {
			t.Fatalf("%d: map form of %d records: %v, want ErrSchema naming the map form", i, len(fs), err)
		}
		if len(fs) > 0 && len(b) >= len(old) {
			t.Errorf("%d: compact %d bytes, map form %d", i, len(b), len(old))
		}
	}
}

// TestFileRegistryHostile: truncations and corruptions give an error,
// never a panic; an unknown form gives ErrSchema.
func TestFileRegistryHostile(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 5))
	b, err := marshal(fileRegistry(randomFiles(rng, 20)))
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < len(b); n++ {
		var fr fileRegistry
		if err := unmarshal(b[:n], &fr); err == nil {
			t.Fatalf("truncated at %d of %d: no error", n, len(b))
		}
	}
	for range 3000 {
		c := append([]byte(nil), b...)
		for range 1 + rng.IntN(3) {
			c[rng.IntN(len(c))] = byte(rng.IntN(256))
		}
		var fr fileRegistry
		_ = unmarshal(c, &fr)
	}
	c := append([]byte(nil), b...)
	c[1] = 3
	var fr fileRegistry
	if err := unmarshal(c, &fr); !errors.Is(err, ErrSchema) {
		t.Errorf("form 3: %v", err)
	}
}
