package ctxfmt

import (
	"bytes"
	"errors"
	"testing"
)

// cutAfterParams rewrites an encrypted file as an attacker who cut it
// after its crypto parameters would: one entry, the footer moved up,
// every checksum recomputed.
func cutAfterParams(b []byte) []byte {
	end := dataStart(1) + cryptoSegSize
	out := make([]byte, 0, end+FooterSize)
	out = append(out, b[:HeaderSize]...)
	le.PutUint32(out[8:], 1)
	le.PutUint64(out[12:], end+FooterSize)
	e := bytes.Clone(b[HeaderSize : HeaderSize+EntrySize])
	le.PutUint64(e[0:], dataStart(1))
	out = append(out, e...)
	out = append(out, make([]byte, IndexSumSize)...)
	old := le.Uint64(b[HeaderSize:])
	out = append(out, b[old:old+cryptoSegSize]...)
	out = append(out, make([]byte, 8)...)
	out = append(out, TrailerMagic[:]...)
	return reseal(out, true)
}

// TestEncryptedCutAfterParams: an encrypted file cut after its crypto
// parameters (header, index and footer rewritten to match) holds nothing
// that authenticates it; verify refuses it, deep or not, with or without
// the key, while an intact file verifies.
func TestEncryptedCutAfterParams(t *testing.T) {
	b := build(t, encOpts(CodecZstd), seg{t: TypeMetadata, p: []byte("meta")}, seg{t: TypeConversation, p: textPayload(5000, 3)})
	cut := cutAfterParams(b)
	if r, err := open(t, cut, ReaderOptions{Passphrase: []byte(testPassphrase)}); err != nil || r.NumSegments() != 1 {
		t.Fatalf("the cut file is not a well-formed container (the test's premise): %v", err)
	}
	for _, vo := range []VerifyOptions{
		{},
		{Deep: true},
		{Deep: true, Passphrase: []byte(testPassphrase)},
	} {
		err := Verify(bytes.NewReader(cut), int64(len(cut)), vo)
		checkErr(t, err, ErrTruncated, "file")
		if err := Verify(bytes.NewReader(b), int64(len(b)), vo); err != nil && !errors.Is(err, ErrKeyRequired) {
			t.Fatalf("intact file %+v: %v", vo, err)
		}
	}
}

// TestKDFParamsTampered: changing the stored Argon2id parameters (every
// checksum recomputed) of a file written with the defaults is reported as
// tampering of the crypto parameters when the right passphrase is given,
// and still as a wrong passphrase when it is not. The three failures an
// encrypted open can meet — wrong key, altered parameters, truncation —
// are distinct errors.
func TestKDFParamsTampered(t *testing.T) {
	if testing.Short() {
		t.Skip("derives keys with the default Argon2id parameters (64 MiB)")
	}
	b := build(t, WriterOptions{Codec: CodecNone, Encryption: &Encryption{Passphrase: []byte(testPassphrase)}}, seg{t: TypeConversation, p: []byte("secret")})
	params := le.Uint64(b[HeaderSize:]) // entry 0's offset
	// One field is enough (each case derives three keys at 64 MiB): the
	// three are read and checked together.
	for name, field := range map[string]int{"time": 4} {
		t.Run(name, func(t *testing.T) {
			m := bytes.Clone(b)
			v := le.Uint32(m[params+uint64(field):])
			le.PutUint32(m[params+uint64(field):], v/2)
			m = reseal(m, true)
			_, err := open(t, m, ReaderOptions{Passphrase: []byte(testPassphrase)})
			checkErr(t, err, ErrAuth, "segment 0 (crypto-params)")
			if errors.Is(err, ErrWrongKey) {
				t.Fatalf("tampering also reported as a wrong key: %v", err)
			}
			err = Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true, Passphrase: []byte(testPassphrase)})
			checkErr(t, err, ErrAuth, "segment 0 (crypto-params)")
			if _, err := open(t, m, ReaderOptions{Passphrase: []byte("not the passphrase")}); !errors.Is(err, ErrWrongKey) {
				t.Fatalf("wrong passphrase on the altered file: %v", err)
			}
		})
	}
	if _, err := open(t, b, ReaderOptions{Passphrase: []byte(testPassphrase)}); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	if _, err := open(t, b, ReaderOptions{Passphrase: []byte("not the passphrase")}); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("wrong passphrase: %v", err)
	}
}

// TestSegmentCountCap: a header claiming more segments than a reader
// indexes (a sparse file can be that large at no cost) is refused before
// the index is allocated.
func TestSegmentCountCap(t *testing.T) {
	n := uint64(MaxSegments + 1)
	total := dataStart(n) + FooterSize
	hb := make([]byte, HeaderSize)
	copy(hb, Magic[:])
	le.PutUint16(hb[4:], Version)
	le.PutUint32(hb[8:], uint32(n))
	le.PutUint64(hb[12:], total)
	hb = reseal(hb, false)
	_, err := NewReader(sparse{hb: hb, size: int64(total)}, int64(total), ReaderOptions{})
	checkErr(t, err, ErrTooLarge, "header")
}

// sparse reads as hb followed by zeros up to size, as a sparse file.
type sparse struct {
	hb   []byte
	size int64
}

func (s sparse) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		switch at := off + int64(i); {
		case at >= s.size:
			return i, errors.New("EOF")
		case at < int64(len(s.hb)):
			p[i] = s.hb[at]
		default:
			p[i] = 0
		}
	}
	return len(p), nil
}

// TestLZ4LengthLie: an LZ4 block whose claimed raw length differs from
// what its sequences add up to is refused before the claim is allocated,
// and the walk agrees with the decoder on real blocks.
func TestLZ4LengthLie(t *testing.T) {
	for _, n := range []int{0, 1, 100, 70_000, 1 << 20} {
		src := textPayload(n, uint64(n))
		c, comp, err := compress(CodecLZ4, LevelDefault, src)
		if err != nil {
			t.Fatal(err)
		}
		if c != CodecLZ4 {
			continue
		}
		if got, ok := lz4BlockLen(comp); !ok || got != n {
			t.Fatalf("%d bytes: the walk gives %d, %v", n, got, ok)
		}
		if _, err := decompress(CodecLZ4, comp, min(n*200, 1<<30)); err == nil {
			t.Fatalf("%d bytes: an over-claim was accepted", n)
		}
	}
	for _, bad := range [][]byte{{0xf0}, {0x10}, {0x1f, 'a', 0, 0}, {0x00, 0x05, 0x00}} {
		if _, ok := lz4BlockLen(bad); ok {
			t.Errorf("% x accepted", bad)
		}
	}
}
