package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// bigDemo is the demo session (the world's project in its paths)
// repeated to size bytes with fresh ids.
func (w *hookWorld) bigDemo(size int64) []byte {
	w.t.Helper()
	full, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		w.t.Fatal(err)
	}
	return benchdata.Repeat(bytes.ReplaceAll(full, []byte("/home/dev/cart-service"), []byte(w.project)), size)
}

// workerLock is the user's worker lock file.
func (w *hookWorld) workerLock() string {
	return filepath.Join(w.home, ".claude-code", "work", "worker.lock")
}

// workerRunning reports whether a worker holds the user's lock.
func (w *hookWorld) workerRunning() bool {
	unlock, err := store.LockFile(w.workerLock(), 0)
	if errors.Is(err, store.ErrFileLockTimeout) {
		return true
	}
	if err == nil {
		unlock()
	}
	return false
}

// jobs lists the project's queued jobs.
func (w *hookWorld) jobs() []store.Job {
	w.t.Helper()
	st, err := store.Open(w.project, store.Options{Home: w.home, ReadOnly: true})
	if err != nil {
		w.t.Fatal(err)
	}
	js, err := st.Jobs()
	if err != nil {
		w.t.Fatal(err)
	}
	return js
}

// waitWorkDone waits until the project's queue is empty and no worker
// runs (the worker is detached: nothing else says when it is done). It
// fails the test after a generous deadline: a stuck worker, not a slow one.
func (w *hookWorld) waitWorkDone() {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for len(w.jobs()) > 0 || w.workerRunning() || processesWithHome(w.home) {
		if time.Now().After(deadline) {
			w.t.Fatalf("the worker did not finish: jobs %+v", w.jobs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWorkE2EKilledWorkerResumes: a worker killed in the middle of a
// snapshot leaves its job queued (and no half-written snapshot in the
// index); the next command that opens the store gets it done.
func TestWorkE2EKilledWorkerResumes(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeConfig("context:\n  compaction_snapshots:\n    compression_level: 19\n")
	w.writeTranscript(w.bigDemo(8 << 20))
	w.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_WORK=defer")
	if js := w.jobs(); len(js) != 1 || js[0].Event != "PreCompact" {
		t.Fatalf("queued jobs: %+v", js)
	}
	env := append(os.Environ(), append(w.env, "BEN10_HOOK_WORK=background")...)
	cmd := exec.Command(ben10Bin, "internal", "work")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for !w.workerRunning() {
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	st, err := store.Open(w.project, store.Options{Home: w.home, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := snapshot.NewManager(st, nil)
	if _, done, _ := m.LatestForSession(demoSessionID); !done && len(w.jobs()) != 1 {
		t.Fatalf("killed worker: no snapshot and the job is gone: %+v", w.jobs())
	}
	// Any command that opens the store resumes the queue.
	if r := runBen10(t, nil, w.env, "context", "compaction", "list", "--dir", w.project); r.code != 0 {
		t.Fatalf("compaction list: exit %d\n%s", r.code, r.stderr)
	}
	if js := w.jobs(); len(js) != 0 {
		t.Fatalf("jobs left after the resumed worker: %+v", js)
	}
	s, ok, err := m.LatestForSession(demoSessionID)
	if err != nil || !ok || s.PreCompaction.MessageCount == 0 || s.Level != ctxfmt.LevelFromZstd(19).String() {
		t.Fatalf("snapshot after resume: %+v, %v, %v", s, ok, err)
	}
	if err := ctxfmt.VerifyFile(m.Path(s), ctxfmt.VerifyOptions{Deep: true}); err != nil {
		t.Fatalf("snapshot does not verify: %v", err)
	}
}

// TestWorkE2EConcurrentSessionEnds is issue 13 item 8: eight sessions of
// one project end at once on large transcripts; every SessionEnd hook
// only takes note and starts the (single) worker; once it is done, the
// eight final saves are all recorded (current.ctx and history/).
func TestWorkE2EConcurrentSessionEnds(t *testing.T) {
	t.Parallel()
	const sessions = 8
	size := int64(20 << 20)
	if testing.Short() {
		size = 1 << 20
	}
	w := newHookWorld(t, demoSessionID)
	w.writeConfig("context:\n  history_retention_count: 20\n")
	data := w.bigDemo(size)
	var ids []string
	for i := range sessions {
		id := fmt.Sprintf("%08x-1111-4222-8333-444455556666", i+1)
		ids = append(ids, id)
		if err := os.WriteFile(filepath.Join(filepath.Dir(w.transcript), id+".jsonl"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := append([]string(nil), w.env...)
	env = append(env, "BEN10_HOOK_WORK=background")
	var wg sync.WaitGroup
	errs := make([]string, sessions)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, _ := json.Marshal(map[string]any{"session_id": id, "transcript_path": filepath.Join(filepath.Dir(w.transcript), id+".jsonl"),
				"cwd": w.project, "hook_event_name": "SessionEnd", "reason": "logout"})
			if r := runBen10(t, in, env, "hook", "session-end"); r.code != 0 || r.stderr != "" {
				errs[i] = fmt.Sprintf("exit %d, stderr %q", r.code, r.stderr)
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("SessionEnd %d: %s", i, e)
		}
	}
	w.waitWorkDone()
	st, err := store.Open(w.project, store.Options{Home: w.home, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	if m, err := st.ReadMeta(); err == nil {
		saved = append(saved, m.SessionID)
	}
	hs, err := st.History()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		data, err := os.ReadFile(h.Path + ".meta")
		var m store.Meta
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			t.Fatalf("%s: %v", h.Path, err)
		}
		saved = append(saved, m.SessionID)
	}
	sort.Strings(saved)
	if fmt.Sprint(saved) != fmt.Sprint(ids) {
		t.Fatalf("final saves recorded for %v, want %v", saved, ids)
	}
	for _, project := range hooknote.QueuedProjects(w.home) {
		st, err := store.Open(project, store.Options{Home: w.home, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if jobs, _ := st.Jobs(); len(jobs) != 0 {
			t.Fatalf("the worker left %d jobs queued in %s", len(jobs), project)
		}
	}
}

// processesWithHome reports whether a process other than this one runs
// with home in its environment: the worker keeps indexing what it wrote
// after it released the worker lock. It reads /proc and finds nothing
// where there is none.
func processesWithHome(home string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, []byte("HOME="+home+"\x00")) {
			return true
		}
	}
	return false
}
