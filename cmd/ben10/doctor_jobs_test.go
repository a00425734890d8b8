package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// TestDoctorJobChecks: doctor says nothing of an empty queue, counts the
// jobs waiting for the worker, and lists a job that is not run — one a
// repository planted, with no MAC — with the refusal and its file's name
// quoted (it comes from the project directory).
func TestDoctorJobChecks(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	st, err := store.Open(project, store.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if cs := jobChecks(st); len(cs) != 0 {
		t.Fatalf("an empty queue: %+v", cs)
	}
	if _, err := st.QueueJob(store.Job{Event: "SessionEnd", Session: "s1", Transcript: "/t/s1.jsonl", Size: 10, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(st.PendingDir(), "job-x\x1b[2J-1-1"+store.PendingExt)
	if err := os.WriteFile(planted, []byte(`{"event":"SessionEnd","session":"s2","transcript":"/t/s2.jsonl","size":10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := jobChecks(st)
	if len(cs) != 2 || cs[0].Status != "ok" || !strings.Contains(cs[0].Detail, "1 job(s) queued") {
		t.Fatalf("checks: %+v", cs)
	}
	if d := cs[1].Detail; cs[1].Status != "warn" || !strings.Contains(d, store.ErrJobRefused.Error()) ||
		!strings.Contains(d, `"job-x\x1b[2J-1-1.pending"`) || strings.Contains(d, "\x1b") {
		t.Fatalf("the refused job: %+v", cs[1])
	}
}
