package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
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

// TestJobMACCoversEveryField: a job's MAC changes with every stored field
// of Job, so none can be edited after its hook wrote it, and with the
// project and the key; Path and the MAC itself are not covered.
func TestJobMACCoversEveryField(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	base := Job{Event: "PreCompact", Trigger: "auto", Session: "s", Transcript: "/t/a.jsonl", Size: 10, Head: "ab", Cwd: "/p",
		Time: time.Date(2026, 3, 2, 9, 30, 0, 1, time.UTC), Attempts: 1, LastError: "e", NextTry: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	want := jobMAC(key, "/p", base)
	v := reflect.ValueOf(&base).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" || f.Name == "MAC" {
			continue
		}
		j := base
		fv := reflect.ValueOf(&j).Elem().Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(fv.String() + "x")
		case reflect.Int, reflect.Int64:
			fv.SetInt(fv.Int() + 1)
		case reflect.Bool:
			fv.SetBool(!fv.Bool())
		case reflect.Struct:
			fv.Set(reflect.ValueOf(fv.Interface().(time.Time).Add(time.Nanosecond)))
		default:
			t.Fatalf("field %s of kind %s: add it to the test and to jobMAC", f.Name, fv.Kind())
		}
		if jobMAC(key, "/p", j) == want {
			t.Errorf("the MAC does not cover Job.%s", f.Name)
		}
	}
	if jobMAC(key, "/q", base) == want {
		t.Error("the MAC does not cover the project")
	}
	if jobMAC(bytes.Repeat([]byte{8}, 32), "/p", base) == want {
		t.Error("the MAC does not depend on the key")
	}
	// The same instant in another zone, as JSON gives it back: same MAC.
	j := base
	j.Time = j.Time.In(time.FixedZone("x", 3600))
	if jobMAC(key, "/p", j) != want {
		t.Error("the MAC depends on the time's zone")
	}
}

// TestJobAuthenticated: a queued job reads back authentic; UpdateJob
// keeps it authentic with its new fields; a refused job is listed as
// failed with ErrJobRefused's reason, and UpdateJob refuses to give it a
// MAC. The key is read only when a job is queued or listed.
func TestJobAuthenticated(t *testing.T) {
	e := newEnv(t)
	s := e.open(t, Options{})
	if _, err := s.Jobs(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(AuthKeyPath(s.Home())); err == nil {
		t.Fatal("listing an empty queue created the authentication key")
	}
	j, err := s.QueueJob(Job{Event: "SessionEnd", Session: "sess-a", Transcript: "/t/a.jsonl", Size: 10, Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if j.MAC == "" {
		t.Fatal("QueueJob wrote no MAC")
	}
	j.Attempts, j.LastError = 1, "disk full"
	if err := s.UpdateJob(j); err != nil {
		t.Fatal(err)
	}
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Failed || jobs[0].Attempts != 1 || jobs[0].LastError != "disk full" {
		t.Fatalf("after UpdateJob: %+v, %v", jobs, err)
	}
	// Edited on disk behind the MAC's back.
	data, err := os.ReadFile(j.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(j.Path, bytes.Replace(data, []byte(`"attempts":1`), []byte(`"attempts":0`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	jobs, err = s.Jobs()
	if err != nil || len(jobs) != 1 || !jobs[0].Failed || !strings.Contains(jobs[0].LastError, ErrJobRefused.Error()) {
		t.Fatalf("an edited job: %+v, %v", jobs, err)
	}
	if err := s.UpdateJob(jobs[0]); !errors.Is(err, ErrJobRefused) {
		t.Fatalf("UpdateJob of a refused job: %v", err)
	}
	if err := s.UpdateJob(Job{Path: j.Path, Event: "SessionEnd"}); !errors.Is(err, ErrJobRefused) {
		t.Fatalf("UpdateJob of a job not read from the queue: %v", err)
	}
}

// TestJobUnusableKey: with the user's key unusable (readable by others),
// no job is queued — the error names the key — and a queued job is
// listed as refused, not rewritten: once the key is usable again, the
// job is authentic and runs as before.
func TestJobUnusableKey(t *testing.T) {
	e := newEnv(t)
	s := e.open(t, Options{})
	j, err := s.QueueJob(Job{Event: "SessionEnd", Session: "sess-a", Transcript: "/t/a.jsonl", Size: 10, Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	kp := AuthKeyPath(s.Home())
	if err := os.Chmod(kp, 0o644); err != nil {
		t.Fatal(err)
	}
	s = e.open(t, Options{}) // a new Store reads the key again
	if _, err := s.QueueJob(Job{Event: "SessionEnd", Session: "sess-b", Transcript: "/t/b.jsonl", Size: 10}); !errors.Is(err, ErrAuthKey) {
		t.Fatalf("QueueJob with an unusable key: %v, want ErrAuthKey", err)
	}
	jobs, err := s.Jobs()
	if err != nil || len(jobs) != 1 || !jobs[0].Failed || !strings.Contains(jobs[0].LastError, "cannot be checked") {
		t.Fatalf("jobs with an unusable key: %+v, %v", jobs, err)
	}
	if err := os.Chmod(kp, 0o600); err != nil {
		t.Fatal(err)
	}
	jobs, err = e.open(t, Options{}).Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Failed || jobs[0].Path != j.Path {
		t.Fatalf("jobs once the key is usable again: %+v, %v", jobs, err)
	}
}
