package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 27, 14, 30, 22, 0, time.UTC)

func TestNewIDAndResolve(t *testing.T) {
	ix := &Index{Version: IndexVersion}
	id := ix.NewID(t0, "a1b2c3d4-0000-4000-8000-000000000000")
	if id != "pre-compact-20260127-143022-a1b2c3" {
		t.Fatalf("NewID = %q", id)
	}
	ix.Snapshots = append(ix.Snapshots, Snapshot{ID: id, CreatedAt: t0, SessionID: "a1b2c3d4"})
	if id2 := ix.NewID(t0, "a1b2c3ff"); id2 != id+"-2" {
		t.Fatalf("clashing NewID = %q", id2)
	}
	ix.Snapshots = append(ix.Snapshots,
		Snapshot{ID: "pre-compact-20260125-091547-d4e5f6", CreatedAt: t0.Add(-50 * time.Hour)},
		Snapshot{ID: "pre-compact-20260125-101500-d4e5aa", CreatedAt: t0.Add(-49 * time.Hour)},
	)
	ix.sort()
	for _, tc := range []struct {
		q    string
		want string
		err  error
	}{
		{"a1b2c3", "pre-compact-20260127-143022-a1b2c3", nil},
		{"20260127", "pre-compact-20260127-143022-a1b2c3", nil},
		{"pre-compact-20260125-091547-d4e5f6", "pre-compact-20260125-091547-d4e5f6", nil},
		{"d4e5f6", "pre-compact-20260125-091547-d4e5f6", nil},
		{"20260125", "", ErrAmbiguous},
		{"zzz", "", ErrNotFound},
		{"", "", ErrNotFound},
	} {
		i, err := ix.Resolve(tc.q)
		if !errors.Is(err, tc.err) {
			t.Errorf("Resolve(%q) err = %v, want %v", tc.q, err, tc.err)
			continue
		}
		if tc.err == nil && ix.Snapshots[i].ID != tc.want {
			t.Errorf("Resolve(%q) = %q, want %q", tc.q, ix.Snapshots[i].ID, tc.want)
		}
	}
}

func TestIndexRoundTrip(t *testing.T) {
	ix := &Index{Version: IndexVersion}
	ix.Snapshots = []Snapshot{{ID: "b", CreatedAt: t0, CompressedBytes: 10}, {ID: "a", CreatedAt: t0.Add(-time.Hour), CompressedBytes: 5, Pinned: true}}
	data := ix.Marshal()
	back, err := ParseIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.TotalSizeBytes != 15 || back.Snapshots[0].ID != "a" || !back.Snapshots[0].Pinned {
		t.Fatalf("round trip: %+v", back)
	}
	if _, err := ParseIndex([]byte(`{"version":"9","snapshots":[]}`)); err == nil {
		t.Fatal("future index version accepted")
	}
	if _, err := ParseIndex([]byte(`{"version":`)); err == nil {
		t.Fatal("broken index accepted")
	}
	if ix, err := ParseIndex(nil); err != nil || len(ix.Snapshots) != 0 {
		t.Fatalf("empty index: %v %v", ix, err)
	}
}

func TestDebounced(t *testing.T) {
	ix := &Index{Snapshots: []Snapshot{
		{ID: "a", SessionID: "s1", CreatedAt: t0},
		{ID: "b", SessionID: "s2", CreatedAt: t0.Add(time.Minute)},
	}}
	if i := ix.Debounced("s1", 5*time.Minute, t0.Add(4*time.Minute)); i != 0 {
		t.Errorf("within window: %d", i)
	}
	if i := ix.Debounced("s1", 5*time.Minute, t0.Add(6*time.Minute)); i != -1 {
		t.Errorf("outside window: %d", i)
	}
	if i := ix.Debounced("s3", 5*time.Minute, t0); i != -1 {
		t.Errorf("other session: %d", i)
	}
	ix.Snapshots[0].Pinned = true
	if i := ix.Debounced("s1", 5*time.Minute, t0.Add(time.Minute)); i != -1 {
		t.Errorf("pinned snapshot replaced: %d", i)
	}
}

// TestPlanPruneProperties checks PlanPrune against the policy's definition
// on random indexes: pinned snapshots survive, expired unpinned ones go,
// deletions are oldest-first, limits hold unless only pinned snapshots
// break them (then a warning), and nothing is deleted that was not needed.
func TestPlanPruneProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		ix := &Index{}
		n := rng.Intn(12)
		for i := 0; i < n; i++ {
			ix.Snapshots = append(ix.Snapshots, Snapshot{
				ID:              fmt.Sprintf("s%02d", i),
				CreatedAt:       t0.Add(-time.Duration(rng.Intn(60*24)) * time.Hour),
				CompressedBytes: int64(1 + rng.Intn(100)),
				Pinned:          rng.Intn(4) == 0,
			})
		}
		p := Policy{RetentionCount: rng.Intn(8), MaxBytes: int64(rng.Intn(500))}
		if rng.Intn(2) == 0 {
			p.RetentionAge = time.Duration(1+rng.Intn(40*24)) * time.Hour
		}
		plan := PlanPrune(ix, p, t0)
		del := map[string]bool{}
		for _, id := range plan.Delete {
			del[id] = true
		}
		var kept []Snapshot
		var total int64
		pinnedOnly := true
		for _, s := range ix.Snapshots {
			if del[s.ID] {
				if s.Pinned {
					t.Fatalf("iter %d: pinned %s deleted", iter, s.ID)
				}
				continue
			}
			kept = append(kept, s)
			total += s.CompressedBytes
			if !s.Pinned {
				pinnedOnly = false
				if p.RetentionAge > 0 && t0.Sub(s.CreatedAt) > p.RetentionAge {
					t.Fatalf("iter %d: expired %s kept", iter, s.ID)
				}
			}
		}
		countOK := p.RetentionCount == 0 || len(kept) <= p.RetentionCount
		sizeOK := p.MaxBytes == 0 || total <= p.MaxBytes
		if (!countOK || !sizeOK) && !pinnedOnly {
			t.Fatalf("iter %d: limits broken (count %d/%d, size %d/%d) with unpinned snapshots left", iter, len(kept), p.RetentionCount, total, p.MaxBytes)
		}
		if (!countOK || !sizeOK) && len(plan.Warnings) == 0 {
			t.Fatalf("iter %d: limits broken by pinned snapshots without a warning", iter)
		}
		// Oldest first: every deleted unexpired snapshot is older than every kept unpinned one.
		for _, s := range ix.Snapshots {
			if !del[s.ID] || (p.RetentionAge > 0 && t0.Sub(s.CreatedAt) > p.RetentionAge) {
				continue
			}
			for _, k := range kept {
				if !k.Pinned && k.CreatedAt.Before(s.CreatedAt) {
					t.Fatalf("iter %d: deleted %s is newer than kept %s", iter, s.ID, k.ID)
				}
			}
			// Minimal: putting the newest deleted one back breaks a limit.
		}
		if last := newestDeletedUnexpired(ix, del, p); last != nil {
			c, sz := len(kept)+1, total+last.CompressedBytes
			if (p.RetentionCount == 0 || c <= p.RetentionCount) && (p.MaxBytes == 0 || sz <= p.MaxBytes) {
				t.Fatalf("iter %d: %s deleted though keeping it breaks no limit", iter, last.ID)
			}
		}
	}
}

func newestDeletedUnexpired(ix *Index, del map[string]bool, p Policy) *Snapshot {
	var out *Snapshot
	for i := range ix.Snapshots {
		s := &ix.Snapshots[i]
		if del[s.ID] && !(p.RetentionAge > 0 && t0.Sub(s.CreatedAt) > p.RetentionAge) {
			out = s
		}
	}
	return out
}

func TestReadSummary(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/index.json"
	if sum, err := ReadSummary(p); err != nil || sum.Count != 0 {
		t.Fatalf("missing index: %+v %v", sum, err)
	}
	ix := &Index{Version: IndexVersion}
	for i := 0; i < 300; i++ { // larger than the prefix ReadSummary reads
		ix.Snapshots = append(ix.Snapshots, Snapshot{ID: fmt.Sprintf("pre-compact-%03d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute), CompressedBytes: int64(i), Pinned: i%7 == 0})
	}
	if err := os.WriteFile(p, ix.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	fast, err := ReadSummary(p)
	if err != nil || fast.Count != 300 || fast.Pinned != 43 || fast.TotalSizeBytes != 299*300/2 {
		t.Fatalf("summary %+v %v", fast, err)
	}
	// An index written by another tool (indented, without the counts) is
	// decoded whole and gives the same summary.
	data, _ := json.MarshalIndent(ix, "", "  ")
	os.WriteFile(p, data, 0o600)
	slow, err := ReadSummary(p)
	if err != nil || slow.Count != fast.Count || slow.Pinned != fast.Pinned || slow.TotalSizeBytes != fast.TotalSizeBytes {
		t.Fatalf("fallback summary %+v vs %+v (%v)", slow, fast, err)
	}
	back, err := ParseIndex(ix.Marshal())
	if err != nil || len(back.Snapshots) != 300 {
		t.Fatalf("round trip: %v", err)
	}
}

func TestDebouncedHold(t *testing.T) {
	ix := &Index{Snapshots: []Snapshot{{ID: "w", SessionID: "s1", CreatedAt: t0, HoldUntil: t0.Add(10 * time.Minute)}}}
	if i := ix.Debounced("s1", 5*time.Minute, t0.Add(8*time.Minute)); i != 0 {
		t.Errorf("held snapshot not replaced: %d", i)
	}
	if i := ix.Debounced("s1", 5*time.Minute, t0.Add(11*time.Minute)); i != -1 {
		t.Errorf("snapshot replaced after its hold: %d", i)
	}
	if i := ix.Debounced("s1", 0, t0.Add(time.Minute)); i != 0 {
		t.Errorf("hold ignored with no debounce window: %d", i)
	}
}
