package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// openProject opens the store of dir ("" = the current directory) and a
// snapshot manager on it, its warnings on the error stream (unless
// --quiet). readOnly stores never create anything.
func (g *globalOptions) openProject(dir string, readOnly bool) (*store.Store, *snapshot.Manager, error) {
	if dir == "" {
		dir = "."
	}
	st, err := store.Open(dir, store.Options{ReadOnly: readOnly, Session: os.Getenv("CLAUDE_CODE_SESSION_ID")})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range st.Warnings() {
		if !g.quiet {
			fmt.Fprintf(g.io.ErrOut, "ben10: warning: %s\n", w)
		}
	}
	// Jobs the hooks queued and no worker finished are taken up again.
	if err := (&hook.Handler{}).Resume(context.Background(), st); err != nil && !g.quiet {
		fmt.Fprintf(g.io.ErrOut, "ben10: warning: queued work of %s: %v\n", st.ProjectDir(), err)
	}
	return st, snapshot.NewManager(st, nil), nil
}

// projectRun is the body of a command that works on one project: its
// store and a snapshot manager on it (see openProject).
type projectRun func(cmd *cobra.Command, args []string, st *store.Store, m *snapshot.Manager) error

// inProject is a cobra RunE that opens the project *dir names (read
// when the command runs, after the flags are parsed) and runs run on it.
func (g *globalOptions) inProject(dir *string, readOnly bool, run projectRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		st, m, err := g.openProject(*dir, readOnly)
		if err != nil {
			return err
		}
		return run(cmd, args, st, m)
	}
}

// latestTranscript is the most recently modified <session>.jsonl of the
// project's Claude Code folder (<config>/projects/<encoded project>/),
// leaving out the copies `context restore --resume` wrote that nobody
// resumed since (store.LoadRestored).
func latestTranscript(project string) (string, error) {
	abs, err := store.CanonicalDir(project)
	if err != nil {
		return "", err
	}
	home, err := store.HomeDir()
	if err != nil {
		return "", err
	}
	cfg := transcript.Dirs(home, archive.HarnessClaude)[0] // $CLAUDE_CONFIG_DIR, else ~/.claude
	name := archive.ProjectDirName(abs)
	dirs := []string{filepath.Join(cfg, "projects", name)}
	if len(name) > archive.MaxProjectDirName {
		// Claude Code builds on Bun hash the long name differently: any
		// folder with the same 200-character prefix is this project's.
		m, _ := filepath.Glob(filepath.Join(cfg, "projects", name[:archive.MaxProjectDirName]+"-*"))
		dirs = append(dirs, m...)
	}
	restored, _ := store.LoadRestored(home)
	best, bestT := "", time.Time{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			if restored.Unchanged(filepath.Join(d, e.Name()), fi.Size()) {
				continue // Ben10's restored copy of a saved session, not a live one
			}
			if fi.ModTime().After(bestT) {
				best, bestT = filepath.Join(d, e.Name()), fi.ModTime()
			}
		}
	}
	if best == "" {
		return "", fmt.Errorf("no Claude Code transcript for %s in %s (pass --transcript)", abs, dirs[0])
	}
	return best, nil
}

func humanBytes(n int64) string { return store.FormatBytes(n) }

// commas prints n with thousands separators.
func commas(n int64) string { return snapshot.Commas(n) }

// ago prints how long before now t was: "5 minutes ago", "2 hours ago".
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	unit := func(n int64, u string) string {
		if n == 1 {
			return "1 " + u + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, u)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	}
	return unit(int64(d/(24*time.Hour)), "day")
}

// tildePath shows p with the home directory as ~.
func tildePath(p string) string {
	if home, err := store.HomeDir(); err == nil && home != "" {
		if p == home {
			return "~"
		}
		if strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + p[len(home):]
		}
	}
	return p
}

func rule(n int) string       { return strings.Repeat("═", n) }
func thin(n int) string       { return strings.Repeat("─", n) }
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// openCheck opens the saved context at p as status does: the container's
// header, index and footer and the archive metadata, with the key problem
// named (see keyProblem).
func openCheck(st *store.Store, p string) error {
	a, err := archive.OpenFile(p, snapshot.OpenOptions(st.Config()))
	if err != nil {
		return keyProblem(err, st.Config())
	}
	return a.Close()
}
