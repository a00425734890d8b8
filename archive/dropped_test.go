package archive_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// plainRecall is archive.Recall without its msgpack methods: msgpack
// encodes it in the map form pre-release builds stored.
type plainRecall archive.Recall

// withMetaKeys returns an edit that sets keys of the metadata segment's
// msgpack map.
func withMetaKeys(t *testing.T, set map[string]any) func(ctxfmt.SegmentType, []byte) []byte {
	return func(st ctxfmt.SegmentType, p []byte) []byte {
		if st != ctxfmt.TypeMetadata {
			return p
		}
		var m map[string]any
		if err := msgpack.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range set {
			m[k] = v
		}
		b, err := msgpack.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

func unchanged(_ ctxfmt.SegmentType, p []byte) []byte { return p }

// TestDroppedForms: every archive form only pre-release builds wrote is
// refused with ErrSchema and an error naming the form, never read as
// something else, never ErrCorrupt: layout 2 (packed chunks in the old
// order), layout 4 (raw-only, model built on read), the recall-fold
// segment, and the map forms of the recall and the file registry.
// Layouts from a newer build are refused alike. The forms are made by
// rewriting an archive this build writes, so no old fixture is kept.
func TestDroppedForms(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	if len(st.Files) == 0 {
		t.Fatal("the fixture has no file registry")
	}
	base := encode(t, st, archive.EncodeOptions{})
	fileMap, err := msgpack.Marshal(st.Files)
	if err != nil {
		t.Fatal(err)
	}
	r, ok, err := open(t, base, archive.OpenOptions{}).Recall()
	if err != nil || !ok {
		t.Fatalf("Recall: %v %v", ok, err)
	}
	recallMap, err := msgpack.Marshal((*plainRecall)(&r))
	if err != nil {
		t.Fatal(err)
	}
	replace := func(typ ctxfmt.SegmentType, payload []byte) func(ctxfmt.SegmentType, []byte) []byte {
		return func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == typ {
				return payload
			}
			return p
		}
	}
	for _, tc := range []struct {
		name  string
		b     []byte
		read  func(*archive.Archive) error // nil: Open refuses
		names string                       // in the error
	}{
		{"layout 2", rewrite(t, base, withMetaKeys(t, map[string]any{"layout": 2})), nil, "layout 2"},
		{"layout 4 raw-only", rewrite(t, base, withMetaKeys(t, map[string]any{"layout": 4,
			"pending": map[string]any{"importer": "claude.2", "version": 1}})), nil, "raw-only"},
		{"layout 3 packed", rewrite(t, base, withMetaKeys(t, map[string]any{"layout": 3})), nil, "layout 3"},
		{"layout 0", rewrite(t, base, withMetaKeys(t, map[string]any{"layout": 0})), nil, "reads layout 1"},
		{"layout 5", rewrite(t, base, withMetaKeys(t, map[string]any{"layout": 5})), nil, "reads layout 1"},
		{"derived conversation", rewrite(t, base, withMetaKeys(t, map[string]any{
			"derived": map[string]any{"importer": "claude", "version": 2, "root": "/p"}})), nil, "rebuilt from the raw transcript"},
		{"recall fold", rewrite(t, base, unchanged, archive.TypeRecallFold), nil, "recall-fold"},
		{"file registry map form", rewrite(t, base, replace(ctxfmt.TypeFileRegistry, fileMap)),
			func(a *archive.Archive) error { _, err := a.Files(); return err }, "file registry in the pre-release map form"},
		{"recall map form", rewrite(t, base, replace(ctxfmt.TypeSummaries, recallMap)),
			func(a *archive.Archive) error { _, _, err := a.Recall(); return err }, "recall in the pre-release map form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := archive.Open(bytes.NewReader(tc.b), int64(len(tc.b)), archive.OpenOptions{})
			if tc.read != nil {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				err = tc.read(a)
			}
			if !errors.Is(err, archive.ErrSchema) || errors.Is(err, archive.ErrCorrupt) || !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("got %v, want ErrSchema naming %q", err, tc.names)
			}
			t.Log(err)
		})
	}
	// The unedited re-pack opens and reads: the refusals come from the
	// edits alone.
	a := open(t, rewrite(t, base, unchanged), archive.OpenOptions{})
	if _, err := a.Files(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Recall(); err != nil {
		t.Fatal(err)
	}
}
