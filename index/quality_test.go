package index_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript"
)

// corpusSessions lists the corpus's session files of every assistant.
func corpusSessions(t *testing.T) []string {
	t.Helper()
	root := testcorpus.Dir(t, "")
	var out []string
	for _, pat := range []string{"claude/*.jsonl", "codex/*.jsonl", "gemini/*.json*", "kimi/*.jsonl", "kimi/sessions/*/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		for _, p := range m {
			if !strings.Contains(filepath.Base(p), "_read_") {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		t.Skip("no corpus sessions")
	}
	return out
}

// TestRecallQuality is the recall figure of docs/PERFORMANCE.md: every
// corpus session is saved into its own project and indexed; then, for every
// session with a compaction, each distinct path and shell command of the
// tools before the first boundary is searched for (all projects), and the
// session must be among the first 3 hits for at least 95 % of them.
func TestRecallQuality(t *testing.T) {
	sessions := corpusSessions(t)
	home := t.TempDir()
	ctx := context.Background()
	x := open(t, home)
	type target struct {
		session string
		queries []string
	}
	var targets []target
	var projects []string
	for i, src := range sessions {
		var buf bytes.Buffer
		if _, _, err := transcript.Save(context.Background(), &buf, src, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecLZ4}); err != nil {
			t.Logf("skipping %s: %v", filepath.Base(src), err)
			continue
		}
		proj := filepath.Join(home, "projects", fmt.Sprintf("p%02d", i))
		put(t, filepath.Join(proj, ".claude", "context", "current.ctx"), buf.Bytes())
		projects = append(projects, proj)
		a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comps, err := a.Compactions()
		if err != nil || len(comps) == 0 {
			continue
		}
		tools, err := a.Tools()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var qs []string
		add := func(q string) {
			q = strings.TrimSpace(q)
			if q != "" && !seen[q] {
				seen[q] = true
				qs = append(qs, q)
			}
		}
		b := comps[0].Ref
		for _, tl := range tools {
			if tl.Ref.File != b.File || tl.Ref.Line >= b.Line {
				continue
			}
			add(tl.Command)
			for _, p := range tl.RelatedFiles {
				add(p)
			}
		}
		targets = append(targets, target{a.Meta().SessionID, qs})
		a.Close()
	}
	if len(targets) == 0 {
		t.Skip("no corpus session with a compaction")
	}
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: projects}); err != nil {
		t.Fatal(err)
	}
	total, found, short := 0, 0, 0
	for _, tg := range targets {
		n, ok := 0, 0
		for _, q := range tg.queries {
			if _, err := index.FTSQuery(q); err != nil {
				short++ // under three characters: not searchable
				continue
			}
			hits, err := x.Search(ctx, index.Query{Text: q, Limit: 3})
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			n++
			hit := false
			for _, h := range hits {
				if h.Session == tg.session {
					ok++
					hit = true
					break
				}
			}
			if !hit && os.Getenv("BEN10_RECALL_VERBOSE") != "" {
				var got []string
				for _, h := range hits {
					got = append(got, h.Session[:8]+" "+h.Kind+" "+h.Snippet)
				}
				t.Logf("miss %q: %q", q, got)
			}
		}
		t.Logf("session %s: %d of %d paths and commands found in the first 3 hits", tg.session, ok, n)
		total += n
		found += ok
	}
	rate := float64(found) / float64(total)
	t.Logf("recall: %d of %d (%.1f %%) over %d sessions with a compaction, %d archives indexed; %d queries under 3 characters left out",
		found, total, 100*rate, len(targets), len(projects), short)
	if rate < 0.95 {
		t.Errorf("recall %.1f %% < 95 %%", 100*rate)
	}
	if os.Getenv("BEN10_RECALL_VERBOSE") != "" {
		s, _ := x.Status(ctx)
		t.Logf("index: %+v", s)
	}
}
