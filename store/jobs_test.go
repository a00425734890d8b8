package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSessionJobs: SessionJobs returns the jobs of one session and reads
// only their files: another session's job file that cannot be read (over the job
// bound) is not opened, while Jobs reports it as a failed job.
func TestSessionJobs(t *testing.T) {
	e := newEnv(t)
	s := e.open(t, Options{})
	for _, j := range []Job{
		{Event: "PreCompact", Session: "sess-a", Transcript: "/t/a.jsonl", Size: 10},
		{Event: "SessionEnd", Session: "sess-b", Transcript: "/t/b.jsonl", Size: 20},
		{Event: "SessionEnd", Session: "sess-a", Transcript: "/t/a.jsonl", Size: 30},
	} {
		if _, err := s.QueueJob(j); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(s.PendingDir(), "job-sess-c-1-1"+PendingExt)
	if err := os.WriteFile(bad, make([]byte, maxJobBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := s.Jobs()
	if err != nil || len(all) != 4 {
		t.Fatalf("Jobs: %d jobs, %v; want 4", len(all), err)
	}
	failed := 0
	for _, j := range all {
		if j.Failed {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("Jobs: %d failed jobs, want the oversized file as 1", failed)
	}
	for _, tc := range []struct {
		session string
		sizes   []int64
	}{
		{"sess-a", []int64{10, 30}},
		{"sess-b", []int64{20}},
		{"sess-none", nil},
		{"", nil},
	} {
		got, err := s.SessionJobs(tc.session)
		if err != nil {
			t.Fatalf("SessionJobs(%q): %v", tc.session, err)
		}
		var sizes []int64
		for _, j := range got {
			if j.Session != tc.session || j.Failed {
				t.Errorf("SessionJobs(%q) returned %+v", tc.session, j)
			}
			sizes = append(sizes, j.Size)
		}
		if len(sizes) != len(tc.sizes) || (len(sizes) > 0 && (sizes[0] != tc.sizes[0] || sizes[len(sizes)-1] != tc.sizes[len(tc.sizes)-1])) {
			t.Errorf("SessionJobs(%q) sizes %v, want %v (oldest first)", tc.session, sizes, tc.sizes)
		}
	}
}
