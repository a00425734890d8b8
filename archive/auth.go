package archive

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// TypeAuthTag is the extension segment type holding an archive's
// authentication tag (see AuthKey): an HMAC-SHA256, under the key of the
// user who saved the archive, over the digests of the segments whose
// content can be injected into a session, the project path, the session
// and the save time. Readers that do not know it skip it.
const TypeAuthTag = ctxfmt.ExtensionTypeMin + 0x0a17

// AuthKeySize is the length of an authentication key in bytes.
const AuthKeySize = 32

// Authentication errors, usable with errors.Is. Each says why an archive
// is not this user's: Authenticate wraps one of them.
var (
	// ErrNoTag: the archive holds no authentication tag (written by
	// another program, before tags existed, or stripped).
	ErrNoTag = errors.New("archive: no authentication tag")
	// ErrOtherKey: the tag was made with another user's key (a
	// teammate's export, another machine).
	ErrOtherKey = errors.New("archive: authentication tag made with another key")
	// ErrBadTag: the tag does not verify under the key, or the content
	// it covers was changed after it was made.
	ErrBadTag = errors.New("archive: authentication tag does not verify")
)

// AuthKey is a user's secret for authenticating the archives and state
// they write. It is safe for concurrent use.
type AuthKey struct {
	secret [AuthKeySize]byte
	id     [8]byte
}

// NewAuthKey returns the key for the 32 secret bytes b.
func NewAuthKey(b []byte) (*AuthKey, error) {
	if len(b) != AuthKeySize {
		return nil, fmt.Errorf("archive: authentication key of %d bytes, want %d", len(b), AuthKeySize)
	}
	k := &AuthKey{}
	copy(k.secret[:], b)
	m := hmac.New(sha256.New, k.secret[:])
	m.Write([]byte("ben10 key id"))
	copy(k.id[:], m.Sum(nil))
	return k, nil
}

// ID names the key without revealing it: 16 hexadecimal digits.
func (k *AuthKey) ID() string { return hex.EncodeToString(k.id[:]) }

// Sum is the HMAC-SHA256 of fields under k, in the domain named by
// domain (each use of the key has its own, so that a tag made for one
// purpose never verifies for another). Every field is length-prefixed,
// so that no two field lists give the same input.
func (k *AuthKey) Sum(domain string, fields ...[]byte) []byte {
	m := hmac.New(sha256.New, k.secret[:])
	var n [8]byte
	for _, f := range append([][]byte{[]byte(domain)}, fields...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
		m.Write(n[:])
		m.Write(f)
	}
	return m.Sum(nil)
}

// Verify reports whether sum is Sum(domain, fields...), in constant time.
func (k *AuthKey) Verify(sum []byte, domain string, fields ...[]byte) bool {
	return hmac.Equal(sum, k.Sum(domain, fields...))
}

// AuthInfo is what an archive's verified tag vouches for.
type AuthInfo struct {
	KeyID   string    // the key that made the tag (AuthKey.ID)
	Project string    // the project directory path (Metadata.DirectoryPath)
	Session string    // the session id
	Saved   time.Time // the save time (Metadata.UpdatedAt)
}

// Tag layout (little-endian), also in docs/FORMAT.md:
//
//	4   magic "B10A"
//	1   version 1
//	8   key id
//	8   save time, Unix nanoseconds
//	2+P project path
//	2+S session id
//	2   entry count N
//	N × (2 segment type, 4 index, 32 SHA-256)
//	32  HMAC-SHA256 of everything before it, domain tagDomain
const (
	tagMagic   = "B10A"
	tagVersion = 1
	tagDomain  = "ben10 archive tag v1"
	// maxTag bounds a tag segment: 64 KiB holds ~1,700 entries, far
	// more than any archive Ben10 writes.
	maxTag = 64 << 10
)

// tagEntry is one covered item: the decoded payload of the first segment
// of type t (index 0), or, for TypeRawTranscript, stored raw file index.
type tagEntry struct {
	t   ctxfmt.SegmentType
	idx uint32
	sum [32]byte
}

type tag struct {
	keyID   [8]byte
	saved   int64
	project string
	session string
	entries []tagEntry
	mac     []byte
	body    []byte // the bytes the MAC covers
}

func appendStr(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// makeTag builds the tag payload of an archive with metadata m whose
// covered items are entries.
func makeTag(k *AuthKey, m Metadata, entries []tagEntry) ([]byte, error) {
	if len(m.DirectoryPath) > 0xffff || len(m.SessionID) > 0xffff || len(entries) > 0xffff {
		return nil, errors.New("archive: authentication tag: project path, session id or entry list too long")
	}
	b := []byte(tagMagic)
	b = append(b, tagVersion)
	b = append(b, k.id[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.UpdatedAt.UnixNano()))
	b = appendStr(b, m.DirectoryPath)
	b = appendStr(b, m.SessionID)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, uint16(e.t))
		b = binary.LittleEndian.AppendUint32(b, e.idx)
		b = append(b, e.sum[:]...)
	}
	if len(b)+32 > maxTag {
		return nil, fmt.Errorf("archive: authentication tag of %d bytes, over %d", len(b)+32, maxTag)
	}
	return append(b, k.Sum(tagDomain, b)...), nil
}

// parseTag decodes a tag payload (no verification).
func parseTag(b []byte) (*tag, error) {
	bad := func(what string) error { return fmt.Errorf("%w: malformed tag (%s)", ErrBadTag, what) }
	if len(b) > maxTag {
		return nil, bad("too large")
	}
	if len(b) < 4+1+8+8+2+2+2+32 || string(b[:4]) != tagMagic {
		return nil, bad("no tag header")
	}
	if b[4] != tagVersion {
		return nil, bad(fmt.Sprintf("version %d", b[4]))
	}
	t := &tag{}
	copy(t.keyID[:], b[5:13])
	t.saved = int64(binary.LittleEndian.Uint64(b[13:21]))
	p := b[21 : len(b)-32]
	str := func() (string, bool) {
		if len(p) < 2 {
			return "", false
		}
		n := int(binary.LittleEndian.Uint16(p))
		if len(p) < 2+n {
			return "", false
		}
		s := string(p[2 : 2+n])
		p = p[2+n:]
		return s, true
	}
	var ok bool
	if t.project, ok = str(); !ok {
		return nil, bad("project path")
	}
	if t.session, ok = str(); !ok {
		return nil, bad("session id")
	}
	if len(p) < 2 {
		return nil, bad("entry count")
	}
	n := int(binary.LittleEndian.Uint16(p))
	p = p[2:]
	if len(p) != n*38 {
		return nil, bad(fmt.Sprintf("%d entries in %d bytes", n, len(p)))
	}
	t.entries = make([]tagEntry, n)
	for i := range t.entries {
		e := &t.entries[i]
		e.t = ctxfmt.SegmentType(binary.LittleEndian.Uint16(p))
		e.idx = binary.LittleEndian.Uint32(p[2:])
		copy(e.sum[:], p[6:38])
		p = p[38:]
	}
	t.body, t.mac = b[:len(b)-32], b[len(b)-32:]
	return t, nil
}

// addTag writes the authentication tag of an archive whose metadata
// segment payload is meta (m decoded) and whose summaries payload is
// recall (nil: none).
func (e *encoder) addTag(m Metadata, meta, recall []byte) error {
	k := e.opts.Auth
	if k == nil {
		return nil
	}
	entries := []tagEntry{{t: ctxfmt.TypeMetadata, sum: sha256.Sum256(meta)}}
	if recall != nil {
		entries = append(entries, tagEntry{t: ctxfmt.TypeSummaries, sum: sha256.Sum256(recall)})
	}
	b, err := makeTag(k, m, entries)
	if err != nil {
		return err
	}
	if err := e.w.AddWith(TypeAuthTag, b, ctxfmt.SegmentOptions{Optional: true, Codec: ctxfmt.CodecNone}); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}

// Authenticate checks that the archive was saved by the holder of k and
// that the content its tag covers is unchanged: the metadata segment (and
// through the SHA-256 sums it lists, the raw transcript and the captured
// files) and the recall (the summaries segment). Those are everything a
// session start injects, so the check costs a few milliseconds at any
// archive size.
//
// The error wraps ErrNoTag, ErrOtherKey or ErrBadTag, saying what did not
// match; other errors are read errors.
func (a *Archive) Authenticate(k *AuthKey) (AuthInfo, error) {
	var info AuthInfo
	if k == nil {
		return info, errors.New("archive: Authenticate: nil key")
	}
	idx := a.r.Find(TypeAuthTag)
	switch {
	case len(idx) == 0:
		return info, ErrNoTag
	case len(idx) > 1:
		return info, fmt.Errorf("%w: %d tag segments", ErrBadTag, len(idx))
	}
	if s := a.r.Segments()[idx[0]]; s.RawLen > maxTag {
		return info, fmt.Errorf("%w: malformed tag (%d bytes)", ErrBadTag, s.RawLen)
	}
	b, err := a.r.ReadSegment(idx[0])
	if err != nil {
		return info, &SegmentError{Segment: "authentication tag", Err: err}
	}
	t, err := parseTag(b)
	if err != nil {
		return info, err
	}
	info = AuthInfo{KeyID: hex.EncodeToString(t.keyID[:]), Project: t.project, Session: t.session, Saved: time.Unix(0, t.saved).UTC()}
	if t.keyID != k.id {
		return info, fmt.Errorf("%w (key %s, this user's is %s)", ErrOtherKey, info.KeyID, k.ID())
	}
	if !k.Verify(t.mac, tagDomain, t.body) {
		return info, fmt.Errorf("%w: the tag was changed", ErrBadTag)
	}
	m := a.meta.Meta
	if t.project != m.DirectoryPath || t.session != m.SessionID || t.saved != m.UpdatedAt.UnixNano() {
		return info, fmt.Errorf("%w: the tag names another project, session or save time than the metadata", ErrBadTag)
	}
	covered := map[ctxfmt.SegmentType]bool{}
	for _, e := range t.entries {
		covered[e.t] = true
		var sum [32]byte
		switch e.t {
		case ctxfmt.TypeMetadata:
			sum = a.metaSum
		case ctxfmt.TypeSummaries:
			i := a.r.Find(ctxfmt.TypeSummaries)
			if len(i) == 0 {
				return info, fmt.Errorf("%w: the recall it covers is missing", ErrBadTag)
			}
			rb, err := a.r.ReadSegment(i[0])
			if err != nil {
				return info, &SegmentError{Segment: "summaries", Err: err}
			}
			sum = sha256.Sum256(rb)
		default:
			return info, fmt.Errorf("%w: it covers a %s segment", ErrBadTag, e.t)
		}
		if e.idx != 0 {
			return info, fmt.Errorf("%w: it covers %s segment %d", ErrBadTag, e.t, e.idx)
		}
		if sum != e.sum {
			return info, fmt.Errorf("%w: the %s segment was changed", ErrBadTag, e.t)
		}
	}
	if !covered[ctxfmt.TypeMetadata] {
		return info, fmt.Errorf("%w: it does not cover the metadata", ErrBadTag)
	}
	if len(a.r.Find(ctxfmt.TypeSummaries)) > 0 && !covered[ctxfmt.TypeSummaries] {
		return info, fmt.Errorf("%w: it does not cover the recall", ErrBadTag)
	}
	return info, nil
}

// trustedPrevious returns p when it may serve as the previous archive of
// a save authenticated with k: when no key is used, or when k
// authenticates p. Otherwise nil: nothing of an archive someone else
// wrote (its raw segments) is
// carried into an archive the user's key vouches for.
func trustedPrevious(p *Archive, k *AuthKey) *Archive {
	if p == nil || k == nil {
		return p
	}
	if _, err := p.Authenticate(k); err != nil {
		return nil
	}
	return p
}
