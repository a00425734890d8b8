package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/indexnotes"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/web"
)

// validName accepts names for named saves and exports: letters, digits,
// '.', '_' and '-', not starting with '.'.
func validName(n string) error {
	if n == "" || strings.HasPrefix(n, ".") || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" || len(n) > 100 {
		return fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' (not starting with '.')", n)
	}
	return nil
}

// storeEncodeOptions are the encoder options of a save: cfg's (the
// store's configuration, or the defaults of a save outside a store), with
// the command's flags (--level, --redact, --encrypt) on top.
func (o *saveOptions) storeEncodeOptions(cmd *cobra.Command, cfg *store.Config) (archive.EncodeOptions, *snapshot.Redactions, error) {
	lvl, err := ctxfmt.ParseLevel(o.level)
	if err != nil {
		return archive.EncodeOptions{}, nil, err
	}
	c := *cfg
	if cmd.Flags().Changed("redact") {
		c.SensitiveRedaction = o.redact
	}
	opts, red, err := snapshot.EncodeOptions(&c, lvl)
	if err != nil {
		return opts, nil, err
	}
	if o.encrypt {
		pass, err := passphrase(o.passFile)
		if err == nil && pass == nil {
			err = errors.New("--encrypt needs --passphrase-file or $BEN10_PASSPHRASE")
		}
		if err != nil {
			return opts, nil, err
		}
		opts.Encryption = &ctxfmt.Encryption{Passphrase: pass}
	}
	return opts, red, nil
}

func (o *saveOptions) runStoreSave(cmd *cobra.Command, _ []string) error {
	if o.out != "" && o.name != "" {
		return errors.New("--out and --name exclude each other")
	}
	if o.name != "" {
		if err := validName(o.name); err != nil {
			return err
		}
	}
	st, _, err := o.g.openProject(o.dir, false)
	if err != nil {
		return err
	}
	cfg := st.Config()
	tr := o.transcript
	if tr == "" {
		if tr, err = latestTranscript(st.ProjectDir()); err != nil {
			return err
		}
	}
	h, err := resolveHarness(o.harness, tr)
	if err != nil {
		return err
	}
	start := time.Now()
	prog := o.g.newBytesProgress("Saving context", 0)
	defer prog.Done()
	opts, red, err := o.storeEncodeOptions(cmd, cfg)
	if err != nil {
		return err
	}
	opts.Progress = prog.Report()
	target := cmp.Or(o.out, st.CurrentPath()) // --out and --name exclude each other
	if o.name != "" {
		target = filepath.Join(st.Root(), namedDir, o.name+".ctx")
	}
	iopt := archive.ImportOptions{ProjectDir: st.ProjectDir(), NoSubagents: o.noSub,
		IncludeFileContents: true, ExcludePatterns: snapshot.ExcludePatterns(cfg)}
	var res *snapshot.SaveResult
	var warns []string
	if target == st.CurrentPath() {
		// The one save into current.ctx (hooks, watcher and this command).
		res, err = snapshot.SaveCurrent(cmd.Context(), st, cfg, snapshot.SaveRequest{Transcript: tr, Harness: h, Source: "cli",
			Import: iopt, Encode: &opts, Redactions: red, Full: o.full || o.export != ""})
		if errors.Is(err, snapshot.ErrNoConversation) {
			return fmt.Errorf("%s holds no conversation yet (only the assistant's metadata lines): nothing saved", tr)
		}
		if err != nil {
			return err
		}
		for _, w := range res.Warnings {
			warns = append(warns, w.String())
		}
	} else if res, err = o.saveElsewhere(cmd, st, cfg, tr, h, iopt, opts, target); err != nil {
		return err
	}
	prog.Done()
	state, stats := res.State, res.Stats
	redTotal, redNew := redactionTotals(res, red)
	exported := ""
	if o.export != "" {
		if exported, err = writeExport(cmd.Context(), st, state, opts, o.export); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	o.g.printWarnings(cmd, warns)
	if o.g.json {
		return printJSON(out, map[string]any{
			"archive": target, "bytes": res.Bytes, "raw_bytes": stats.RawBytes, "copied_segments": stats.CopiedSegments,
			"session_id": state.Meta.SessionID, "transcript": tr, "messages": res.Messages, "tools": res.Tools,
			"files": res.Files, "file_contents": res.Contents, "redactions": redTotal, "redactions_new": red.Counts(),
			"encrypted": opts.Encryption != nil, "rotated": res.Rotated, "export": exported, "elapsed_ms": time.Since(start).Milliseconds(),
		})
	}
	o.g.infof(out, "saved %s (%s): %d messages, %d tools, %d files, %s\n", target, humanBytes(res.Bytes),
		res.Messages, res.Tools, res.Files, redNew)
	if res.Rotated != "" {
		o.g.infof(out, "previous session's context kept as %s\n", res.Rotated)
	}
	if exported != "" {
		o.g.infof(out, "exported %s (home directory and user name stripped)\n", exported)
	}
	return nil
}

// saveElsewhere saves the session to target, a named save or --out file
// (not current.ctx: no rotation, no meta), building on target when it is
// an archive of the session.
func (o *saveOptions) saveElsewhere(cmd *cobra.Command, st *store.Store, cfg *store.Config, tr string, h archive.Harness, iopt archive.ImportOptions, opts archive.EncodeOptions, target string) (*snapshot.SaveResult, error) {
	state, err := transcript.Import(cmd.Context(), tr, h, iopt)
	if err != nil {
		return nil, err
	}
	if msgs, _ := snapshot.StateCounts(state); msgs == 0 {
		return nil, fmt.Errorf("%s holds no conversation yet (only the assistant's metadata lines): nothing saved", tr)
	}
	oo := snapshot.OpenOptions(cfg)
	if opts.Encryption != nil {
		oo = archive.OpenOptions{Passphrase: opts.Encryption.Passphrase, Key: opts.Encryption.Key}
	}
	if opts.Auth == nil {
		opts.Auth = snapshot.AuthKeyFor(st)
	}
	if !o.full {
		if prev, err := archive.OpenFile(target, oo); err == nil {
			defer prev.Close()
			opts.Previous = prev
		}
	}
	res := &snapshot.SaveResult{State: state, Meta: state.Meta, Messages: len(state.Messages), Tools: len(state.Tools),
		Files: len(state.Files), Contents: len(state.FileContents)}
	err = st.WithLock(cmd.Context(), func() error {
		if err := st.EnsureDir(filepath.Dir(target)); err != nil {
			return err
		}
		res.Bytes, err = writeAtomic(target, func(w io.Writer) error {
			var err error
			res.Stats, err = archive.EncodeWithStats(cmd.Context(), w, state, opts)
			return err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionSave, Path: target, SizeBytes: res.Bytes, Messages: res.Messages, Session: state.Meta.SessionID})
	if rel, err := filepath.Rel(st.Root(), target); err == nil && filepath.IsLocal(rel) {
		_ = indexnotes.Append(st.Home(), st.ProjectDir(), target) // a named save: the next index update picks it up
	}
	return res, nil
}

// writeExport writes the portable package: the same archive with the
// user's home directory and name stripped from every raw line and text.
func writeExport(ctx context.Context, st *store.Store, state *archive.State, opts archive.EncodeOptions, name string) (string, error) {
	path := name
	if !strings.ContainsAny(name, `/\`) && !strings.HasSuffix(name, ".ctxpkg") {
		if err := validName(name); err != nil {
			return "", err
		}
		if err := st.EnsureDir(st.ExportsDir()); err != nil {
			return "", err
		}
		path = filepath.Join(st.ExportsDir(), name+".ctxpkg")
	}
	strip := snapshot.NewStripper(st.Home(), "")
	redLine, redText := opts.RedactLine, opts.RedactText
	opts.RedactLine = func(l []byte) []byte {
		if redLine != nil {
			l = redLine(l)
		}
		return strip.Bytes(l)
	}
	opts.RedactText = func(s string) string {
		if redText != nil {
			s = redText(s)
		}
		return strip.String(s)
	}
	opts.Previous = nil
	cp := *state
	cp.Meta.DirectoryPath = strip.String(cp.Meta.DirectoryPath)
	size, err := writeAtomic(path, func(w io.Writer) error { return archive.Encode(ctx, w, &cp, opts) })
	if err != nil {
		return "", err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionExport, ExportPath: path, SizeBytes: size, Messages: len(state.Messages)})
	return path, nil
}

// runStoreRestore restores from the project's store (or --from).
func (o *restoreOptions) runStoreRestore(cmd *cobra.Command) error {
	st, a, src, note, err := o.openSource(cmd, "restoring")
	if err != nil {
		return err
	}
	defer a.Close()
	if err := requireConversation(a, src); err != nil {
		return err
	}
	if o.from != "" {
		if err := o.g.checkForeignIn(a, src, st.ProjectDir(), o.force); err != nil {
			return err
		}
	}
	if err := o.g.checkResume(a, src, o.unauth || o.from != ""); err != nil {
		return err
	}
	installed := ""
	if src != st.CurrentPath() {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		md := a.Meta()
		err = st.WithLock(context.Background(), func() error {
			res, err := st.SaveCurrent(data, store.Meta{SessionID: md.SessionID, Assistant: string(md.Harness), Messages: md.MessageCount,
				ContextTokens: md.ContextTokens, TokensUsed: md.TotalTokens, Files: md.FileCount, ToolExecutions: md.ToolCount}, store.SaveOptions{Rotate: true, KeepHistory: true})
			installed = res.Path
			if err == nil {
				err = st.ForgetInstalledHistory(src)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	proj := cmp.Or(o.projectDir, st.ProjectDir())
	res, err := o.g.restoreResumable(a, src, archive.RestoreOptions{ProjectDir: proj, ConfigDir: o.cfgDr})
	if err != nil {
		return err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionRestore, Path: src, Messages: a.Meta().MessageCount, Session: res.SessionID, Detail: note})
	var changes *snapshot.ReconcileResult
	if st.Config().ReconcileOnRestore {
		files, ferr := a.Files()
		contents, cerr := a.FileContents()
		if ferr == nil && cerr == nil {
			changes, _ = snapshot.Reconcile(st.ProjectDir(), files, contents, nil, snapshot.ExcludePatterns(st.Config()))
		}
	}
	out := cmd.OutOrStdout()
	if o.g.json {
		return printJSON(out, map[string]any{"source": src, "installed": installed, "note": note, "restore": res, "file_changes": changes})
	}
	md := a.Meta()
	lines := []string{
		"Context Restored",
		"",
		"Source:        " + tildePath(src),
		fmt.Sprintf("Last session:  %s (%s)", ago(md.LastActivity, time.Now()), md.LastActivity.Local().Format("Jan 2, 2006 3:04 PM")),
		fmt.Sprintf("Messages:      %d (%s tokens in context)", md.MessageCount, commas(md.ContextTokens)),
		fmt.Sprintf("Files tracked: %d", md.FileCount),
	}
	if changes != nil && changes.Changed() {
		lines = append(lines, "", fmt.Sprintf("⚠ %d tracked files have changed since last session", len(changes.Modified)+len(changes.Deleted)),
			"  Run `ben10 context diff` for details")
	}
	box(o.g, out, lines)
	fmt.Fprintf(out, "Resume with: cd %s && claude --resume %s\n", web.ShellQuote(res.ProjectDir), res.SessionID)
	return nil
}

// openSource opens the project's store and the saved context a restore
// reads from it (see restoreSource), with the options that read it.
func (o *restoreOptions) openSource(cmd *cobra.Command, doing string) (*store.Store, *archive.Archive, string, string, error) {
	st, err := o.project()
	if err != nil {
		return nil, nil, "", "", err
	}
	oo, err := o.restoreOpenOptions(st)
	if err != nil {
		return nil, nil, "", "", err
	}
	src, note, err := o.restoreSource(cmd, st, oo, doing)
	if err != nil {
		return nil, nil, "", "", err
	}
	a, err := archive.OpenFile(src, oo)
	return st, a, src, note, err
}

// restoreSource resolves the saved context a restore reads from the
// project's store: --name, --from, --checkpoint, or by default current.ctx,
// else the newest valid checkpoint or history file (st.Recover; note says
// which, after a warning that tells what the restore is "doing" with it).
// The source passes verifyContext (as a restore checks it).
func (o *restoreOptions) restoreSource(cmd *cobra.Command, st *store.Store, oo archive.OpenOptions, doing string) (src, note string, err error) {
	verify := verifyContext(oo, st.Config(), true)
	n := 0
	for _, set := range []bool{o.name != "", o.from != "", o.checkpoint != 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return "", "", errors.New("--name, --from and --checkpoint exclude each other")
	}
	switch {
	case o.name != "":
		if err := validName(o.name); err != nil {
			return "", "", err
		}
		src = filepath.Join(st.Root(), namedDir, o.name+".ctx")
	case o.from != "":
		src = o.from
	case o.checkpoint != 0:
		src = st.CheckpointPath(o.checkpoint)
	default:
		// (runRestoreMode has refused a current.ctx that cannot be read
		// for want of its key: it is neither replaced nor moved.)
		rec, err := st.Recover(verify)
		for _, q := range rec.Quarantined {
			fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: damaged file moved to %s\n", q)
		}
		if err != nil {
			for _, s := range rec.Skipped {
				if isKeyProblem(s) {
					return "", "", fmt.Errorf("nothing to restore: %w", s)
				}
			}
			return "", "", fmt.Errorf("nothing to restore: %w", err)
		}
		src = rec.Path
		if rec.Kind != store.KindCurrent {
			note = fmt.Sprintf("current.ctx is missing or damaged: %s the newest valid %s, %s, saved %s", doing, rec.Kind, filepath.Base(rec.Path), ago(rec.ModTime, time.Now()))
			fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: %s\n", note)
		}
	}
	if err := verify(src); err != nil {
		if errors.Is(err, errNoConversation) {
			return "", "", fmt.Errorf("%s: %w; restore an earlier checkpoint (see ben10 context list)", src, errNoConversation)
		}
		if errors.Is(err, os.ErrNotExist) && o.checkpoint != 0 {
			return "", "", fmt.Errorf("checkpoint %d does not exist (%s)", o.checkpoint, existingCheckpoints(st))
		}
		return "", "", fmt.Errorf("%s: %w", src, err)
	}
	return src, note, nil
}

// redactionTotals returns the saved archive's per-rule redaction totals
// (those of the lines copied from the archive the save built on
// included) and the summary "N secrets redacted (M in this save)".
func redactionTotals(res *snapshot.SaveResult, red *snapshot.Redactions) (map[string]int, string) {
	total := res.Redactions
	if total == nil {
		total = res.Stats.Redaction.Rules
	}
	if total == nil {
		total = red.Counts()
	}
	n := 0
	for _, v := range total {
		n += v
	}
	s := fmt.Sprintf("%d secrets redacted", n)
	if now := red.Total(); now != n {
		s += fmt.Sprintf(" (%d in this save)", now)
	}
	return total, s
}
