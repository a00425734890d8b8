package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ago := func(m float64) time.Time { return now.Add(-time.Duration(m * float64(time.Minute))) }
	claude := DefaultConfig("/h").LLM(archive.HarnessClaude)
	kimi := DefaultConfig("/h").LLM(archive.HarnessKimi)
	gemini := DefaultConfig("/h").LLM(archive.HarnessGemini)
	pct := func(p float64) Observation { return Observation{Percent: p, HavePercent: true, FirstSeen: ago(1)} }
	with := func(o Observation, f func(*Observation)) Observation { f(&o); return o }
	cases := []struct {
		name                    string
		l                       *LLMConfig
		o                       Observation
		warn, archive, snapshot bool
		blocked, reason         string
	}{
		{"below warn", claude, pct(60), false, false, false, "", ""},
		{"no usage yet", claude, Observation{FirstSeen: ago(1)}, false, false, false, "", ""},
		{"claude export band (warn == export)", claude, pct(75), true, true, true, "", "context 75.0%"},
		{"above compaction still snapshots", claude, pct(97), true, true, true, "", "context 97.0%"},
		{"gemini exports before its 50% compression", gemini, pct(46), true, true, true, "", "≥ export 45%"},
		{"gemini warn only", gemini, pct(42), true, false, false, "", ""},
		{"kimi warn below export", kimi, pct(72), true, false, false, "", ""},
		{"session cooldown blocks", claude, with(pct(80), func(o *Observation) { o.LastExport, o.LastSnapshot = ago(9), ago(9) }), true, false, false, "session cooldown (1m0s left)", ""},
		{"cooldown over", claude, with(pct(80), func(o *Observation) { o.LastExport, o.LastSnapshot = ago(10), ago(10) }), true, true, true, "", "context"},
		{"hook snapshot within cooldown: archive only", claude, with(pct(80), func(o *Observation) { o.LastExport, o.LastSnapshot = ago(30), ago(2) }), true, true, false, "snapshot cooldown (last snapshot 2m0s ago)", "context"},
		{"archive-only export does not hold back a snapshot", kimi, with(pct(80), func(o *Observation) { o.LastExport = ago(1) }), true, true, true, "", "context"},
		{"kimi turns", kimi, with(pct(10), func(o *Observation) { o.Turns = 10 }), false, true, false, "", "10 turns ≥ 10"},
		{"kimi 9 turns", kimi, with(pct(10), func(o *Observation) { o.Turns = 9 }), false, false, false, "", ""},
		{"kimi size growth", kimi, with(pct(10), func(o *Observation) { o.Size, o.SizeAtExport = 12<<20, 7<<20 }), false, true, false, "", "size grew 5.0 MiB"},
		{"kimi size below growth", kimi, with(pct(10), func(o *Observation) { o.Size, o.SizeAtExport = 12<<20, 8<<20 }), false, false, false, "", ""},
		{"kimi time since first seen", kimi, with(pct(10), func(o *Observation) { o.FirstSeen = ago(15) }), false, true, false, "", "since last export ≥ 15 min"},
		{"kimi time since export", kimi, with(pct(10), func(o *Observation) { o.FirstSeen, o.LastExport = ago(60), ago(14) }), false, false, false, "", ""},
		{"kimi turns in cooldown", kimi, with(pct(10), func(o *Observation) { o.Turns, o.LastExport = 12, ago(4) }), false, false, false, "session cooldown (1m0s left)", ""},
		{"claude has no size trigger", claude, with(pct(10), func(o *Observation) { o.Size, o.Turns, o.FirstSeen = 1<<30, 100, ago(600) }), false, false, false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.l, tc.o, now)
			if d.Warn != tc.warn || d.Archive != tc.archive || d.Snapshot != tc.snapshot || d.Blocked != tc.blocked {
				t.Fatalf("got %+v, want warn %v archive %v snapshot %v blocked %q", d, tc.warn, tc.archive, tc.snapshot, tc.blocked)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(d.Reasons, "; "), tc.reason) {
				t.Errorf("reasons %q lack %q", d.Reasons, tc.reason)
			}
			if d.Snapshot && !d.Archive {
				t.Error("a snapshot always comes with an archive")
			}
		})
	}
}

// Property: however the observations fall, no two snapshots of a session
// are decided within the cooldown when each decided snapshot is recorded.
func TestDecideNeverSnapshotsTwiceInCooldown(t *testing.T) {
	for _, l := range DefaultConfig("/h").LLMs {
		start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		o := Observation{FirstSeen: start, HavePercent: true}
		var snaps []time.Time
		for i := 0; i < 2000; i++ {
			now := start.Add(time.Duration(i) * 7 * time.Second)
			o.Percent = float64((i*37)%100) + 0.5
			o.Turns += i % 3
			o.Size += int64(i%5) << 18
			d := Decide(l, o, now)
			if d.Archive {
				o.LastExport, o.SizeAtExport, o.Turns = now, o.Size, 0
			}
			if d.Snapshot {
				if n := len(snaps); n > 0 && now.Sub(snaps[n-1]) < l.Cooldown {
					t.Fatalf("%s: snapshots at %v and %v, cooldown %v", l.Name, snaps[n-1], now, l.Cooldown)
				}
				snaps = append(snaps, now)
				o.LastSnapshot = now
			}
		}
		if len(snaps) < 2 {
			t.Errorf("%s: only %d snapshots in 4 h of high usage", l.Name, len(snaps))
		}
	}
}
