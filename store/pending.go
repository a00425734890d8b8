package store

import (
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PendingExt ends the name of every pending file.
const PendingExt = ".pending"

// Pending is data a writer could not apply because the store lock was busy.
// It waits in <root>/pending/ until a lock holder merges it.
type Pending struct {
	Kind    string    // what the data is, chosen by the writer (e.g. "snapshot", "checkpoint")
	Session string    // the writer's session id (sanitized)
	Created time.Time // when it was written
	PID     int       // the writing process
	Path    string    // the pending file
	Size    int64     // bytes
}

// WritePending stores data for a later locked operation to merge, for a
// writer that could not take the lock in time. It needs no lock: the file
// name is unique per process and nanosecond, and it is written atomically,
// so a merger never sees a partial file. kind must be a non-empty word of
// letters, digits, '_' or '.'; session is sanitized to those characters and '-'.
func (s *Store) WritePending(kind, session string, data []byte) (string, error) {
	if kind == "" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != "" {
		return "", fmt.Errorf("store: invalid pending kind %q (letters, digits, '_' and '.' only)", kind)
	}
	if err := s.EnsureDir(s.PendingDir()); err != nil {
		return "", err
	}
	// Unique per process and nanosecond; a clock that repeats itself (a
	// test's) moves on to the next free nanosecond.
	var path string
	for n := s.now().UnixNano(); ; n++ {
		path = filepath.Join(s.PendingDir(), fmt.Sprintf("%s-%s-%d-%d%s", kind, sanitizeName(session, 64), n, os.Getpid(), PendingExt))
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err := WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// TakePending lists the pending files, oldest first. It requires the lock.
// Files stay in place until DonePending, so a merger that crashes half-way
// leaves them for the next one: nothing pended is ever lost. A merge must
// therefore be idempotent (e.g. keyed by the data's hash).
func (s *Store) TakePending() ([]Pending, error) {
	if err := s.requireLock("store: TakePending"); err != nil {
		return nil, err
	}
	return s.listPending("")
}

// listPending lists the pending files of kind ("" = of every kind),
// oldest first.
func (s *Store) listPending(kind string) ([]Pending, error) {
	entries, err := os.ReadDir(s.PendingDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("store: listing pending files: %w", err)
	}
	var out []Pending
	for _, e := range entries {
		p, ok := parsePendingName(e.Name())
		if !ok || (kind != "" && p.Kind != kind) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		p.Path = filepath.Join(s.PendingDir(), e.Name())
		p.Size = info.Size()
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// ReadPending returns a pending file's data.
func (s *Store) ReadPending(p Pending) ([]byte, error) {
	f, err := OpenFileRegular(p.Path)
	if err != nil {
		return nil, fmt.Errorf("store: reading pending %s: %w", p.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("store: reading pending %s: %w", p.Path, err)
	}
	return data, nil
}

// DonePending removes a pending file after its data has been merged
// durably. It requires the lock.
func (s *Store) DonePending(p Pending) error {
	if err := s.requireLock("store: DonePending"); err != nil {
		return err
	}
	return s.removePending(p.Path, "pending file")
}

// removePending removes path, a pending file (what it is: "pending
// file", "job"), durably.
func (s *Store) removePending(path, what string) error {
	if filepath.Dir(path) != s.PendingDir() {
		return fmt.Errorf("store: %s is not a %s of this store", path, what)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: removing %s %s: %w", what, path, err)
	}
	return SyncDir(s.PendingDir())
}

// parsePendingName parses <kind>-<session>-<nanos>-<pid>.pending.
func parsePendingName(name string) (Pending, bool) {
	if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, PendingExt) {
		return Pending{}, false
	}
	base := strings.TrimSuffix(name, PendingExt)
	i := strings.IndexByte(base, '-')
	if i <= 0 {
		return Pending{}, false
	}
	kind, rest := base[:i], base[i+1:]
	j := strings.LastIndexByte(rest, '-')
	if j < 0 {
		return Pending{}, false
	}
	pid, err := strconv.Atoi(rest[j+1:])
	if err != nil {
		return Pending{}, false
	}
	rest = rest[:j]
	k := strings.LastIndexByte(rest, '-')
	if k < 0 {
		return Pending{}, false
	}
	nanos, err := strconv.ParseInt(rest[k+1:], 10, 64)
	if err != nil {
		return Pending{}, false
	}
	return Pending{Kind: kind, Session: rest[:k], Created: time.Unix(0, nanos).UTC(), PID: pid}, true
}

// sanitizeName keeps letters, digits, '_', '.' and '-', replaces anything else
// with '_' and cuts the result to max bytes; an empty result becomes "none".
func sanitizeName(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// JobKind is the pending kind of a queued job (see QueueJob).
const JobKind = "job"

// maxJobBytes bounds a job file read from the store (untrusted input).
const maxJobBytes = 64 << 10

// Job is work a hook took note of instead of doing it while Claude Code
// waited: a final save at SessionEnd, a snapshot at PreCompact. It holds
// no conversation content, only where to find it. Jobs wait in
// <root>/pending/ until a worker has done them; a worker that dies leaves
// them there for the next one.
type Job struct {
	// Event is the hook event that queued the job ("SessionEnd",
	// "PreCompact").
	Event string `json:"event"`
	// Trigger is PreCompact's trigger ("auto", "manual"), or SessionEnd's
	// reason.
	Trigger    string `json:"trigger,omitempty"`
	Session    string `json:"session"`
	Transcript string `json:"transcript"`
	// Size is the transcript's size at the event: what a PreCompact job
	// snapshots (an append-only transcript keeps those bytes).
	Size int64 `json:"size"`
	// Head is the SHA-256 (hex) of the transcript's first bytes at the
	// event (up to 64 KiB): a file whose first bytes changed since was
	// rewritten.
	Head string    `json:"head,omitempty"`
	Cwd  string    `json:"cwd,omitempty"`
	Time time.Time `json:"time"`
	// Attempts counts the runs that failed; LastError is the last
	// failure; NextTry is when a worker may try again.
	Attempts  int       `json:"attempts,omitempty"`
	LastError string    `json:"last_error,omitempty"`
	NextTry   time.Time `json:"next_try,omitzero"`
	// Failed: the job failed MaxJobAttempts times, or its file cannot be
	// read or is not authenticated (see Jobs). It is kept but not retried
	// automatically.
	Failed bool `json:"failed,omitempty"`
	// MAC authenticates the job (see jobMAC): the hexadecimal HMAC under
	// the user's key of the project and every field above.
	MAC string `json:"mac,omitempty"`

	// Path is the job's file (set by Jobs and QueueJob, not stored).
	Path string `json:"-"`
	// authentic: the job was read with a valid MAC, or written by
	// QueueJob (set by Jobs and QueueJob, not stored).
	authentic bool
}

// jobDomain separates a job's MAC from every other use of the user's key.
const jobDomain = "ben10 job v1"

// ErrJobRefused: a queued job is not authenticated by this user's key —
// not written by this user's hooks (a job file a repository brought
// along, one copied from another project or another user, or one edited
// since). Such a job is listed as Failed, never run.
var ErrJobRefused = errors.New("not written by this user's hooks: refused")

// jobMAC is the MAC of j under key for the store of project: every
// stored field of Job but the MAC, in order, each length-prefixed (see
// AuthSum). A field added to Job must be added here (a test checks that
// each one changes the MAC).
func jobMAC(key []byte, project string, j Job) string {
	t := func(t time.Time) []byte {
		if t.IsZero() {
			return nil
		}
		return []byte(t.UTC().Format(time.RFC3339Nano))
	}
	n := func(v int64) []byte { return strconv.AppendInt(nil, v, 10) }
	return hex.EncodeToString(AuthSum(key, jobDomain, []byte(project),
		[]byte(j.Event), []byte(j.Trigger), []byte(j.Session), []byte(j.Transcript), n(j.Size), []byte(j.Head),
		[]byte(j.Cwd), t(j.Time), n(int64(j.Attempts)), []byte(j.LastError), t(j.NextTry), []byte(strconv.FormatBool(j.Failed))))
}

// verifyJob reports why j is not authentic for this store (nil: it is).
func (s *Store) verifyJob(j Job) error {
	key, err := s.authKey()
	if err != nil {
		return fmt.Errorf("%w (it cannot be checked: %w)", ErrJobRefused, err)
	}
	if j.MAC == "" || !hmac.Equal([]byte(j.MAC), []byte(jobMAC(key, s.ProjectDir(), j))) {
		return fmt.Errorf("%w (no valid MAC for this project under this user's key)", ErrJobRefused)
	}
	return nil
}

// signJob sets j's MAC under the user's key.
func (s *Store) signJob(j *Job) error {
	key, err := s.authKey()
	if err != nil {
		return err
	}
	j.MAC = jobMAC(key, s.ProjectDir(), *j)
	j.authentic = true
	return nil
}

// MaxJobAttempts is how many failed runs make a job Failed.
const MaxJobAttempts = 5

// QueueJob writes j into the store's queue (pending/, atomically; no lock
// needed), authenticated under the user's key (read, or created, at the
// Store's first job), and returns it with its Path and MAC set.
func (s *Store) QueueJob(j Job) (Job, error) {
	if err := s.signJob(&j); err != nil {
		return j, fmt.Errorf("store: queueing %s job of session %s: %w", j.Event, j.Session, err)
	}
	data, err := json.Marshal(j)
	if err != nil {
		return j, fmt.Errorf("store: encoding job: %w", err)
	}
	p, err := s.WritePending(JobKind, j.Session, data)
	if err != nil {
		return j, fmt.Errorf("store: queueing %s job of session %s: %w", j.Event, j.Session, err)
	}
	j.Path = p
	return j, nil
}

// Jobs lists the queued jobs, oldest first. It takes no lock: jobs are
// written atomically and removed only by the worker that did them. A job
// file that cannot be read or decoded, or whose MAC this user's key does
// not verify for this project (ErrJobRefused), is returned as a Failed
// job with LastError saying why: it is kept for the user to see, never
// run. The user's key is read only when there is a job to verify.
func (s *Store) Jobs() ([]Job, error) { return s.jobs("") }

// SessionJobs is Jobs for the jobs of session only: it reads only their
// files (named after the session), however many other job files the
// queue holds — what a hook needs, in a store that may be untrusted.
func (s *Store) SessionJobs(session string) ([]Job, error) {
	if session == "" {
		return nil, nil
	}
	return s.jobs(session)
}

// jobs lists the queued jobs, of session when it is not "".
func (s *Store) jobs(session string) ([]Job, error) {
	ps, err := s.listPending(JobKind)
	if err != nil {
		return nil, err
	}
	name := sanitizeName(session, 64)
	out := make([]Job, 0, len(ps))
	for _, p := range ps {
		if session != "" && p.Session != name {
			continue
		}
		var j Job
		data, err := ReadFileBounded(p.Path, maxJobBytes)
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err != nil {
			j = Job{Session: p.Session, Time: p.Created, Failed: true, LastError: fmt.Sprintf("unreadable job file: %v", err)}
		} else if err = s.verifyJob(j); err != nil {
			j.Failed, j.LastError = true, err.Error()
		} else {
			j.authentic = true
		}
		j.Path = p.Path
		out = append(out, j)
	}
	return out, nil
}

// UpdateJob rewrites a queued job (its attempts, error, next try)
// atomically in place, with its MAC computed again. Only a job Jobs or
// QueueJob returned as authentic can be rewritten: a refused job is
// never given a valid MAC.
func (s *Store) UpdateJob(j Job) error {
	if filepath.Dir(j.Path) != s.PendingDir() {
		return fmt.Errorf("store: %s is not a job of this store", j.Path)
	}
	if !j.authentic {
		return fmt.Errorf("store: updating job %s: %w", j.Path, ErrJobRefused)
	}
	if err := s.signJob(&j); err != nil {
		return fmt.Errorf("store: updating job %s: %w", j.Path, err)
	}
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("store: encoding job: %w", err)
	}
	if err := WriteFileAtomic(j.Path, data); err != nil {
		return fmt.Errorf("store: updating job %s: %w", j.Path, err)
	}
	return nil
}

// FinishJob removes a job once its work is durably done.
func (s *Store) FinishJob(j Job) error {
	return s.removePending(j.Path, "job")
}
