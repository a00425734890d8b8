package main

import (
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
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// validName accepts names for named saves and exports: letters, digits,
// '.', '_' and '-', not starting with '.'.
func validName(n string) error {
	if n == "" || strings.HasPrefix(n, ".") || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" || len(n) > 100 {
		return fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' (not starting with '.')", n)
	}
	return nil
}

// storeEncodeOptions are the encoder options of a save into the store:
// the configuration's, with the command's flags on top.
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
		pass, err := o.encryptPassphrase()
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
	state, err := transcript.Import(tr, h, archive.ImportOptions{ProjectDir: st.ProjectDir(), NoSubagents: o.noSub,
		IncludeFileContents: true, ExcludePatterns: snapshot.ExcludePatterns(cfg)})
	if err != nil {
		return err
	}
	if msgs, _ := snapshot.StateCounts(state); msgs == 0 {
		return fmt.Errorf("%s holds no conversation yet (only the assistant's metadata lines): nothing saved", tr)
	}
	opts, red, err := o.storeEncodeOptions(cmd, cfg)
	if err != nil {
		return err
	}
	opts.Progress = prog.Report()
	oo := snapshot.OpenOptions(cfg)
	if opts.Encryption != nil {
		oo = archive.OpenOptions{Passphrase: opts.Encryption.Passphrase, Key: opts.Encryption.Key}
	}
	target := ""
	switch {
	case o.out != "":
		target = o.out
	case o.name != "":
		target = filepath.Join(st.Root(), namedDir, o.name+".ctx")
	default:
		target = st.CurrentPath()
	}
	if !o.full {
		if prev, err := archive.OpenFile(target, oo); err == nil {
			defer prev.Close()
			opts.Previous = prev
		}
	}
	var stats archive.EncodeStats
	write := func(w io.Writer) error {
		var err error
		stats, err = archive.EncodeWithStats(w, state, opts)
		return err
	}
	var size int64
	var warns []string
	rotated := ""
	err = st.WithLock(context.Background(), func() error {
		if target != st.CurrentPath() {
			if err := st.EnsureDir(filepath.Dir(target)); err != nil {
				return err
			}
			size, err = writeArchiveAtomic(target, write)
			return err
		}
		rotate := false
		if old, err := st.ReadMeta(); err == nil && old.SessionID != "" && old.SessionID != state.Meta.SessionID {
			rotate = true // a new session: keep the previous one's final state in history/
		}
		meta := store.Meta{SessionID: state.Meta.SessionID, Assistant: string(state.Meta.Harness), Transcript: absOr(tr),
			Messages: len(state.Messages), ContextTokens: state.Meta.ContextTokens, TokensUsed: state.Meta.TotalTokens, Files: len(state.Files), ToolExecutions: len(state.Tools),
			Extra: map[string]any{"redactions": red.Counts()}}
		res, err := st.SaveCurrentFunc(write, meta, store.SaveOptions{Rotate: rotate})
		if err != nil {
			return err
		}
		size, rotated = res.Meta.SizeBytes, res.Rotated
		for _, w := range res.Warnings {
			warns = append(warns, w.String())
		}
		return nil
	})
	if err != nil {
		return err
	}
	prog.Done()
	_ = st.Audit(store.AuditEntry{Action: store.ActionSave, Path: target, SizeBytes: size, Messages: len(state.Messages),
		RedactionsApplied: red.Total(), Session: state.Meta.SessionID})
	exported := ""
	if o.export != "" {
		if exported, err = writeExport(st, state, opts, o.export); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	o.g.printWarnings(cmd, warns)
	if o.g.json {
		return printJSON(out, map[string]any{
			"archive": target, "bytes": size, "raw_bytes": stats.RawBytes, "copied_segments": stats.CopiedSegments,
			"session_id": state.Meta.SessionID, "transcript": tr, "messages": len(state.Messages), "tools": len(state.Tools),
			"files": len(state.Files), "file_contents": len(state.FileContents), "redactions": red.Counts(),
			"encrypted": opts.Encryption != nil, "rotated": rotated, "export": exported, "elapsed_ms": time.Since(start).Milliseconds(),
		})
	}
	o.g.infof(out, "saved %s (%s): %d messages, %d tools, %d files, %d secrets redacted\n", target, humanBytes(size),
		len(state.Messages), len(state.Tools), len(state.Files), red.Total())
	if rotated != "" {
		o.g.infof(out, "previous session's context kept as %s\n", rotated)
	}
	if exported != "" {
		o.g.infof(out, "exported %s (home directory and user name stripped)\n", exported)
	}
	return nil
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// writeExport writes the portable package: the same archive with the
// user's home directory and name stripped from every raw line and text.
func writeExport(st *store.Store, state *archive.State, opts archive.EncodeOptions, name string) (string, error) {
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
	size, err := writeArchiveAtomic(path, func(w io.Writer) error { return archive.Encode(w, &cp, opts) })
	if err != nil {
		return "", err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionExport, ExportPath: path, SizeBytes: size, Messages: len(state.Messages)})
	return path, nil
}

// runStoreRestore restores from the project's store (or --from).
func (o *restoreOptions) runStoreRestore(cmd *cobra.Command) error {
	st, _, err := o.g.openProject(o.dir, false)
	if err != nil {
		return err
	}
	oo := snapshot.OpenOptions(st.Config())
	if o.passFile != "" {
		pass, err := readPassphrase(o.passFile)
		if err != nil {
			return err
		}
		oo = archive.OpenOptions{Passphrase: pass}
	}
	verify := verifyForRestore(oo, st.Config())
	n := 0
	for _, set := range []bool{o.name != "", o.from != "", o.checkpoint != 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("--name, --from and --checkpoint exclude each other")
	}
	src, note := "", ""
	switch {
	case o.name != "":
		if err := validName(o.name); err != nil {
			return err
		}
		src = filepath.Join(st.Root(), namedDir, o.name+".ctx")
	case o.from != "":
		src = o.from
	case o.checkpoint != 0:
		src = st.CheckpointPath(o.checkpoint)
	default:
		// current.ctx that cannot be read for want of its key is neither
		// replaced by an older file nor moved: the user is told the key.
		if _, serr := os.Stat(st.CurrentPath()); serr == nil {
			if err := verify(st.CurrentPath()); isKeyProblem(err) {
				return fmt.Errorf("%s: %w", st.CurrentPath(), err)
			}
		}
		rec, err := st.Recover(verify)
		for _, q := range rec.Quarantined {
			fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: damaged file moved to %s\n", q)
		}
		if err != nil {
			for _, s := range rec.Skipped {
				if isKeyProblem(s) {
					return fmt.Errorf("nothing to restore: %w", s)
				}
			}
			return fmt.Errorf("nothing to restore: %w", err)
		}
		src = rec.Path
		if rec.Kind != store.KindCurrent {
			note = fmt.Sprintf("current.ctx is missing or damaged: restoring the newest valid %s, %s, saved %s", rec.Kind, filepath.Base(rec.Path), ago(rec.ModTime, time.Now()))
			fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: %s\n", note)
		}
	}
	if err := verify(src); err != nil {
		if errors.Is(err, errNoConversation) {
			return fmt.Errorf("%s: %w; restore an earlier checkpoint (see ben10 context list)", src, errNoConversation)
		}
		if errors.Is(err, os.ErrNotExist) && o.checkpoint != 0 {
			return fmt.Errorf("checkpoint %d does not exist (%s)", o.checkpoint, existingCheckpoints(st))
		}
		return fmt.Errorf("%s: %w", src, err)
	}
	a, err := archive.OpenFile(src, oo)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := requireConversation(a, src); err != nil {
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
				ContextTokens: md.ContextTokens, TokensUsed: md.TotalTokens, Files: md.FileCount, ToolExecutions: md.ToolCount}, store.SaveOptions{Rotate: true})
			installed = res.Path
			return err
		})
		if err != nil {
			return err
		}
	}
	proj := o.projectDir
	if proj == "" {
		proj = st.ProjectDir()
	}
	res, err := a.Restore(archive.RestoreOptions{ProjectDir: proj, ConfigDir: o.cfgDr})
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
	fmt.Fprintf(out, "Resume with: cd %s && claude --resume %s\n", shellQuote(res.ProjectDir), res.SessionID)
	return nil
}
