package claude_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// An incremental save folds only the tools after the previous archive's
// recall fold (archive.TypeRecallFold) and gives the archive a full save
// gives, for every corpus session, through a chain of saves 20 lines
// apart; a save at `max` (archival) keeps no fold.
func TestResumeRecallFoldCorpus(t *testing.T) {
	for _, p := range claudeCorpus(t) {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		dir := t.TempDir()
		var prev []byte
		folded := 0
		for k, lines := range []int{max(n-60, 1), max(n-40, 1), max(n-20, 1), n} {
			sp := writeSession(t, dir, withMain(files, cutAfterLines(main, lines), false))
			o := archive.EncodeOptions{Now: fixedNow}
			if prev != nil {
				a, err := archive.Open(bytes.NewReader(prev), int64(len(prev)), archive.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				o.Previous = a
			}
			var buf bytes.Buffer
			_, stats, err := claude.Save(&buf, sp, archive.ImportOptions{}, o)
			if err != nil {
				t.Fatal(err)
			}
			if k > 0 {
				folded += stats.RecallFolded
				if strings.Count(filepath.Base(p), "-") == 4 && stats.UnreadBytes < int64(len(main))/2 {
					t.Errorf("%s step %d: %d bytes unread of %d", filepath.Base(p), k, stats.UnreadBytes, len(main))
				}
			}
			full, _ := save(t, sp, nil)
			sameArchive(t, filepath.Base(p)+" fold step", buf.Bytes(), full)
			prev = buf.Bytes()
		}
		// The four full sessions (named by their UUID) have hundreds of
		// tools; the small ones may have none before the cut.
		if folded == 0 && strings.Count(filepath.Base(p), "-") == 4 {
			t.Errorf("%s: no incremental save used the recall fold", filepath.Base(p))
		}
	}
}
