package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/store"
)

// victimMarker is a phrase only the other project's session holds.
const victimMarker = "PAYROLL-LEDGER-7731"

const victimSession = "0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e"

// victimTranscript writes a session of another project of the user (its
// transcript under ~/.claude/projects, holding victimMarker) and returns
// the project and the transcript's path.
func (e *env) victimTranscript() (project, path string) {
	e.t.Helper()
	project = filepath.Join(filepath.Dir(e.project), "payroll")
	if err := os.MkdirAll(project, 0o700); err != nil {
		e.t.Fatal(err)
	}
	data, err := os.ReadFile("../testdata/demo/claude-session.jsonl")
	if err != nil {
		e.t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/dev/cart-service"), []byte(project))
	data = bytes.ReplaceAll(data, []byte(demoSession), []byte(victimSession))
	data = bytes.ReplaceAll(data, []byte("The cart total is wrong"), []byte(victimMarker+": the cart total is wrong"))
	path = filepath.Join(e.home, ".claude", "projects", archive.ProjectDirName(project), victimSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return project, path
}

// plantJob writes data as a job file of session into the queue of st, as
// a repository brings it along.
func plantJob(t *testing.T, st *store.Store, session string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(st.PendingDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(st.PendingDir(), "job-"+session+"-1764180000000000000-4242"+store.PendingExt)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// editJob decodes the job file p as JSON, applies edit and returns the
// result: a job changed after its MAC was computed.
func editJob(t *testing.T, p string, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnauthenticatedJobsRefused: a job this user's hooks did not write
// for this project — no MAC, a forged one, one MAC'd for another project
// or under another user's key, one edited after its MAC — is never run
// by the worker, however often it runs: nothing is saved or snapshotted,
// the job file is left exactly as it was, and it is listed as failed with
// the reason. No command or hook sees it as work to resume.
func TestUnauthenticatedJobsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event string
		// plant returns the job file's content for the store of the
		// project (e: the test's world, victim: the other project's
		// transcript).
		plant func(t *testing.T, e *env, victimProject, victim string) []byte
	}{
		{"no MAC", "SessionEnd", func(t *testing.T, e *env, _, victim string) []byte {
			return mustJSON(t, store.Job{Event: "SessionEnd", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now})
		}},
		{"forged MAC", "PreCompact", func(t *testing.T, e *env, _, victim string) []byte {
			return mustJSON(t, store.Job{Event: "PreCompact", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now,
				MAC: strings.Repeat("ab", 32)})
		}},
		{"MAC'd for another project", "PreCompact", func(t *testing.T, e *env, victimProject, victim string) []byte {
			// The user's own job, queued in the other project's store.
			other, err := store.Open(victimProject, store.Options{Home: e.home})
			if err != nil {
				t.Fatal(err)
			}
			j, err := other.QueueJob(store.Job{Event: "PreCompact", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(j.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := other.FinishJob(j); err != nil {
				t.Fatal(err)
			}
			return data
		}},
		{"another user's key", "SessionEnd", func(t *testing.T, e *env, _, victim string) []byte {
			otherHome := filepath.Join(filepath.Dir(e.home), "mallory")
			st, err := store.Open(e.project, store.Options{Home: otherHome})
			if err != nil {
				t.Fatal(err)
			}
			j, err := st.QueueJob(store.Job{Event: "SessionEnd", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(j.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(j.Path); err != nil {
				t.Fatal(err)
			}
			return data
		}},
		{"transcript changed after the MAC", "PreCompact", func(t *testing.T, e *env, _, victim string) []byte {
			return e.ownJob(t, "PreCompact", false, func(m map[string]any) { m["transcript"] = victim })
		}},
		{"session changed after the MAC", "SessionEnd", func(t *testing.T, e *env, _, _ string) []byte {
			return e.ownJob(t, "SessionEnd", false, func(m map[string]any) { m["session"] = victimSession })
		}},
		{"size changed after the MAC", "PreCompact", func(t *testing.T, e *env, _, _ string) []byte {
			return e.ownJob(t, "SessionEnd", false, func(m map[string]any) { m["size"] = 12 })
		}},
		{"failed job revived", "SessionEnd", func(t *testing.T, e *env, _, _ string) []byte {
			return e.ownJob(t, "SessionEnd", true, func(m map[string]any) { m["failed"], m["attempts"] = false, 0 })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			victimProject, victim := e.victimTranscript()
			e.initStore()
			st, err := store.Open(e.project, store.Options{Home: e.home})
			if err != nil {
				t.Fatal(err)
			}
			data := tc.plant(t, e, victimProject, victim)
			p := plantJob(t, st, victimSession, data)
			if err := hooknote.RegisterProject(e.home, st.ProjectDir()); err != nil {
				t.Fatal(err)
			}
			h := e.handler()
			if h.due() {
				t.Error("the planted job counts as work to do")
			}
			if err := h.Resume(t.Context(), e.store()); err != nil || len(e.spawned) != 0 {
				t.Errorf("resuming the queue started %d workers (%v)", len(e.spawned), err)
			}
			for range store.MaxJobAttempts + 1 {
				if _, err := h.Work(t.Context()); err != nil {
					t.Fatalf("worker: %v", err)
				}
				e.now = e.now.Add(2 * time.Hour)
			}
			if len(e.snaps.requests) != 0 || len(e.snaps.snaps) != 0 {
				t.Fatalf("the job was run: %+v", e.snaps.requests)
			}
			if _, err := os.Stat(e.store().CurrentPath()); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the job saved a context: %v", err)
			}
			if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, data) {
				t.Fatalf("the job file was rewritten (%v):\n%s", err, now)
			}
			jobs, err := e.store().Jobs()
			if err != nil || len(jobs) != 1 {
				t.Fatalf("jobs: %+v, %v", jobs, err)
			}
			if j := jobs[0]; !j.Failed || !strings.Contains(j.LastError, store.ErrJobRefused.Error()) || j.Path != p {
				t.Fatalf("the refused job is listed as %+v", j)
			}
			if err := e.store().UpdateJob(jobs[0]); !errors.Is(err, store.ErrJobRefused) {
				t.Fatalf("UpdateJob of a refused job: %v, want ErrJobRefused", err)
			}
		})
	}
}

// ownJob queues a job of event for the project's own session as its hook
// does (authenticated; failed: as after store.MaxJobAttempts failures),
// removes it from the queue and returns its file edited by edit.
func (e *env) ownJob(t *testing.T, event string, failed bool, edit func(m map[string]any)) []byte {
	t.Helper()
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	tp := e.transcript(demoSession, 0)
	fi, err := os.Stat(tp)
	if err != nil {
		t.Fatal(err)
	}
	j := store.Job{Event: event, Session: demoSession, Transcript: tp, Size: fi.Size(), Time: e.now}
	if failed {
		j.Attempts, j.LastError, j.Failed = store.MaxJobAttempts, "disk full", true
	}
	j, err = st.QueueJob(j)
	if err != nil {
		t.Fatal(err)
	}
	data := editJob(t, j.Path, edit)
	if err := st.FinishJob(j); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestClonedRepositoryPlantedJobs: a cloned repository's store brings
// jobs naming another project's session (its transcript under
// ~/.claude/projects) — one with no MAC, one the user's own hook MAC'd in
// that other project and copied here. The user's own sessions in the
// repository are saved and snapshotted as usual by the real snapshot
// layer, and nothing of the other session reaches the repository: no
// file in it (archives opened and their transcripts read) holds the
// other session's content or id.
func TestClonedRepositoryPlantedJobs(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	victimProject, victim := e.victimTranscript()
	e.initStore()
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.Open(victimProject, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	j, err := other.QueueJob(store.Job{Event: "SessionEnd", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now})
	if err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile(j.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.FinishJob(j); err != nil {
		t.Fatal(err)
	}
	plantJob(t, st, victimSession, copied)
	plantJob(t, st, "planted", mustJSON(t, store.Job{Event: "PreCompact", Session: victimSession, Transcript: victim, Size: 1 << 20, Time: e.now}))

	// The user's own session in the repository: PreCompact, then
	// SessionEnd, done by one worker with the real snapshot layer.
	tp := e.transcript(demoSession, boundaryLine(t))
	h := e.handler()
	h.Snapshots = nil
	for _, ev := range []struct {
		name string
		in   map[string]any
	}{
		{"PreCompact", map[string]any{"trigger": "manual"}},
		{"SessionEnd", map[string]any{"reason": "logout"}},
	} {
		ev.in["cwd"], ev.in["hook_event_name"], ev.in["session_id"], ev.in["transcript_path"] = e.project, ev.name, demoSession, tp
		var so, se bytes.Buffer
		if h.Run(t.Context(), "", bytes.NewReader(mustJSON(t, ev.in)), &so, &se); se.Len() > 0 {
			t.Fatalf("%s: %s", ev.name, se.String())
		}
	}
	if _, err := h.Work(t.Context()); err != nil {
		t.Fatalf("worker: %v", err)
	}

	m, err := e.store().ReadMeta()
	if err != nil || m.SessionID != demoSession {
		t.Fatalf("the user's own session was not saved: %+v, %v", m, err)
	}
	jobs, err := e.store().Jobs()
	if err != nil || len(jobs) != 2 {
		t.Errorf("jobs left: %+v, %v (want the 2 planted ones)", jobs, err)
	}
	for _, j := range jobs {
		if !j.Failed || !strings.Contains(j.LastError, store.ErrJobRefused.Error()) {
			t.Errorf("planted job %+v not refused", j)
		}
	}
	archives := 0
	err = filepath.WalkDir(e.project, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.project, p)
		if strings.HasPrefix(rel, filepath.Join(".claude", "context", "pending")+string(filepath.Separator)) {
			return nil // the planted jobs themselves
		}
		if bytes.Contains(data, []byte(victimMarker)) || bytes.Contains(data, []byte(victimSession)) {
			t.Errorf("%s holds the other project's session", rel)
		}
		if strings.HasSuffix(p, ".ctx") {
			archives++
			a, err := archive.OpenFile(p, archive.OpenOptions{})
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			defer a.Close()
			raw, err := a.RawFiles()
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			}
			for _, f := range raw {
				if bytes.Contains(f.Data, []byte(victimMarker)) || bytes.Contains(f.Data, []byte(victimSession)) {
					t.Errorf("%s holds the other project's transcript (%s)", rel, f.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if archives < 2 {
		t.Fatalf("%d archives in the repository, want the snapshot and the final save of the user's own session", archives)
	}
}
