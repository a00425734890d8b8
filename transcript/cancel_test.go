package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

// countdownCtx is cancelled by the n-th call of its Err method: an import
// that checks its context between lines sees it cancelled after n checks,
// whatever the machine's speed.
type countdownCtx struct {
	context.Context
	cancel context.CancelFunc
	n      atomic.Int64
}

func newCountdown(n int64) *countdownCtx {
	c := &countdownCtx{}
	c.Context, c.cancel = context.WithCancel(context.Background())
	c.n.Store(n)
	return c
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) == 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// syntheticLines is how many records each synthetic session holds.
const syntheticLines = 4000

// syntheticSession writes a session of harness h with syntheticLines
// records under dir and returns its path.
func syntheticSession(t *testing.T, dir string, h archive.Harness) string {
	t.Helper()
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	var name string
	switch h {
	case archive.HarnessClaude:
		name = "11111111-2222-4333-8444-555555555555.jsonl"
		for i := range syntheticLines {
			line(`{"type":"user","sessionId":"s1","uuid":"u%d","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"prompt %d"}}`, i, i)
		}
	case archive.HarnessCodex:
		name = "rollout-2026-01-01T00-00-00-c1.jsonl"
		line(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/p"}}`)
		for i := 1; i < syntheticLines; i++ {
			line(`{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt %d"}]}}`, i)
		}
	case archive.HarnessGemini:
		name = "session-2026-01-01T00-00-g1.jsonl"
		line(`{"sessionId":"g1","projectHash":"ab","startTime":"2026-01-01T00:00:00Z"}`)
		for i := 1; i < syntheticLines; i++ {
			line(`{"id":"m%d","timestamp":"2026-01-01T00:00:00Z","type":"user","content":"prompt %d"}`, i, i)
		}
	case archive.HarnessKimi:
		name = filepath.Join("0b9c5d2e-1111-4a2b-9c3d-000000000001", "context.jsonl")
		line(`{"role":"_system_prompt","content":"sys"}`)
		for i := 1; i < syntheticLines; i++ {
			line(`{"role":"user","content":"prompt %d"}`, i)
		}
	}
	return write(t, filepath.Join(dir, name), b.String())
}

// TestImportCancel: a context cancelled before the import starts, or (for
// the importers that check it between lines themselves) after 100 checks,
// stops the import of a large session early with an error that wraps
// context.Canceled and names the line it stopped before.
func TestImportCancel(t *testing.T) {
	for _, h := range transcript.Harnesses {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			p := syntheticSession(t, t.TempDir(), h)
			full, err := transcript.Import(context.Background(), p, "", archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if full.Meta.Harness != h || len(full.Messages) < syntheticLines-1 {
				t.Fatalf("the synthetic session imports as %s with %d messages", full.Meta.Harness, len(full.Messages))
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			for _, save := range []bool{false, true} {
				var st *archive.State
				if save {
					var buf strings.Builder
					st, _, err = transcript.Save(ctx, &buf, p, h, archive.ImportOptions{}, archive.EncodeOptions{})
				} else {
					st, err = transcript.Import(ctx, p, h, archive.ImportOptions{})
				}
				if !errors.Is(err, context.Canceled) || st != nil {
					t.Errorf("save %v with a cancelled context: %v (state %v), want context.Canceled", save, err, st != nil)
				}
			}
			if h == archive.HarnessClaude {
				return // checked between lines through an abort flag set asynchronously
			}
			st, err := transcript.Import(newCountdown(100), p, h, archive.ImportOptions{})
			if !errors.Is(err, context.Canceled) || st != nil {
				t.Fatalf("cancelled after 100 checks: %v, want context.Canceled", err)
			}
			m := regexp.MustCompile(`before [^ ]+:(\d+): context canceled$`).FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("the error does not name the line the import stopped before: %v", err)
			}
			t.Log(err)
			if n, _ := strconv.Atoi(m[1]); n > 100 {
				t.Errorf("stopped before line %d, want ≤ 100 of %d: %v", n, syntheticLines, err)
			}
		})
	}
}
