package snapshot_test

import (
	"fmt"
	"time"

	"github.com/ben10ctx/ben10/snapshot"
)

func ExamplePlanPrune() {
	now := time.Date(2026, 1, 27, 12, 0, 0, 0, time.UTC)
	ix := &snapshot.Index{Version: snapshot.IndexVersion}
	for i, pinned := range []bool{true, false, false, false} {
		t := now.Add(-time.Duration(4-i) * 24 * time.Hour)
		ix.Snapshots = append(ix.Snapshots, snapshot.Snapshot{ID: ix.NewID(t, "a1b2c3"), CreatedAt: t, Pinned: pinned})
	}
	plan := snapshot.PlanPrune(ix, snapshot.Policy{RetentionCount: 2}, now)
	fmt.Println(plan.Delete)
	// Output: [pre-compact-20260124-120000-a1b2c3 pre-compact-20260125-120000-a1b2c3]
}

func ExampleIndex_Resolve() {
	ix := &snapshot.Index{Version: snapshot.IndexVersion}
	t := time.Date(2026, 1, 27, 14, 30, 22, 0, time.UTC)
	ix.Snapshots = append(ix.Snapshots, snapshot.Snapshot{ID: ix.NewID(t, "a1b2c3d4-…"), CreatedAt: t})
	i, _ := ix.Resolve("a1b2c3")
	fmt.Println(ix.Snapshots[i].ID, snapshot.ShortID(ix.Snapshots[i].ID))
	// Output: pre-compact-20260127-143022-a1b2c3 20260127-143022-a1b2c3
}
