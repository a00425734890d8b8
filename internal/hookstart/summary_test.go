package hookstart

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/hooknote"
)

// TestPostCompact: PostCompact keeps the summary redacted and tagged for
// its session, keeps none that is over MaxSummaryKeep, and a PostCompact
// without a summary forgets the kept one.
func TestPostCompact(t *testing.T) {
	home := t.TempDir()
	st := openStore(t, home, "p")
	env := &hooknote.Env{Home: home, Getenv: func(string) string { return "" }}
	secret := "AKIA" + "Z7QWERTYUIOPASDF"
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, summary, want string
	}{
		{"redacted and tagged", "deployed with aws_access_key_id=" + secret + " today", "deployed with aws_access_key_id="},
		{"too big to keep", strings.Repeat("x", MaxSummaryKeep+1), ""},
		{"no summary", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &hooknote.Call{Env: env, Ctx: context.Background(), St: st, Cfg: st.Config(), Now: at,
				In: &hooknote.Input{SessionID: "s1", HookEventName: "PostCompact", CompactSummary: tc.summary}}
			if err := PostCompact(c); err != nil {
				t.Fatal(err)
			}
			s, err := hooknote.ReadState(st.Root())
			if err != nil {
				t.Fatal(err)
			}
			ss := s.Session("s1")
			if strings.Contains(ss.CompactSummary, secret) {
				t.Fatalf("the secret was kept: %q", ss.CompactSummary)
			}
			if !strings.HasPrefix(ss.CompactSummary, tc.want) || (tc.want == "") != (ss.CompactSummary == "") {
				t.Fatalf("kept %q, want %q…", ss.CompactSummary, tc.want)
			}
			if got := trustedSummary(AuthKey(st), st.ProjectDir(), "s1", ss); got != ss.CompactSummary {
				t.Fatalf("the kept summary does not verify under its tag: %q", got)
			}
			if ss.LastEvent.IsZero() {
				t.Fatal("the event was not recorded")
			}
		})
	}
}
