package archive_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
)

// TestSegmentBudgetRealArchives: the values Ben10's own archives decode
// to stay well inside the budget a segment gets (16 MiB plus 4 times its
// size): under twice the segment's size for every model segment of the
// fixtures and of up to eight corpus sessions, so the budget refuses
// hostile counts without refusing real archives.
func TestSegmentBudgetRealArchives(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.jsonl"))
	if dir, ok := testcorpus.Find("claude"); ok {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		n := 0
		for _, p := range m {
			if fi, err := os.Stat(p); err == nil && fi.Size() < 32<<20 && n < 8 {
				files = append(files, p)
				n++
			}
		}
	}
	worst := 0.0
	for _, p := range files {
		st := importFile(t, p)
		b := encode(t, st, archive.EncodeOptions{})
		r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range r.Segments() {
			payload, err := r.ReadSegment(i)
			if err != nil {
				t.Fatal(err)
			}
			cost, typed, err := archive.DecodeCost(payload, s.Type)
			if !typed {
				continue // not decoded by reflection
			}
			if err != nil {
				t.Fatalf("%s: segment %d (%s): %d bytes refused (%d declared): %v", filepath.Base(p), i, s.Type, len(payload), cost, err)
			}
			if len(payload) >= 512 {
				worst = max(worst, float64(cost)/float64(len(payload)))
			}
			if cost > 2*uint64(len(payload))+1<<20 {
				t.Errorf("%s: segment %d (%s): %d bytes decode to %d", filepath.Base(p), i, s.Type, len(payload), cost)
			}
		}
	}
	t.Logf("%d sessions; largest decoded/segment ratio (segments ≥ 512 bytes): %.2f", len(files), worst)
}
