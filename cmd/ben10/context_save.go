package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/web"
)

// saveOptions are the flags of `ben10 context save` and the global options.
type saveOptions struct {
	g                                *globalOptions
	transcript, out, passFile, level string
	redact, encrypt, noSub           bool
	full                             bool
	name, export, dir                string
	harness                          string // --harness
}

// newContextSaveCmd builds `ben10 context save`.
func newContextSaveCmd(g *globalOptions) *cobra.Command {
	o := &saveOptions{g: g}
	contextSaveCmd := &cobra.Command{
		Use:   "save [--transcript PATH] [--out FILE | --name N] [--export NAME|PATH] [--dir DIR]",
		Short: "Capture a session losslessly into a .ctx archive (by default the project's current.ctx)",
		Long: `Save imports a session transcript (Claude Code, Codex, Gemini CLI or Kimi;
detected) and writes a .ctx archive holding the raw transcript byte for byte
plus the context model. Without --transcript it takes the most recently
modified transcript of the project's Claude Code folder
($CLAUDE_CONFIG_DIR or ~/.claude, projects/<encoded project path>/).

Without --out the archive becomes the project's .claude/context/current.ctx
(the previous one moves to history/ when the session changed), written under
the store lock with redaction, compression and encryption from the
configuration; --name N saves it as .claude/context/named/N.ctx instead.
--export also writes a portable package with user-specific data stripped:
a bare NAME goes to .claude/context/exports/NAME.ctxpkg. Stripping replaces
the absolute home directory by "~" and the user name in /home/NAME,
/Users/NAME and C:\Users\NAME paths by "user".

When the target already exists and the transcript only grew, the unchanged
raw segments are copied and only the new tail is compressed.`,
		Args: cobra.NoArgs,
		RunE: o.runContextSave,
	}
	f := contextSaveCmd.Flags()
	f.StringVar(&o.transcript, "transcript", "", "session file (Claude Code <session>.jsonl, Codex rollout, Gemini session, Kimi context.jsonl)")
	f.StringVar(&o.out, "out", "", "archive to write (.ctx)")
	f.BoolVar(&o.redact, "redact", true, "hide secrets before storing")
	f.BoolVar(&o.encrypt, "encrypt", false, "encrypt the archive (with --passphrase-file or $BEN10_PASSPHRASE)")
	f.StringVar(&o.passFile, "passphrase-file", "", "file holding the passphrase (first line)")
	f.StringVar(&o.level, "level", "better", "compression level: fastest, default, better, best, max")
	f.BoolVar(&o.noSub, "no-subagents", false, "leave out <session>/subagents/*.jsonl")
	f.BoolVar(&o.full, "full", false, "re-encode everything even when --out can be updated")
	f.StringVar(&o.name, "name", "", "save as a named context (.claude/context/named/NAME.ctx)")
	f.StringVar(&o.export, "export", "", "also write a portable .ctxpkg (NAME → .claude/context/exports/NAME.ctxpkg, or a path)")
	f.StringVar(&o.dir, "dir", "", "project directory (default: the current directory)")
	f.StringVar(&o.harness, "harness", "", "claude, codex, gemini or kimi (default: detected from the file)")
	return contextSaveCmd
}

// inspectOptions are the flags of `ben10 context inspect` and the global options.
type inspectOptions struct {
	g                                          *globalOptions
	messages, files, tools, tasks, compactions bool
	passFile                                   string
}

// newContextInspectCmd builds `ben10 context inspect`.
func newContextInspectCmd(g *globalOptions) *cobra.Command {
	o := &inspectOptions{g: g}
	contextInspectCmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show what a .ctx archive holds",
		Args:  cobra.ExactArgs(1),
		RunE:  o.runContextInspect,
	}
	f := contextInspectCmd.Flags()
	f.BoolVar(&o.messages, "messages", false, "list the conversation")
	f.BoolVar(&o.files, "files", false, "list the file registry")
	f.BoolVar(&o.tools, "tools", false, "list tool executions")
	f.BoolVar(&o.tasks, "tasks", false, "show the task state")
	f.BoolVar(&o.compactions, "compactions", false, "list compactions")
	f.StringVar(&o.passFile, "passphrase-file", "", "passphrase of an encrypted archive")
	return contextInspectCmd
}

// exportOptions are the flags of `ben10 context export` and the global options.
type exportOptions struct {
	g                     *globalOptions
	format, dir, passFile string
	out                   string // --out
}

// newContextExportCmd builds `ben10 context export`.
func newContextExportCmd(g *globalOptions) *cobra.Command {
	o := &exportOptions{g: g}
	contextExportCmd := &cobra.Command{
		Use:   "export FILE --format jsonl --dir D",
		Short: "Write an archive's raw transcript files under a directory",
		Args:  cobra.ExactArgs(1),
		RunE:  o.runContextExport,
	}
	f := contextExportCmd.Flags()
	f.StringVar(&o.format, "format", "jsonl", "export format: jsonl (the raw transcript files, with --dir), cusf, markdown, json")
	f.StringVar(&o.dir, "dir", "", "directory to write into")
	f.StringVar(&o.passFile, "passphrase-file", "", "passphrase of an encrypted archive")
	f.StringVar(&o.out, "out", "", "file to write (cusf, markdown, json; default: stdout)")
	return contextExportCmd
}

// restoreOptions are the flags of `ben10 context restore` and the global options.
type restoreOptions struct {
	g                           *globalOptions
	resume                      bool
	projectDir, passFile, cfgDr string
	name, from, dir             string
	checkpoint                  int
	mode, components, onCorrupt string
	force, unauth               bool
	st                          *store.Store // see project
}

// newContextRestoreCmd builds `ben10 context restore`.
func newContextRestoreCmd(g *globalOptions) *cobra.Command {
	o := &restoreOptions{g: g}
	contextRestoreCmd := &cobra.Command{
		Use:   "restore [FILE --resume | --name N | --from PATH | --checkpoint K] [--dir DIR]",
		Short: "Restore a saved context as a resumable Claude Code session",
		Long: `Restore writes an archive's transcript into Claude Code's projects folder
for the project directory under a fresh session id, so that
'claude --resume <id>' opens the full conversation. It never overwrites an
existing file.

FILE --resume restores that archive. Otherwise the source is a named save
(--name), an archive or export (--from), a checkpoint (--checkpoint K), or by
default the project's current.ctx — when that fails verification, the newest
valid checkpoint, then history file, says which one and how old. A source
other than current.ctx is first installed as current.ctx (the previous one
moves to history/). With reconcile_on_restore, changed tracked files are
reported.

A session is restored only from an archive your key authenticates: one a
cloned repository planted in the project's store, or one pulled from a
teammate, is refused unless --include-unauthenticated is given. A FILE
or --from PATH you name is your choice: restored, with a warning when it
is not authenticated as yours.`,
		Args: cobra.MaximumNArgs(1),
		RunE: o.runContextRestore,
	}
	f := contextRestoreCmd.Flags()
	f.BoolVar(&o.resume, "resume", false, "restore as a resumable Claude Code session")
	f.StringVar(&o.projectDir, "project-dir", "", "project directory to resume in (default: current directory)")
	f.StringVar(&o.cfgDr, "config-dir", "", "Claude Code config directory (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
	f.StringVar(&o.passFile, "passphrase-file", "", "passphrase of an encrypted archive")
	f.StringVar(&o.name, "name", "", "restore the named save NAME")
	f.StringVar(&o.from, "from", "", "restore this archive or .ctxpkg export")
	f.IntVar(&o.checkpoint, "checkpoint", 0, "restore checkpoint K (cp-K)")
	f.StringVar(&o.dir, "dir", "", "project directory (default: the current directory)")
	f.BoolVar(&o.force, "force", false, "restore an archive saved in another project (its working directory is mapped to this one)")
	f.BoolVar(&o.unauth, "include-unauthenticated", false, "restore a saved context of the store not authenticated as yours")
	o.addModeFlags(contextRestoreCmd)
	return contextRestoreCmd
}

// passphrase is the first line of the passphrase file (--passphrase-file)
// when one is named, else $BEN10_PASSPHRASE, else nil.
func passphrase(file string) ([]byte, error) {
	if file != "" {
		return readPassphrase(file)
	}
	if p := os.Getenv("BEN10_PASSPHRASE"); p != "" {
		return []byte(p), nil
	}
	return nil, nil
}

// readPassphrase is the first line of the file p (nil for "").
func readPassphrase(p string) ([]byte, error) {
	if p == "" {
		return nil, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading passphrase file: %w", err)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("passphrase file %s: empty first line", p)
	}
	return b, nil
}

func openArchive(path, passFile string) (*archive.Archive, error) {
	pass, err := passphrase(passFile)
	if err != nil {
		return nil, err
	}
	return archive.OpenFile(path, archive.OpenOptions{Passphrase: pass})
}

func (o *saveOptions) runContextSave(cmd *cobra.Command, args []string) error {
	if o.out == "" || o.transcript == "" || o.name != "" || o.export != "" {
		return o.runStoreSave(cmd, args)
	}
	return o.runFileSave(cmd)
}

func (o *saveOptions) runFileSave(cmd *cobra.Command) error {
	if !o.encrypt && o.passFile != "" {
		return errors.New("--passphrase-file is only used with --encrypt")
	}
	// Outside a store: zstd and, with --redact, the built-in redaction
	// rules with their defaults (so an archive saved so before is built
	// on: its raw lines are redacted the same way).
	opts, _, err := o.storeEncodeOptions(cmd, &store.Config{SensitiveRedaction: true, Compression: true})
	if err != nil {
		return err
	}
	var pass []byte
	if opts.Encryption != nil {
		pass = opts.Encryption.Passphrase
	}
	start := time.Now()
	// The save's memory budget, as every save's (the archive is written
	// to its file as it is encoded).
	defer snapshot.LimitMemory(o.transcript)()
	if !o.full {
		// An existing archive this build can read is the base of an
		// incremental save; anything else is simply replaced.
		if prev, err := archive.OpenFile(o.out, archive.OpenOptions{Passphrase: pass}); err == nil {
			defer prev.Close()
			opts.Previous = prev
		}
	}
	var (
		st    *archive.State
		stats archive.EncodeStats
	)
	prog := o.g.newBytesProgress("Saving", 0)
	defer prog.Done()
	opts.Progress = prog.Report()
	h, err := resolveHarness(o.harness, o.transcript)
	if err != nil {
		return err
	}
	size, err := writeAtomic(o.out, func(w io.Writer) (err error) {
		st, stats, err = transcript.Save(cmd.Context(), w, o.transcript, h, archive.ImportOptions{NoSubagents: o.noSub}, opts)
		return err
	})
	if err != nil {
		return err
	}
	prog.Done()
	elapsed := time.Since(start)
	out := cmd.OutOrStdout()
	if o.g.json {
		return printJSON(out, map[string]any{
			"archive": o.out, "bytes": size, "raw_bytes": stats.RawBytes,
			"copied_segments": stats.CopiedSegments, "copied_bytes": stats.CopiedBytes, "encoded_bytes": stats.EncodedBytes,
			"session_id": st.Meta.SessionID, "messages": st.Meta.MessageCount, "tools": st.Meta.ToolCount, "files": st.Meta.FileCount,
			"import": st.Import, "redacted": o.redact, "redactions": stats.Redaction.Rules, "encrypted": pass != nil, "elapsed_ms": elapsed.Milliseconds(),
		})
	}
	o.g.infof(out, "saved %s: %d bytes (raw transcript %d bytes in %d files), %d messages, %d tools, %d files",
		o.out, size, stats.RawBytes, len(st.Raw), st.Meta.MessageCount, st.Meta.ToolCount, st.Meta.FileCount)
	if stats.CopiedSegments > 0 {
		o.g.infof(out, "; incremental: %d raw segments (%d bytes) copied", stats.CopiedSegments, stats.CopiedBytes)
	}
	o.g.infof(out, "\n")
	if r := st.Import; r.Skipped+r.Partial > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: %d lines skipped, %d partial (kept raw); first: %s\n", r.Skipped, r.Partial, strings.Join(r.Problems[:min(3, len(r.Problems))], "; "))
	}
	return nil
}

// writeAtomic writes path through a store.AtomicFile (0600, in a
// directory it creates if need be): the file appears complete or not at
// all. It returns the bytes written.
func writeAtomic(path string, write func(io.Writer) error) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, err
	}
	f, err := store.CreateAtomic(path, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Abort()
	cw := &countWriter{w: f}
	if err := write(cw); err != nil {
		return 0, err
	}
	return cw.n, f.Commit()
}

func utc(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func (o *inspectOptions) runContextInspect(cmd *cobra.Command, args []string) error {
	a, err := openArchive(args[0], o.passFile)
	if err != nil {
		return err
	}
	defer a.Close()
	out := cmd.OutOrStdout()
	switch {
	case o.messages:
		ms, err := a.Messages()
		return o.g.table(out, ms, err, func(tw io.Writer) {
			for _, m := range ms {
				side := ""
				if m.Sidechain {
					side = " [" + m.AgentID + "]"
				}
				fmt.Fprintf(tw, "%s\t%s/%s%s\t%s\n", utc(m.Timestamp), m.Role, m.Kind, side, oneLine(m.Text, 100))
			}
		})
	case o.files:
		fs, err := a.Files()
		return o.g.table(out, fs, err, func(tw io.Writer) {
			fmt.Fprintln(tw, "PATH\tREADS\tEDITS\tWRITES\tLAST ACCESS")
			for _, f := range fs {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", f.Path, f.Reads, f.Edits, f.Writes, utc(f.LastAccess))
			}
		})
	case o.tools:
		ts, err := a.Tools()
		return o.g.table(out, ts, err, func(tw io.Writer) {
			for _, t := range ts {
				status := "ok"
				if !t.Success {
					status = "error"
				}
				what := cmp.Or(t.Command, strings.Join(t.RelatedFiles, " "), t.Input)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", utc(t.Timestamp), t.Name, status, oneLine(what, 90))
			}
		})
	case o.tasks:
		ts, err := a.Tasks()
		return o.g.table(out, ts, err, func(w io.Writer) {
			for _, g := range []struct {
				name string
				list []archive.Task
			}{{"active", ts.Active}, {"pending", ts.Pending}, {"completed", ts.Completed}} {
				fmt.Fprintf(w, "%s (%d)\n", g.name, len(g.list))
				for _, t := range g.list {
					fmt.Fprintf(w, "  - %s\n", oneLine(t.Content, 100))
				}
			}
		})
	case o.compactions:
		cs, err := a.Compactions()
		return o.g.table(out, cs, err, func(w io.Writer) {
			for _, c := range cs {
				fmt.Fprintf(w, "%s  trigger=%s pre_tokens=%d messages_before=%d\n  %s\n", utc(c.Timestamp), c.Trigger, c.PreTokens, c.MessageIndex, oneLine(c.Summary, 160))
			}
		})
	}
	s := a.Summary()
	if o.g.json {
		return printJSON(out, s)
	}
	m := s.Meta
	rows := [][2]string{
		{"harness", string(m.Harness)},
		{"session", m.SessionID},
		{"title", m.Title},
		{"directory", m.DirectoryPath},
		{"git branch", m.GitBranch},
		{"model", m.Model},
		{"client version", m.ClientVersion},
		{"subagents", strings.Join(m.SubagentIDs, ", ")},
		{"activity", utc(m.FirstActivity) + " .. " + utc(m.LastActivity)},
		{"messages", fmt.Sprint(m.MessageCount)},
		{"tool executions", fmt.Sprint(m.ToolCount)},
		{"files", fmt.Sprint(m.FileCount)},
		{"context tokens", fmt.Sprintf("%d of a %d-token window (the last request's input and cache)", m.ContextTokens, m.ContextWindow)},
		{"tokens used", fmt.Sprintf("%d (all requests)", m.TotalTokens)},
		{"compactions", fmt.Sprint(s.Compactions)},
		{"tasks", fmt.Sprintf("%d active, %d pending, %d completed", s.TasksActive, s.TasksPend, s.TasksDone)},
		{"preferences", fmt.Sprint(s.Preferences)},
		{"redacted", redactedRow(s.Redaction)},
		{"import", fmt.Sprintf("%d lines, %d blank, %d skipped, %d partial, %d invalid UTF-8", s.Import.Lines, s.Import.Blank, s.Import.Skipped, s.Import.Partial, s.Import.InvalidUTF8)},
	}
	for _, f := range s.RawFiles {
		rows = append(rows, [2]string{"raw", fmt.Sprintf("%s (%d bytes, %d segments)", f.Name, f.Size, f.Segments)})
	}
	return writeRows(out, rows)
}

func (o *exportOptions) runContextExport(cmd *cobra.Command, args []string) error {
	if o.format != "jsonl" {
		return runFormattedExport(cmd.Context(), o.g, cmd.OutOrStdout(), args[0], o.format, o.out, o.passFile)
	}
	if o.dir == "" {
		return errors.New("--format jsonl needs --dir")
	}
	a, err := openArchive(args[0], o.passFile)
	if err != nil {
		return err
	}
	defer a.Close()
	paths, err := a.ExportRaw(o.dir)
	if err != nil {
		return err
	}
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), map[string]any{"files": paths})
	}
	for _, p := range paths {
		o.g.infof(cmd.OutOrStdout(), "%s\n", p)
	}
	return nil
}

func (o *restoreOptions) runContextRestore(cmd *cobra.Command, args []string) error {
	if handled, err := o.runRestoreMode(cmd, args); handled {
		return err
	}
	if len(args) == 0 {
		return o.runStoreRestore(cmd)
	}
	if !o.resume {
		return errors.New("restore FILE needs --resume (or use --from FILE to install it as the project's context)")
	}
	a, err := openArchive(args[0], o.passFile)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := requireConversation(a, args[0]); err != nil {
		return err
	}
	dir := o.projectDir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	if err := o.g.checkForeignIn(a, args[0], dir, o.force); err != nil {
		return err
	}
	if err := o.g.checkResume(a, args[0], true); err != nil {
		return err
	}
	res, err := o.g.restoreResumable(a, args[0], archive.RestoreOptions{ProjectDir: dir, ConfigDir: o.cfgDr})
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.g.json {
		return printJSON(out, res)
	}
	fmt.Fprintf(out, "restored session %s (was %s) into %s\n", res.SessionID, res.OldSessionID, res.Dir)
	if res.DroppedPartial {
		fmt.Fprintf(out, "note: an incomplete last line was left out\n")
	}
	fmt.Fprintf(out, "resume with: cd %s && claude --resume %s\n", web.ShellQuote(res.ProjectDir), res.SessionID)
	return nil
}

// redactedRow is inspect's redaction line: the secrets the archive's raw
// transcript had replaced ("at least" the changed lines for an archive
// written before the totals were recorded), then the lines and texts
// changed.
func redactedRow(r archive.RedactionReport) string {
	if !r.Enabled {
		return fmt.Sprintf("false (%d transcript lines, %d texts changed)", r.LinesChanged, r.TextsChanged)
	}
	n, exact := r.Total()
	secrets := secretsText(n)
	if !exact {
		secrets = "at least " + secrets
	}
	return fmt.Sprintf("true (%s; %d transcript lines, %d texts changed)", secrets, r.LinesChanged, r.TextsChanged)
}

// secretsText is "1 secret" or "N secrets".
func secretsText(n int) string {
	if n == 1 {
		return "1 secret"
	}
	return fmt.Sprintf("%d secrets", n)
}
