package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// doctorOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type doctorOptions struct {
	g   *globalOptions
	dir string
}

// newDoctorCmd builds `ben10 doctor`.
func newDoctorCmd(g *globalOptions) *cobra.Command {
	o := &doctorOptions{g: g}
	doctorCmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check hooks, storage, configuration and archive health",
		Long: `Checks that Ben10's Claude Code hooks are installed and point at an existing
binary, that the project's context storage is writable with private
permissions, that the configuration is valid, that every saved context and
snapshot verifies, and warns about Claude Code's cleanupPeriodDays (Claude
Code deletes transcripts after 30 days by default; Ben10's archives keep them).
Exits 1 when a check fails.`,
		Example: `  ben10 doctor
  ben10 doctor --dir ~/src/app --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := runDoctor(o.dir)
			failed := 0
			for _, c := range checks {
				if c.Status == "fail" {
					failed++
				}
			}
			if o.g.json {
				if err := printJSON(cmd.OutOrStdout(), checks); err != nil {
					return err
				}
			} else {
				// One line per check; with --quiet only the failed ones.
				mark := map[string]string{"ok": "✓", "warn": "!", "fail": "✗"}
				for _, c := range checks {
					if !o.g.quiet || c.Status == "fail" {
						fmt.Fprintf(cmd.OutOrStdout(), "%s %-14s %s\n", mark[c.Status], c.Name, c.Detail)
					}
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d check(s) failed", failed)}
			}
			return nil
		},
	}
	doctorCmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: current directory)")
	return doctorCmd
}

// check is one line of `ben10 doctor`.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok | warn | fail
	Detail string `json:"detail"`
}

func runDoctor(dir string) []check {
	var out []check
	add := func(name, status, format string, args ...any) {
		out = append(out, check{name, status, fmt.Sprintf(format, args...)})
	}
	home, err := store.HomeDir()
	if err != nil {
		add("home", "fail", "%v", err)
		return out
	}
	project, err := projectDir(dir)
	if err != nil {
		add("project", "fail", "%v", err)
		return out
	}

	// Hooks.
	installed := false
	for _, sc := range hook.Scopes {
		p := hook.SettingsPath(sc, home, project)
		st, err := hook.Status(p, sc)
		switch {
		case err != nil:
			add("hooks", "fail", "%s: %v", p, err)
		case len(st.Events) == 0:
			continue
		case st.Binary == "":
			add("hooks", "fail", "%s: hook command without a binary path", p)
		default:
			installed = true
			if fi, err := os.Stat(st.Binary); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				add("hooks", "fail", "%s (%s): binary %s is missing or not executable; run `ben10 hooks install --scope %s`", sc, p, st.Binary, sc)
			} else if fi, err := os.Stat(st.Shim); st.Shim != "" && (err != nil || fi.IsDir() || fi.Mode()&0o111 == 0) {
				add("hooks", "fail", "%s (%s): hook shim %s is missing or not executable; run `ben10 hooks install --scope %s`", sc, p, st.Shim, sc)
			} else if len(st.Missing) > 0 {
				add("hooks", "warn", "%s (%s): missing %s; run `ben10 hooks install --scope %s`", sc, p, joinEvents(st.Missing), sc)
			} else {
				via := ""
				if st.Shim != "" {
					via = " (via " + st.Shim + ")"
				}
				add("hooks", "ok", "%s (%s) → %s%s", sc, p, st.Binary, via)
			}
			if t, ok := st.Timeout[hook.SessionEnd]; !ok || t <= 0 {
				add("hooks", "warn", "%s: SessionEnd has no explicit timeout; Claude Code then gives all SessionEnd hooks 1.5 s", p)
			}
		}
	}
	if !installed {
		add("hooks", "fail", "not installed in any settings file; run `ben10 hooks install`")
	}

	out = append(out, mcpChecks(home, project)...)

	// Configuration.
	cfg, _, warns, err := store.LoadConfig(project, home, nil)
	if err != nil {
		add("config", "fail", "%v", err)
		cfg = nil
	} else if len(warns) > 0 {
		for _, w := range warns {
			add("config", "warn", "%v", w)
		}
	} else {
		add("config", "ok", "valid (%s, %s)", store.UserConfigPath(home), store.ProjectConfigPath(project))
	}

	// Storage.
	var st *store.Store
	if cfg != nil {
		st, err = store.Open(project, store.Options{Home: home, Config: cfg, ReadOnly: true})
	}
	switch {
	case cfg == nil:
	case err != nil:
		add("storage", "fail", "%v", err)
	default:
		out = append(out, storageChecks(st)...)
	}

	// Archive health.
	if st != nil {
		out = append(out, archiveChecks(st, cfg)...)
		out = append(out, authChecks(st, cfg)...)
		out = append(out, jobChecks(st)...)
	}

	// Claude Code's transcript cleanup.
	out = append(out, cleanupCheck(home, project))
	return out
}

func storageChecks(st *store.Store) []check {
	root := st.Root()
	fi, err := os.Stat(root)
	if errors.Is(err, os.ErrNotExist) {
		return []check{{"storage", "ok", root + " (not created yet; created 0700 on first save)"}}
	}
	if err != nil {
		return []check{{"storage", "fail", err.Error()}}
	}
	var cs []check
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		cs = append(cs, check{"storage", "warn", fmt.Sprintf("%s is %04o; other users can read it (chmod 700)", root, perm)})
	}
	f, err := os.CreateTemp(root, store.TempPrefix+"doctor-")
	if err != nil {
		return append(cs, check{"storage", "fail", fmt.Sprintf("%s is not writable: %v", root, err)})
	}
	f.Close()
	os.Remove(f.Name())
	var loose []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().Perm()&0o077 != 0 {
			loose = append(loose, filepath.Base(p))
		}
		return nil
	})
	if len(loose) > 0 {
		cs = append(cs, check{"storage", "warn", fmt.Sprintf("%d file(s) readable by others (e.g. %s); chmod 600", len(loose), loose[0])})
	}
	if c, ok := gitTrackedCheck(st); ok {
		cs = append(cs, c)
	}
	for _, w := range st.Warnings() {
		if strings.Contains(w.Message, "unsafe path") {
			cs = append(cs, check{"storage", "warn", w.String()})
		}
	}
	if rs, err := st.Refusals(); err != nil {
		cs = append(cs, check{"storage", "warn", err.Error()})
	} else {
		for _, r := range rs {
			cs = append(cs, check{"storage", "fail", r.String()})
		}
	}
	u, err := st.Usage()
	if err == nil {
		cs = append(cs, check{"storage", "ok", fmt.Sprintf("%s writable; %s context, %s snapshots", root, store.FormatBytes(u.Context), store.FormatBytes(u.Snapshots))})
	}
	return cs
}

// gitTrackedCheck warns when git tracks files of a store inside the
// project: a committed store is shared with everyone who clones the
// repository (and a cloned one is someone else's context). ok is false
// when there is nothing to report (no git, no work tree, nothing tracked).
func gitTrackedCheck(st *store.Store) (check, bool) {
	rel, err := filepath.Rel(st.ProjectDir(), st.Root())
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return check{}, false
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return check{}, false
	}
	out, err := exec.Command(git, "-C", st.ProjectDir(), "ls-files", "-z", "--", rel).Output()
	if err != nil || len(out) == 0 {
		return check{}, false
	}
	n := strings.Count(string(out), "\x00")
	return check{"storage", "warn", fmt.Sprintf("git tracks %d file(s) of the store %s: committed context is shared with everyone who clones the repository (git rm -r --cached %s, then add it to .gitignore)", n, rel, rel)}, true
}

func archiveChecks(st *store.Store, cfg *store.Config) []check {
	oo := snapshot.OpenOptions(cfg)
	var files []string
	if _, err := os.Stat(st.CurrentPath()); err == nil {
		files = append(files, st.CurrentPath())
	}
	for _, list := range []func() ([]store.Entry, error){st.Checkpoints, st.History} {
		es, _ := list()
		for _, e := range es {
			files = append(files, e.Path)
		}
	}
	var bad []string
	for _, f := range files {
		// The archive level too: a container whose checksums are sound can
		// still declare what its segments cannot hold.
		if err := archive.VerifyFile(f, oo); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", filepath.Base(f), err))
		}
	}
	m := snapshot.NewManager(st, cfg)
	snaps := 0
	if ix, err := m.Index(); err != nil {
		bad = append(bad, "compaction-snapshots/index.json: "+err.Error())
	} else {
		for _, s := range ix.Snapshots {
			snaps++
			if err := m.Verify(s.ID); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", s.ID, err))
			}
		}
	}
	if len(bad) > 0 {
		return []check{{"archives", "fail", fmt.Sprintf("%d of %d damaged: %s (see `ben10 context restore` for recovery choices)", len(bad), len(files)+snaps, strings.Join(bad, "; "))}}
	}
	return []check{{"archives", "ok", fmt.Sprintf("%d saved context(s) and %d snapshot(s) verified", len(files), snaps)}}
}

// cleanupCheck reads cleanupPeriodDays from Claude Code's settings files.
func cleanupCheck(home, project string) check {
	days, from := 0, ""
	for _, sc := range hook.Scopes {
		p := hook.SettingsPath(sc, home, project)
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var s struct {
			CleanupPeriodDays *int `json:"cleanupPeriodDays"`
		}
		if json.Unmarshal(data, &s) == nil && s.CleanupPeriodDays != nil {
			days, from = *s.CleanupPeriodDays, p
		}
	}
	if from == "" {
		return check{"transcripts", "warn", "Claude Code deletes transcripts after 30 days (cleanupPeriodDays unset); Ben10's archives keep them — set cleanupPeriodDays in ~/.claude/settings.json to keep the originals longer"}
	}
	return check{"transcripts", "warn", fmt.Sprintf("Claude Code deletes transcripts after %d days (cleanupPeriodDays in %s); Ben10's archives keep them", days, from)}
}

// authChecks: the user's authentication key, and the saved contexts of
// the project it does not authenticate (never injected at a session
// start), each with the reason.
func authChecks(st *store.Store, cfg *store.Config) []check {
	k, err := snapshot.UserAuthKey(st.Home())
	if err != nil {
		return []check{{"auth", "fail", fmt.Sprintf("%v: archives are saved without a tag, and nothing is injected at a session start", err)}}
	}
	out := []check{{"auth", "ok", fmt.Sprintf("key %s (%s)", k.ID(), tildePath(store.AuthKeyPath(st.Home())))}}
	un := snapshot.UnauthenticatedArchives(st, cfg, k)
	if len(un) == 0 {
		return out
	}
	var why []string
	for _, u := range un {
		rel, err := filepath.Rel(st.Root(), u.Path)
		if err != nil {
			rel = u.Path
		}
		why = append(why, rel+": "+u.Reason)
	}
	return append(out, check{"auth", "warn", fmt.Sprintf("%d saved context(s) not saved by you, never injected at a session start: %s (%s)", len(un), strings.Join(why, "; "), snapshot.AdoptHint)})
}

// jobChecks: the jobs the hooks queued in the store, and each one kept as
// failed (refused as not written by this user's hooks, unreadable, or
// failed store.MaxJobAttempts times) with its reason. Nothing when the
// queue is empty.
func jobChecks(st *store.Store) []check {
	jobs, err := st.Jobs()
	if err != nil {
		return []check{{"jobs", "warn", err.Error()}}
	}
	var failed []string
	for _, j := range jobs {
		if j.Failed {
			// The file's name comes from the project directory: quoted.
			failed = append(failed, fmt.Sprintf("%q: %s", filepath.Base(j.Path), j.LastError))
		}
	}
	var out []check
	if n := len(jobs) - len(failed); n > 0 {
		out = append(out, check{"jobs", "ok", fmt.Sprintf("%d job(s) queued for the worker", n)})
	}
	if len(failed) > 0 {
		out = append(out, check{"jobs", "warn", fmt.Sprintf("%d queued job(s) failed and are not retried (remove them from %s once read): %s",
			len(failed), st.PendingDir(), strings.Join(failed, "; "))})
	}
	return out
}
