package watch

import (
	"slices"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestOnlySelects: --llm names (aliases too) select the assistants
// watched; an unknown name is an error.
func TestOnlySelects(t *testing.T) {
	for _, tc := range []struct {
		only    []archive.Harness
		watched []archive.Harness
		err     bool
	}{
		{only: nil, watched: []archive.Harness{archive.HarnessClaude, archive.HarnessCodex, archive.HarnessGemini, archive.HarnessKimi}},
		{only: []archive.Harness{"claude-code"}, watched: []archive.Harness{archive.HarnessClaude}},
		{only: []archive.Harness{"Codex", "kimi"}, watched: []archive.Harness{archive.HarnessCodex, archive.HarnessKimi}},
		{only: []archive.Harness{"cursor"}, err: true},
	} {
		w, err := New(Options{Home: t.TempDir(), Only: tc.only, NoNotify: true})
		if tc.err {
			if err == nil {
				t.Errorf("Only %v: no error", tc.only)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []archive.Harness
		for _, l := range w.cfg.LLMs {
			if w.enabled(l) {
				got = append(got, l.Name)
			}
		}
		if !slices.Equal(got, tc.watched) {
			t.Errorf("Only %v: watching %v, want %v", tc.only, got, tc.watched)
		}
	}
}
