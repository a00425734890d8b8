package hooknote

import (
	"testing"
	"time"
)

// TestRecoveriesExpire: an active recovery past its expiry is marked
// expired (a handoff after the startup max age, a compact recovery after
// CompactLookback); fresh, consumed and other recoveries are left alone.
func TestRecoveriesExpire(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := &State{Recoveries: []Recovery{
		{ID: "old-handoff", Kind: KindHandoff, State: RecoveryActive, Created: now.Add(-5 * time.Hour)},
		{ID: "new-handoff", Kind: KindHandoff, State: RecoveryActive, Created: now.Add(-time.Hour)},
		{ID: "old-compact", Kind: KindCompact, State: RecoveryActive, Created: now.Add(-2 * time.Hour)},
		{ID: "new-compact", Kind: KindCompact, State: RecoveryActive, Created: now.Add(-time.Minute)},
		{ID: "consumed", Kind: KindHandoff, State: RecoveryConsumed, Created: now.Add(-50 * time.Hour)},
	}}
	s.Expire(now, 4*time.Hour)
	want := map[string]string{"old-handoff": RecoveryExpired, "new-handoff": RecoveryActive, "old-compact": RecoveryExpired, "new-compact": RecoveryActive, "consumed": RecoveryConsumed}
	for _, r := range s.Recoveries {
		if r.State != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, r.State, want[r.ID])
		}
		if r.State == RecoveryExpired && r.Note == "" {
			t.Errorf("%s: expired without a note", r.ID)
		}
	}
}
