package hookfast

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCounterHeaderRoundTrip(t *testing.T) {
	for _, h := range []Header{
		{},
		{Ref: time.Date(2026, 3, 2, 9, 30, 0, 123, time.UTC), Base: 7},
		{Ref: time.Unix(0, 1), Base: 99999999999},
	} {
		b := h.Encode()
		if len(b) != HeaderLen {
			t.Fatalf("header %q is %d bytes, want %d", b, len(b), HeaderLen)
		}
		got, err := ParseHeader(b)
		if err != nil || !got.Ref.Equal(h.Ref) || got.Base != h.Base {
			t.Fatalf("round trip of %+v: %+v, %v", h, got, err)
		}
	}
	for _, bad := range []string{"", "x", strings.Repeat("9", HeaderLen), "-0000000000000000001 00000000001\n", "00000000000000000001 0000000000x\n"} {
		if _, err := ParseHeader([]byte(bad)); err == nil {
			t.Errorf("ParseHeader(%q) accepted a damaged header", bad)
		}
	}
}

func TestCounterName(t *testing.T) {
	for sid, want := range map[string]string{
		"0b8f6c1e-5d2a-4c3b-9e7f-1a2b3c4d5e6f": "0b8f6c1e-5d2a-4c3b-9e7f-1a2b3c4d5e6f",
		"plain_id":                             "plain_id",
	} {
		if got := CounterName(sid); got != want {
			t.Errorf("CounterName(%q) = %q, want %q", sid, got, want)
		}
	}
	for _, hostile := range []string{"../../etc/passwd", "a/b", "", strings.Repeat("x", 200), "with space", "\x00"} {
		got := CounterName(hostile)
		if !strings.HasPrefix(got, "h-") || strings.ContainsAny(got, `/\. `) || filepath.Base(got) != got {
			t.Errorf("CounterName(%q) = %q: not a plain hashed name", hostile, got)
		}
	}
}

func TestPacingDueAt(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	cfg := func(auto bool, n, m int) Pacing { return Pacing{AutoSave: auto, Interval: n, Minutes: m} }
	for _, tc := range []struct {
		name  string
		cfg   Pacing
		since int
		ref   time.Time
		want  bool
	}{
		{"interval reached", cfg(true, 10, 15), 10, now, true},
		{"below interval, recent", cfg(true, 10, 15), 9, now.Add(-time.Minute), false},
		{"below interval, old", cfg(true, 10, 15), 1, now.Add(-15 * time.Minute), true},
		{"old but no prompt since", cfg(true, 10, 15), 0, now.Add(-time.Hour), false},
		{"minutes off", cfg(true, 10, 0), 3, now.Add(-time.Hour), false},
		{"no reference time", cfg(true, 10, 15), 3, time.Time{}, false},
		{"auto save off", cfg(false, 1, 1), 100, now.Add(-time.Hour), false},
	} {
		if got := tc.cfg.DueAt(tc.since, tc.ref, now); got != tc.want {
			t.Errorf("%s: due = %v, want %v", tc.name, got, tc.want)
		}
	}
}
