package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/web"
)

// Restoration modes (PRD FR-2.3) and the choices offered for a damaged
// context (PRD "Error Messages: Context Corruption").
const (
	modeFull      = "full"
	modeSummary   = "summary"
	modeSelective = "selective"
	modeFresh     = "fresh"

	corruptCheckpoint = "checkpoint"
	corruptHistory    = "history"
	corruptFresh      = "fresh"
	corruptExport     = "export"
)

var (
	restoreModes   = []string{modeFull, modeSummary, modeSelective, modeFresh}
	corruptChoices = []string{corruptCheckpoint, corruptHistory, corruptFresh, corruptExport}
)

// components selective restore offers.
var restoreComponents = []string{"messages", "files", "tasks"}

// addModeFlags adds --mode, --components and --on-corrupt to c, the
// restore command, with their help.
func (o *restoreOptions) addModeFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&o.mode, "mode", "", "full | summary | selective | fresh (default: default_restore_mode, else full)")
	f.StringVar(&o.components, "components", "", "selective: comma-separated components: messages, files, tasks (asked on a terminal)")
	f.StringVar(&o.onCorrupt, "on-corrupt", "", "when current.ctx is damaged: checkpoint | history | fresh | export (asked on a terminal)")
	c.Long += `

Modes (--mode, default: the default_restore_mode setting, else full):
  full       a resumable Claude Code session (as above)
  summary    print the recovery digest: requests, tasks, files, commands,
             errors (no session is written)
  selective  choose components: messages (the resumable session), files
             (the files worked on), tasks (the todo state); asked on a
             terminal, else --components messages,files,tasks
  fresh      ignore the stored context: it is kept, but the next session
             start does not inject it

When current.ctx is damaged, a terminal offers the choices: load the newest
valid checkpoint, load from history, start fresh (the damaged file moves to
corrupt/), or export the raw data for inspection. Without a terminal, pass
--on-corrupt checkpoint|history|fresh|export; without it the newest valid
checkpoint or history file is used.`
	c.Example = `  ben10 context restore                          # full, from current.ctx
  ben10 context restore --mode summary           # print what the last session did
  ben10 context restore --mode selective --components files,tasks
  ben10 context restore --mode fresh             # next session starts clean
  ben10 context restore --on-corrupt checkpoint  # damaged current.ctx: newest valid checkpoint
  ben10 context restore saved.ctx --resume       # a given archive`
}

// runRestoreMode handles --mode and --on-corrupt; it returns handled=false
// when the plain restore (full mode, no damaged-context choice) should run.
func (o *restoreOptions) runRestoreMode(cmd *cobra.Command, args []string) (handled bool, err error) {
	mode := strings.ToLower(strings.TrimSpace(o.mode))
	oc := strings.ToLower(strings.TrimSpace(o.onCorrupt))
	if oc != "" && !slices.Contains(corruptChoices, oc) {
		return true, fmt.Errorf("--on-corrupt %q: use checkpoint, history, fresh or export", o.onCorrupt)
	}
	if o.components != "" && mode != modeSelective && mode != "" {
		return true, fmt.Errorf("--components is for --mode selective")
	}
	if mode == "" && o.components != "" {
		mode = modeSelective
	}
	explicitSource := len(args) > 0 || o.name != "" || o.from != "" || o.checkpoint != 0
	if mode == "" && len(args) == 0 {
		// The configured default applies to the project's own context
		// (read quietly: the store opened below prints its warnings).
		if st := readOnlyStore(o.dir); st != nil {
			mode = st.Config().DefaultRestoreMode
		}
	}
	if mode == "" {
		mode = modeFull
	}
	if !slices.Contains(restoreModes, mode) {
		return true, fmt.Errorf("--mode %q: use %s", o.mode, strings.Join(restoreModes, ", "))
	}
	if mode == modeFresh {
		if explicitSource {
			return true, errors.New("--mode fresh ignores the stored context: it takes no FILE, --name, --from or --checkpoint")
		}
		return true, o.runFresh(cmd, nil)
	}
	if o.mode != "" && mode == modeFull && len(args) > 0 {
		o.resume = true // FILE --mode full is FILE --resume
	}
	// plain is the restore from the source decided: the plain restore's
	// for full mode, else summary or selective.
	plain := func() (bool, error) {
		if mode == modeFull {
			return false, nil
		}
		return true, o.runPartialRestore(cmd, mode, args)
	}
	if explicitSource {
		return plain()
	}
	// The project's own context: check current.ctx before anything moves it.
	st, err := o.project()
	if err != nil {
		return true, err
	}
	oo, err := o.restoreOpenOptions(st)
	if err != nil {
		return true, err
	}
	verify := verifyContext(oo, st.Config(), true)
	cur := st.CurrentPath()
	verr := error(nil)
	if _, serr := os.Stat(cur); serr == nil {
		verr = verify(cur)
	}
	if isKeyProblem(verr) {
		// The file is fine, the key is missing or wrong.
		return true, fmt.Errorf("%s: %w", cur, verr)
	}
	if verr == nil || errors.Is(verr, errNoConversation) {
		// (Without a conversation, current.ctx is passed over for the
		// newest context that has one.)
		return plain()
	}
	choice, err := o.corruptChoice(cmd, st, verify, oc, verr)
	if err != nil {
		return true, err
	}
	switch choice {
	case "":
		// No terminal and no --on-corrupt: the newest valid checkpoint or
		// history file, as the plain restore does.
		return plain()
	case corruptExport:
		return true, o.exportDamaged(cmd, st, oo, cur, verr)
	case corruptFresh:
		return true, o.runFresh(cmd, st)
	}
	src, kind, age, err := newestValid(st, verify, choice)
	if err != nil {
		return true, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "ben10: current.ctx is damaged (%v): using the %s %s, saved %s\n", verr, kind, filepath.Base(src), store.FormatDuration(age.Round(time.Minute))+" ago")
	if err := quarantine(st, cur); err != nil {
		return true, err
	}
	o.from = src
	return plain()
}

// project opens the store of --dir once for the whole restore, so that
// its warnings are printed, and the hooks' queued work resumed, once.
func (o *restoreOptions) project() (*store.Store, error) {
	if o.st == nil {
		st, _, err := o.g.openProject(o.dir, false)
		if err != nil {
			return nil, err
		}
		o.st = st
	}
	return o.st, nil
}

func (o *restoreOptions) restoreOpenOptions(st *store.Store) (archive.OpenOptions, error) {
	if o.passFile != "" {
		pass, err := readPassphrase(o.passFile)
		if err != nil {
			return archive.OpenOptions{}, err
		}
		return archive.OpenOptions{Passphrase: pass}, nil
	}
	return snapshot.OpenOptions(st.Config()), nil
}

// verifyContext checks a saved context the way restore trusts it: the
// container (header, index, footer checksum over every byte) and the
// archive's metadata. A key problem (no passphrase, or the wrong one) is
// not damage: its error wraps store.ErrNotCorrupt, so that nothing is
// quarantined for it, and names the key cfg says is needed.
//
// With conversation set (a restore), a context that holds no conversation
// is also passed over (without quarantining), so that the newest one that
// does is restored.
func verifyContext(oo archive.OpenOptions, cfg *store.Config, conversation bool) func(string) error {
	return func(p string) error {
		err := ctxfmt.VerifyFile(p, ctxfmt.VerifyOptions{})
		if err == nil {
			var a *archive.Archive
			if a, err = archive.OpenFile(p, oo); err == nil {
				defer a.Close()
				if conversation && a.Meta().MessageCount == 0 {
					return fmt.Errorf("%w: %w", store.ErrNotCorrupt, errNoConversation)
				}
				return nil
			}
		}
		return keyProblem(err, cfg)
	}
}

// errNoConversation marks a saved context without a conversation message.
var errNoConversation = errors.New("it holds no conversation (only the assistant's metadata lines), so Claude Code cannot resume it")

// requireConversation refuses to restore a, read from path, when it holds
// no conversation message.
func requireConversation(a *archive.Archive, path string) error {
	if a.Meta().MessageCount > 0 {
		return nil
	}
	return fmt.Errorf("%s: %w; restore an earlier checkpoint (see ben10 context list)", path, errNoConversation)
}

// existingCheckpoints names the checkpoints that exist, for an error.
func existingCheckpoints(st *store.Store) string {
	cps, err := st.Checkpoints()
	if err != nil || len(cps) == 0 {
		return "there are no checkpoints"
	}
	ns := make([]string, len(cps))
	for i, c := range cps {
		ns[i] = strconv.Itoa(c.N)
	}
	return "existing checkpoints: " + strings.Join(ns, ", ")
}

// keyProblem returns err, marked as store.ErrNotCorrupt with the key that
// is needed when it is a key problem rather than damage.
func keyProblem(err error, cfg *store.Config) error {
	if !isKeyProblem(err) {
		return err
	}
	return fmt.Errorf("%w: %w; it needs %s", store.ErrNotCorrupt, err, neededKey(cfg))
}

// isKeyProblem reports whether err comes from a missing or wrong key.
func isKeyProblem(err error) bool {
	return errors.Is(err, ctxfmt.ErrWrongKey) || errors.Is(err, ctxfmt.ErrKeyRequired)
}

// neededKey describes where the key of the project's encrypted archives
// comes from.
func neededKey(cfg *store.Config) string {
	if cfg != nil && cfg.Encryption.Enabled {
		e := cfg.Encryption
		switch e.KeySource {
		case "env":
			return "the passphrase in $" + e.Env + " (context.encryption.env)"
		case "passphrase-file":
			return "the passphrase in " + e.PassphraseFile + " (context.encryption.passphrase_file)"
		case "keyfile":
			return "the key in " + e.KeyFile + " (context.encryption.key_file)"
		}
	}
	return "the passphrase it was saved with ($BEN10_PASSPHRASE or --passphrase-file)"
}

// newestValid returns the newest checkpoint (kind checkpoint) or history
// file (kind history) that passes verify.
func newestValid(st *store.Store, verify func(string) error, choice string) (path, kind string, age time.Duration, err error) {
	var ents []store.Entry
	if choice == corruptCheckpoint {
		ents, err = st.Checkpoints()
	} else {
		ents, err = st.History()
	}
	if err != nil {
		return "", "", 0, err
	}
	sort.SliceStable(ents, func(i, j int) bool { return ents[i].ModTime.After(ents[j].ModTime) })
	var bad []string
	for _, e := range ents {
		if verr := verify(e.Path); verr != nil {
			bad = append(bad, filepath.Base(e.Path))
			continue
		}
		return e.Path, e.Kind, time.Since(e.ModTime), nil
	}
	what, other := "checkpoint", "history, fresh or export"
	if choice == corruptHistory {
		what, other = "history file", "checkpoint, fresh or export"
	}
	if len(bad) > 0 {
		return "", "", 0, fmt.Errorf("no valid %s to load (damaged: %s); try --on-corrupt %s", what, strings.Join(bad, ", "), other)
	}
	return "", "", 0, fmt.Errorf("no %s to load; try --on-corrupt %s", what, other)
}

// corruptChoice returns what to do about the damaged current.ctx: the
// --on-corrupt flag, else the answer on a terminal, else "".
func (o *restoreOptions) corruptChoice(cmd *cobra.Command, st *store.Store, verify func(string) error, flag string, verr error) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if !o.g.interactive() {
		return "", nil
	}
	w := cmd.ErrOrStderr()
	cp, _, cpAge, cpErr := newestValid(st, verify, corruptCheckpoint)
	hp, _, _, hpErr := newestValid(st, verify, corruptHistory)
	fmt.Fprintf(w, "%s\n\nThe context file appears to be damaged and cannot be loaded.\n  (%v)\n\nOptions:\n", o.g.styled(w, styleWarning, "⚠ Context file corrupted"), verr)
	cpNote, hpNote := "none valid", "none valid"
	if cpErr == nil {
		cpNote = fmt.Sprintf("%s, %s old", strings.TrimSuffix(filepath.Base(cp), ".ctx"), store.FormatDuration(cpAge.Round(time.Minute)))
	}
	if hpErr == nil {
		hpNote = filepath.Base(hp)
	}
	fmt.Fprintf(w, "  [C] Load from checkpoint (%s)\n  [H] Load from history (%s)\n", cpNote, hpNote)
	fmt.Fprintf(w, "  [F] Start fresh (context will be lost)\n  [E] Export raw data for inspection\n\n")
	in := bufio.NewReader(o.g.io.In)
	for range 5 {
		fmt.Fprintf(w, "Choice [C/H/F/E]: ")
		line, err := in.ReadString('\n')
		for _, c := range corruptChoices { // answered by the first letter
			if strings.EqualFold(strings.TrimSpace(line), c[:1]) {
				return c, nil
			}
		}
		if err != nil {
			break
		}
	}
	return "", errors.New("no choice made: nothing restored (pass --on-corrupt checkpoint|history|fresh|export)")
}

// quarantine moves a damaged file of the store into corrupt/ under the lock.
func quarantine(st *store.Store, path string) error {
	return st.WithLock(context.Background(), func() error {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		_, err := st.Quarantine(path)
		return err
	})
}

// exportDamaged writes the damaged current.ctx for inspection into
// exports/damaged-<time>/: the file byte for byte, and the raw transcript
// files when they can still be read from it. The damaged file stays.
func (o *restoreOptions) exportDamaged(cmd *cobra.Command, st *store.Store, oo archive.OpenOptions, path string, verr error) error {
	dir := filepath.Join(st.ExportsDir(), "damaged-"+time.Now().UTC().Format("20060102-150405"))
	if err := st.EnsureDir(st.ExportsDir()); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	copyPath := filepath.Join(dir, filepath.Base(path))
	if err := store.WriteFileAtomic(copyPath, data); err != nil {
		return err
	}
	written := []string{copyPath}
	a, rawErr := archive.OpenFile(path, oo)
	if rawErr == nil {
		var files []string
		files, rawErr = a.ExportRaw(filepath.Join(dir, "raw"))
		a.Close()
		written = append(written, files...)
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionExport, ExportPath: dir, Path: path, Detail: "damaged context exported for inspection"})
	if o.g.json {
		msg := ""
		if rawErr != nil {
			msg = rawErr.Error()
		}
		return printJSON(cmd.OutOrStdout(), map[string]any{"choice": corruptExport, "damaged": path, "error": verr.Error(), "dir": dir, "files": written, "raw_error": msg})
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "Exported the damaged context for inspection into %s\n", tildePath(dir))
	for _, f := range written {
		fmt.Fprintf(out, "  %s\n", tildePath(f))
	}
	if rawErr != nil {
		fmt.Fprintf(out, "The transcript could not be read back from it: %v\n", rawErr)
	}
	fmt.Fprintf(out, "current.ctx was left in place; `ben10 context restore --on-corrupt checkpoint` loads the newest valid checkpoint.\n")
	return nil
}

// runFresh records a fresh start: the stored context is kept but not
// injected by the next SessionStart. A damaged current.ctx (st non-nil,
// from the corrupt choice) moves to corrupt/ first.
func (o *restoreOptions) runFresh(cmd *cobra.Command, st *store.Store) error {
	if st == nil {
		var err error
		if st, err = o.project(); err != nil {
			return err
		}
	} else if err := quarantine(st, st.CurrentPath()); err != nil {
		return err
	}
	declined, err := hook.DeclineStored(st, time.Now())
	if err != nil {
		return err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionRestore, Detail: fmt.Sprintf("fresh start: %d saved contexts will not be injected", len(declined))})
	v, out := map[string]any{"mode": modeFresh, "declined": nonNil(declined)}, cmd.OutOrStdout()
	if len(declined) == 0 || o.g.json {
		return o.g.result(out, v, "Fresh start: no stored context is waiting to be injected into the next session (none saved, or already restored).\n")
	}
	o.g.infof(out, "Fresh start: the next session starts without stored context.\n")
	for _, d := range declined {
		o.g.infof(out, "  ignored %s %s (session %s)\n", d.Kind, tildePath(d.Path), shortSession(d.Session))
	}
	o.g.infof(out, "The files are kept: `ben10 context restore` still restores them.\n")
	return nil
}

func shortSession(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// partialSource opens the archive a summary or selective restore reads:
// FILE, --name, --from, --checkpoint, or the project's newest valid
// context.
func (o *restoreOptions) partialSource(cmd *cobra.Command, args []string) (*archive.Archive, string, *store.Store, error) {
	if len(args) > 0 {
		a, err := openArchive(args[0], o.passFile)
		return a, args[0], nil, err
	}
	st, a, src, _, err := o.openSource(cmd, "using")
	return a, src, st, err
}

// runPartialRestore is --mode summary and --mode selective.
func (o *restoreOptions) runPartialRestore(cmd *cobra.Command, mode string, args []string) error {
	a, src, st, err := o.partialSource(cmd, args)
	if err != nil {
		return err
	}
	defer a.Close()
	r, ok, err := a.Recall()
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if !ok {
		return fmt.Errorf("%s holds no recall summary (written by an older ben10): use --mode full", src)
	}
	out := cmd.OutOrStdout()
	if mode == modeSummary {
		text := archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Now: time.Now()})
		if st != nil {
			_ = st.Audit(store.AuditEntry{Action: store.ActionRestore, Path: src, Detail: "summary restore (digest printed)"})
		}
		if o.g.json {
			return printJSON(out, map[string]any{"mode": modeSummary, "source": src, "digest": text, "recall": r})
		}
		fmt.Fprint(out, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(out)
		}
		return nil
	}
	comps, err := o.chooseComponents(cmd, a, r)
	if err != nil {
		return err
	}
	result := map[string]any{"mode": modeSelective, "source": src, "components": comps}
	var lines []string
	if slices.Contains(comps, "messages") {
		proj := o.projectDir
		if proj == "" && st != nil {
			proj = st.ProjectDir()
		}
		if proj == "" {
			if proj, err = os.Getwd(); err != nil {
				return err
			}
		}
		if err := o.g.checkResume(a, src, o.unauth || o.from != "" || len(args) > 0); err != nil {
			return err
		}
		res, err := o.g.restoreResumable(a, src, archive.RestoreOptions{ProjectDir: proj, ConfigDir: o.cfgDr})
		if err != nil {
			return err
		}
		result["restore"] = res
		lines = append(lines, fmt.Sprintf("Messages: %d, as a resumable session — resume with: cd %s && claude --resume %s", a.Meta().MessageCount, web.ShellQuote(res.ProjectDir), res.SessionID))
	}
	if slices.Contains(comps, "files") {
		result["files"] = r.Files
		lines = append(lines, fmt.Sprintf("Files worked on (%d):", len(r.Files)))
		files := append([]archive.RecallFile(nil), r.Files...)
		sort.SliceStable(files, func(i, j int) bool { return files[i].Seq > files[j].Seq })
		for _, f := range files {
			lines = append(lines, "  "+fileLine(f))
		}
	}
	if slices.Contains(comps, "tasks") {
		ts, err := a.Tasks()
		if err != nil {
			return fmt.Errorf("%s: tasks: %w", src, err)
		}
		result["tasks"] = ts
		lines = append(lines, fmt.Sprintf("Tasks: %d active, %d pending, %d completed", len(ts.Active), len(ts.Pending), len(ts.Completed)))
		for _, g := range []struct {
			mark string
			ts   []archive.Task
		}{{"▶", ts.Active}, {"○", ts.Pending}, {"✓", ts.Completed}} {
			for _, t := range g.ts {
				lines = append(lines, "  "+g.mark+" "+oneLine(t.Content, 100))
			}
		}
	}
	if st != nil {
		_ = st.Audit(store.AuditEntry{Action: store.ActionRestore, Path: src, Detail: "selective restore: " + strings.Join(comps, ",")})
	}
	if o.g.json {
		return printJSON(out, result)
	}
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	return nil
}

func fileLine(f archive.RecallFile) string {
	var ops []string
	for _, o := range []struct {
		n    int
		name string
	}{{f.Edits, "edited"}, {f.Writes, "written"}, {f.Reads, "read"}, {f.Searches, "searched"}} {
		if o.n > 0 {
			ops = append(ops, fmt.Sprintf("%s %d×", o.name, o.n))
		}
	}
	return fmt.Sprintf("%s  (%s)", f.Path, strings.Join(ops, ", "))
}

// chooseComponents returns the selective restore's components: from
// --components, else asked on a terminal.
func (o *restoreOptions) chooseComponents(cmd *cobra.Command, a *archive.Archive, r archive.Recall) ([]string, error) {
	if o.components != "" {
		return parseComponents(o.components)
	}
	if !o.g.interactive() {
		return nil, fmt.Errorf("--mode selective needs --components (%s) when not on a terminal", strings.Join(restoreComponents, ","))
	}
	w := cmd.ErrOrStderr()
	tasks := len(r.Tasks.Active) + len(r.Tasks.Pending) + len(r.Tasks.Completed)
	fmt.Fprintf(w, "Restore which components?\n  [m] messages  %d messages, as a resumable session\n  [f] files     %d files worked on\n  [t] tasks     %d tasks\n", a.Meta().MessageCount, len(r.Files), tasks)
	return askComponents(w, o.g.io.In)
}

func askComponents(w io.Writer, stdin io.Reader) ([]string, error) {
	in := bufio.NewReader(stdin)
	for range 5 {
		fmt.Fprintf(w, "Components (e.g. m,f; Enter = all): ")
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		if line == "" && err == nil {
			return restoreComponents, nil
		}
		if line != "" {
			comps, perr := parseComponents(line)
			if perr == nil {
				return comps, nil
			}
			fmt.Fprintln(w, perr)
		}
		if err != nil {
			break
		}
	}
	return nil, errors.New("no components chosen: nothing restored")
}

// parseComponents accepts names or their first letters, comma- or
// space-separated, and returns them in restoreComponents order.
func parseComponents(s string) ([]string, error) {
	want := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || r == ' ' }) {
		ok := false
		for _, c := range restoreComponents {
			if f == c || f == c[:1] || f == strings.TrimSuffix(c, "s") {
				want[c], ok = true, true
			}
		}
		if f == "all" {
			for _, c := range restoreComponents {
				want[c] = true
			}
			ok = true
		}
		if !ok {
			return nil, fmt.Errorf("unknown component %q (use %s)", f, strings.Join(restoreComponents, ", "))
		}
	}
	var out []string
	for _, c := range restoreComponents {
		if want[c] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no component given")
	}
	return out, nil
}
