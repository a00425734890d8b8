package store

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAudit(t *testing.T) {
	e := newEnv(t)
	s := e.open(t, Options{Session: "sess-1"})
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			e := AuditEntry{Action: ActionSave, SizeBytes: 4200000, Messages: i}
			if i == 0 {
				e.Detail = strings.Repeat("é", 3000)
			}
			if err := s.Audit(e); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if err := AppendAudit(e.home, AuditEntry{Timestamp: time.Date(2026, 1, 27, 16, 45, 0, 0, time.UTC), Action: ActionExport,
		Directory: "/home/user/myproject", ExportPath: "./team-context.ctxpkg", RedactionsApplied: 3}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(AuditPath(e.home))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("audit log mode %v", fi.Mode())
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 21 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines[:20] {
		var got AuditEntry
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if got.Action != ActionSave || got.Directory != e.project || got.Session != "sess-1" || got.Timestamp.IsZero() {
			t.Fatalf("entry %+v", got)
		}
		if len(l)+1 > MaxAuditLine {
			t.Fatalf("line of %d bytes exceeds MaxAuditLine", len(l))
		}
	}
	want := `{"timestamp":"2026-01-27T16:45:00Z","action":"context_export","directory":"/home/user/myproject","export_path":"./team-context.ctxpkg","redactions_applied":3}`
	if lines[20] != want {
		t.Fatalf("PRD example line:\n%s\nwant\n%s", lines[20], want)
	}
	// A failure is reported, never a panic: home is a file.
	bad := e.home + "/file"
	os.WriteFile(bad, nil, 0o600)
	if err := AppendAudit(bad, AuditEntry{Action: ActionPrune}); err == nil {
		t.Fatal("audit into an impossible path succeeded")
	}
}
