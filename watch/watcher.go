package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

// settle is how long the watcher waits after a file event for more
// events before it evaluates the changed sessions.
const settle = 100 * time.Millisecond

// errorBackoff: after a failed export, the session is not retried for
// this long.
const errorBackoff = time.Minute

// Options configure a Watcher. The zero value watches every enabled
// assistant of the user's home with ~/.claude-code/watch.yaml.
type Options struct {
	Home       string // "" = store.HomeDir()
	ConfigPath string // "" = ConfigPath(Home)
	StatePath  string // "" = StatePath(Home)
	// Only restricts the watcher to these assistants (--llm).
	Only []archive.Harness
	// DryRun evaluates and reports but exports nothing.
	DryRun bool
	// PollInterval, when positive, overrides global.poll_interval_seconds.
	PollInterval time.Duration
	// Log receives one line per export, warning and error (and per
	// evaluation when Verbose); nil discards.
	Log     io.Writer
	Verbose bool
	// Preserver exports; nil = &StorePreserver{Home: Home}.
	Preserver Preserver
	// NoNotify disables fsnotify (polling only).
	NoNotify bool
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// Event is one thing the watcher did or decided.
type Event struct {
	Time    time.Time `json:"time"`
	LLM     string    `json:"llm"`
	Session string    `json:"session"`
	Path    string    `json:"path"`
	Percent *float64  `json:"context_percent,omitempty"`
	// Action: evaluate, warn, archive, snapshot, would-archive,
	// would-snapshot, blocked, error.
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

// Watcher watches the assistants' session files and exports sessions
// when their triggers fire.
type Watcher struct {
	opts    Options
	home    string
	pres    Preserver
	now     func() time.Time
	reload  chan struct{}
	ctx     context.Context // Run's: cancels a preservation under way
	mu      sync.Mutex      // guards the fields below
	cfg     *Config
	state   *State
	tracked map[string]*tracked
	events  []Event
	fsw     *fsnotify.Watcher
	watched map[string]bool
	started time.Time
	// lastState is the state last written (without its time stamps) and
	// lastWrite when: an unchanged state is rewritten only as a heartbeat.
	lastState []byte
	lastWrite time.Time
}

// tracked is a known session and what the watcher saw of it last.
type tracked struct {
	*Session
	modTime  time.Time
	size     int64
	evalMod  time.Time
	evalSize int64
	retry    time.Time
}

// New loads the configuration and the state file. A configuration file
// that cannot be parsed is an error (wrapping ErrConfig); invalid entries
// only disable their assistant (see Config.Problems). A damaged state file
// is moved aside (…json.damaged) and the watcher starts afresh.
func New(opts Options) (*Watcher, error) {
	w := &Watcher{opts: opts, reload: make(chan struct{}, 1), tracked: map[string]*tracked{}, watched: map[string]bool{}}
	w.now = opts.Now
	if w.now == nil {
		w.now = time.Now
	}
	w.home = opts.Home
	if w.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		w.home = h
	}
	if w.opts.ConfigPath == "" {
		w.opts.ConfigPath = ConfigPath(w.home)
	}
	if w.opts.StatePath == "" {
		w.opts.StatePath = StatePath(w.home)
	}
	w.opts.Only = nil // normalized: "claude-code" is claude
	for _, h := range opts.Only {
		hh, err := transcript.ParseHarness(string(h))
		if err != nil {
			return nil, fmt.Errorf("watch: --llm: %w", err)
		}
		w.opts.Only = append(w.opts.Only, hh)
	}
	w.pres = opts.Preserver
	if w.pres == nil {
		w.pres = &StorePreserver{Home: w.home}
	}
	cfg, err := LoadConfig(w.opts.ConfigPath, w.home)
	if err != nil {
		return nil, err
	}
	w.cfg = cfg
	st, err := ReadState(w.opts.StatePath)
	if errors.Is(err, ErrBadState) {
		_ = os.Rename(w.opts.StatePath, w.opts.StatePath+".damaged")
		w.logf("state file damaged, moved to %s.damaged: %v", w.opts.StatePath, err)
		st, err = NewState(), nil
	}
	if err != nil {
		return nil, err
	}
	w.state = st
	w.applyConfig()
	return w, nil
}

// enabled reports whether l is watched (enabled and selected by Only).
func (w *Watcher) enabled(l *LLMConfig) bool {
	return l.Enabled && (len(w.opts.Only) == 0 || slices.Contains(w.opts.Only, l.Name))
}

// applyConfig records each assistant's status in the state and logs the
// configuration's problems.
func (w *Watcher) applyConfig() {
	for _, p := range w.cfg.Problems {
		w.logf("config: %s", p)
	}
	for _, l := range w.cfg.LLMs {
		ls := w.state.llm(string(l.Name))
		ls.Enabled, ls.Disabled = w.enabled(l), l.Disabled
		if !l.Enabled && l.Disabled == "" {
			ls.Disabled = "enabled: false"
		} else if l.Enabled && !ls.Enabled {
			ls.Disabled = "not selected by --llm"
		}
	}
	w.state.Config = w.cfg.Path
}

// pollInterval is the effective polling period.
func (w *Watcher) pollInterval() time.Duration {
	if w.opts.PollInterval > 0 {
		return w.opts.PollInterval
	}
	return w.cfg.PollInterval
}

// Reload asks a running watcher to re-read its configuration (SIGHUP).
func (w *Watcher) Reload() {
	select {
	case w.reload <- struct{}{}:
	default:
	}
}

func (w *Watcher) doReload() {
	cfg, err := LoadConfig(w.opts.ConfigPath, w.home)
	if err != nil {
		w.logf("reload: %v (keeping the previous configuration)", err)
		return
	}
	w.mu.Lock()
	w.cfg = cfg
	w.applyConfig()
	w.mu.Unlock()
	w.logf("configuration reloaded from %s: watching %s", w.opts.ConfigPath, strings.Join(w.watchedNames(), ", "))
}

func (w *Watcher) watchedNames() []string {
	var out []string
	for _, l := range w.cfg.LLMs {
		if w.enabled(l) {
			out = append(out, string(l.Name))
		}
	}
	if len(out) == 0 {
		out = []string{"nothing"}
	}
	return out
}

func (w *Watcher) logf(format string, args ...any) {
	if w.opts.Log == nil {
		return
	}
	fmt.Fprintf(w.opts.Log, "%s ben10 watch: %s\n", w.now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Once scans and evaluates every session once, saves the state (unless
// DryRun) and returns what happened.
func (w *Watcher) Once() ([]Event, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if w.started.IsZero() {
		w.started = now
	}
	w.scan(now)
	w.evaluateAll(now)
	ev := w.events
	w.events = nil
	return ev, w.saveState(now, true)
}

// Run watches until ctx is done, then saves the state and returns nil.
// It uses fsnotify for new and growing files (unless NoNotify or it is
// unavailable) and polls every PollInterval in any case.
func (w *Watcher) Run(ctx context.Context) error {
	w.mu.Lock()
	w.ctx = ctx
	now := w.now()
	w.started = now
	w.state.StartedAt, w.state.PID, w.state.Running, w.state.DryRun = now, os.Getpid(), true, w.opts.DryRun
	if !w.opts.NoNotify {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			w.logf("file notifications unavailable (%v): polling every %v", err, w.pollInterval())
		} else {
			w.fsw = fsw
		}
	}
	w.logf("watching %s (poll %v, config %s)", strings.Join(w.watchedNames(), ", "), w.pollInterval(), w.opts.ConfigPath)
	w.scan(now)
	w.evaluateAll(now)
	err := w.saveState(now, true)
	w.mu.Unlock()
	if err != nil {
		w.logf("%v", err)
	}
	var fsEvents <-chan fsnotify.Event
	var fsErrors <-chan error
	if w.fsw != nil {
		fsEvents, fsErrors = w.fsw.Events, w.fsw.Errors
		defer w.fsw.Close()
	}
	ticker := time.NewTicker(w.pollInterval())
	defer ticker.Stop()
	dirty := map[string]bool{}
	rescan := false
	var settleC <-chan time.Time
	var settleT *time.Timer
	arm := func() {
		if settleT == nil {
			settleT = time.NewTimer(settle)
			settleC = settleT.C
		}
	}
	for {
		select {
		case <-ctx.Done():
			w.mu.Lock()
			w.state.Running = false
			err := w.saveState(w.now(), true)
			w.mu.Unlock()
			w.logf("stopped")
			return err
		case <-w.reload:
			w.doReload()
			ticker.Reset(w.pollInterval())
			rescan = true
			arm()
		case <-ticker.C:
			w.mu.Lock()
			now := w.now()
			w.scan(now)
			w.evaluateAll(now)
			if err := w.saveState(now, false); err != nil {
				w.logf("%v", err)
			}
			w.mu.Unlock()
		case ev, ok := <-fsEvents:
			if !ok {
				fsEvents = nil
				continue
			}
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					rescan = true
				}
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
				dirty[ev.Name] = true
			}
			arm()
		case err, ok := <-fsErrors:
			if !ok {
				fsErrors = nil
				continue
			}
			// An overflow loses events: the next poll catches up.
			w.logf("file notifications: %v", err)
		case <-settleC:
			settleT, settleC = nil, nil
			w.mu.Lock()
			now := w.now()
			if rescan {
				w.scan(now)
				rescan = false
			}
			for p := range dirty {
				delete(dirty, p)
				if t := w.sessionOf(p); t != nil {
					w.evaluate(t, now)
				}
			}
			if err := w.saveState(now, false); err != nil {
				w.logf("%v", err)
			}
			w.mu.Unlock()
		}
	}
}

// scan expands every enabled assistant's globs, tracks new sessions,
// forgets vanished ones and watches the directories the globs walk.
func (w *Watcher) scan(now time.Time) {
	seen := map[string]bool{}
	for _, l := range w.cfg.LLMs {
		if !w.enabled(l) {
			continue
		}
		for _, pat := range l.SessionPaths {
			r := glob(expandHome(pat, w.home))
			for _, d := range r.dirs {
				w.watchDir(d)
			}
			for _, f := range r.files {
				if t := w.track(l.Name, f); t != nil {
					seen[t.Key()] = true
				}
			}
		}
	}
	for k := range w.tracked {
		if !seen[k] {
			delete(w.tracked, k)
		}
	}
}

func (w *Watcher) watchDir(d string) {
	if w.fsw == nil || w.watched[d] {
		return
	}
	if err := w.fsw.Add(d); err != nil {
		w.logf("cannot watch %s (%v): polling it", d, err)
	}
	w.watched[d] = true
}

// sessionOf maps a changed file to its tracked session, tracking a new
// one when the file matches an enabled assistant's glob.
func (w *Watcher) sessionOf(path string) *tracked {
	for _, t := range w.tracked {
		if slices.Contains(t.Files, path) {
			return t
		}
	}
	for _, l := range w.cfg.LLMs {
		if !w.enabled(l) {
			continue
		}
		for _, pat := range l.SessionPaths {
			if !matchGlob(expandHome(pat, w.home), path) {
				continue
			}
			if t := w.track(l.Name, path); t != nil {
				return t
			}
		}
	}
	return nil
}

// track returns the tracked session of a file matched for assistant h,
// tracking it (and watching its directory) the first time; nil when the
// file is not a session.
func (w *Watcher) track(h archive.Harness, path string) *tracked {
	s, ok := sessionFor(h, path)
	if !ok {
		return nil
	}
	t := w.tracked[s.Key()]
	if t == nil {
		t = &tracked{Session: s}
		w.tracked[s.Key()] = t
		w.watchDir(filepath.Dir(path))
	}
	return t
}

func (w *Watcher) evaluateAll(now time.Time) {
	for _, l := range w.cfg.LLMs {
		ls := w.state.llm(string(l.Name))
		ls.ActiveSessions = ls.ActiveSessions[:0]
	}
	for _, k := range slices.Sorted(maps.Keys(w.tracked)) {
		w.evaluate(w.tracked[k], now)
	}
}

func (w *Watcher) emit(e Event) {
	w.events = append(w.events, e)
	if len(w.events) > 10000 {
		w.events = w.events[len(w.events)-5000:]
	}
	pct := ""
	if e.Percent != nil {
		pct = fmt.Sprintf(" at %.1f%%", *e.Percent)
	}
	if e.Action == "evaluate" && !w.opts.Verbose {
		return
	}
	w.logf("%s %s %s%s: %s", e.LLM, e.Session[:min(len(e.Session), 8)], e.Action, pct, e.Detail)
}

// evaluate looks at one session and exports it when a trigger fires.
func (w *Watcher) evaluate(t *tracked, now time.Time) {
	l := w.cfg.LLM(t.Harness)
	if l == nil || !w.enabled(l) {
		return
	}
	var mod time.Time
	var size int64
	found := false
	for _, f := range t.Files {
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		found = true
		size += st.Size()
		if st.ModTime().After(mod) {
			mod = st.ModTime()
		}
	}
	if !found {
		delete(w.tracked, t.Key())
		return
	}
	t.modTime, t.size = mod, size
	ls := w.state.llm(string(l.Name))
	ss := ls.Sessions[t.ID]
	if now.Sub(mod) > w.cfg.ActiveWindow {
		if ss != nil {
			ss.LastModified, ss.Size = mod, size
		}
		return
	}
	if !slices.Contains(ls.ActiveSessions, t.ID) {
		ls.ActiveSessions = append(ls.ActiveSessions, t.ID)
	}
	if ss == nil {
		ss = &SessionState{FirstSeen: now}
		// Turns are counted from the moment the watcher first sees the
		// session, reading only what is appended afterwards.
		if st, err := os.Stat(t.TurnFile); err == nil {
			ss.Offset = st.Size()
		}
		ls.Sessions[t.ID] = ss
	}
	ss.Path, ss.LastModified, ss.Size = t.Path, mod, size
	if mod.Equal(t.evalMod) && size == t.evalSize {
		return
	}
	t.evalMod, t.evalSize = mod, size
	if w.restoredCopy(t, ss, now) {
		return
	}
	if now.Before(t.retry) {
		return
	}
	obs := Observation{Size: size, SizeAtExport: ss.SizeAtExport, LastExport: ss.LastExport,
		FirstSeen: ss.FirstSeen, LastSnapshot: ss.LastSnapshot}
	var pctp *float64
	used, window, err := transcript.ContextUsage(t.Path, t.Harness)
	switch {
	case err == nil && window > 0:
		pct := float64(used) * 100 / float64(window)
		obs.Percent, obs.HavePercent = pct, true
		pctp = &pct
		ss.ContextPercent, ss.ContextTokens, ss.ContextWindow = pctp, used, window
		ls.LastContextPercent = pctp
	case err != nil && !errors.Is(err, transcript.ErrNoUsage):
		ss.LastError = err.Error()
	}
	if n, next, err := countTurns(t.Harness, t.TurnFile, ss.Offset); err == nil {
		ss.TurnsSince += n
		ss.Offset = next
	}
	obs.Turns = ss.TurnsSince
	d := Decide(l, obs, now)
	ev := Event{Time: now, LLM: string(l.Name), Session: t.ID, Path: t.Path, Percent: pctp}
	ev.Action, ev.Detail = "evaluate", fmt.Sprintf("%d turns since export, %d bytes", obs.Turns, size)
	w.emit(ev)
	if d.Warn && !ss.Warned {
		ev.Action, ev.Detail = "warn", fmt.Sprintf("context at or above warn_percent %.0f%% (compaction at about %.0f%%)", l.Thresholds.WarnPercent, l.Thresholds.CompactionStartsAt)
		w.emit(ev)
	}
	ss.Warned = d.Warn
	ss.LastReasons, ss.LastBlocked = d.Reasons, d.Blocked
	if !d.Archive {
		if d.Blocked != "" && len(obs.reasonsIgnoringCooldown(l, now)) > 0 {
			ev.Action, ev.Detail = "blocked", d.Blocked
			if w.opts.Verbose {
				w.emit(ev)
			}
		}
		return
	}
	if w.opts.DryRun {
		ev.Action = "would-archive"
		if d.Snapshot {
			ev.Action = "would-snapshot"
		}
		ev.Detail = strings.Join(d.Reasons, "; ")
		w.emit(ev)
		return
	}
	res, err := w.pres.Preserve(Request{Session: t.Session, Snapshot: d.Snapshot, Cooldown: l.Cooldown,
		ContextTokens: used, Percent: obs.Percent, Now: now, Context: w.ctx})
	if err != nil {
		t.retry = now.Add(errorBackoff)
		ls.Errors++
		ls.LastError = fmt.Sprintf("%s: %v", t.ID, err)
		ss.LastError = err.Error()
		ev.Action, ev.Detail = "error", err.Error()
		w.emit(ev)
		return
	}
	ss.LastError = ""
	if res.SkippedArchive != "" {
		ss.Project = res.Project
		ls.SessionCooldowns[t.ID] = now.Add(l.Cooldown)
		ev.Action, ev.Detail = "skipped", res.SkippedArchive
		w.emit(ev)
		return
	}
	ss.Project, ss.LastArchive = res.Project, res.Archive
	ss.LastExport, ss.SizeAtExport, ss.TurnsSince = now, size, 0
	ss.Exports++
	ls.ExportsTriggered++
	ls.LastExport = now
	ls.SessionCooldowns[t.ID] = now.Add(l.Cooldown)
	w.state.GlobalStats.TotalExports++
	ev.Action = "archive"
	ev.Detail = fmt.Sprintf("%s → %s (%d bytes, %d reused)", strings.Join(d.Reasons, "; "), res.Archive, res.ArchiveBytes, res.CopiedBytes)
	w.emit(ev)
	if !res.LastSnapshot.IsZero() {
		ss.LastSnapshot, ss.SnapshotSource, ss.LastSnapshotID = res.LastSnapshot, res.LastSnapshotSource, res.LastSnapshotID
	}
	if s := res.Snapshot; s != nil {
		ss.Snapshots++
		ss.SnapshotPending = s.Pending
		ls.SnapshotsTaken++
		w.state.GlobalStats.TotalSnapshots++
		ev.Action = "snapshot"
		ev.Detail = fmt.Sprintf("%s → %s", s.ID, s.Path)
		if s.Pending {
			ev.Detail += " (pending: the store was locked)"
		}
		if s.Replaced != "" {
			ev.Detail += " (replaced " + s.Replaced + ")"
		}
		w.emit(ev)
	} else if res.SkippedSnapshot != "" {
		ev.Action, ev.Detail = "blocked", res.SkippedSnapshot
		w.emit(ev)
	}
}

// reasonsIgnoringCooldown tells whether any trigger would fire without
// cooldowns (to report a blocked trigger only when there was one).
func (o Observation) reasonsIgnoringCooldown(l *LLMConfig, now time.Time) []string {
	o.LastExport, o.LastSnapshot = time.Time{}, time.Time{}
	return Decide(l, o, now).Reasons
}

// heartbeat is how often an unchanged state is rewritten (its
// last_updated shows the watcher is alive): five poll intervals, at most a
// minute.
func (w *Watcher) heartbeat() time.Duration {
	return min(5*w.pollInterval(), time.Minute)
}

// saveState writes the state file when it changed, or as a heartbeat, or
// when force (start and stop); never in DryRun, which changes nothing on
// disk.
func (w *Watcher) saveState(now time.Time, force bool) error {
	if w.opts.DryRun {
		return nil
	}
	w.state.prune(now)
	w.state.Version = StateVersion
	w.state.LastUpdated, w.state.GlobalStats.UptimeHours = time.Time{}, 0
	cur, err := json.Marshal(w.state)
	if err == nil && !force && bytes.Equal(cur, w.lastState) && now.Sub(w.lastWrite) < w.heartbeat() {
		return nil
	}
	w.state.LastUpdated = now
	if !w.started.IsZero() {
		w.state.GlobalStats.UptimeHours = now.Sub(w.started).Hours()
	}
	if err := w.state.Write(w.opts.StatePath); err != nil {
		return err
	}
	w.lastState, w.lastWrite = cur, now
	return nil
}
