package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/web"
)

// compactionOptions are the flags of the `context compaction` commands
// (one process runs one of them) and the global options.
type compactionOptions struct {
	g                                        *globalOptions
	dir, transcript, session, trigger, level string
	verbose, force, regex, messages, files   bool
	yes, unauth                              bool
	tools                                    bool
	partial, out, format, rng, projectDir    string
	cfgDir, glob, tool                       string
	limit                                    int
}

// newCompactionCmd builds `context compaction` and its subcommands.
func newCompactionCmd(g *globalOptions) *cobra.Command {
	o := &compactionOptions{g: g}
	compactionCmd := &cobra.Command{
		Use:   "compaction",
		Short: "Pre-compaction snapshots: list, show, diff, restore, extract, search, pin, prune",
		Long: `Ben10 snapshots the full context right before Claude Code compacts it.
Snapshots live in .claude/context/compaction-snapshots/ and are listed in
index.json. Wherever an ID is asked for, a unique prefix of the
YYYYMMDD-HHMMSS-<session> part or the session suffix (a1b2c3) works.`,
	}
	pf := compactionCmd.PersistentFlags()
	pf.StringVar(&o.dir, "dir", "", "project directory (default: the current directory)")
	sub := func(use, short string, args cobra.PositionalArgs, run func(*cobra.Command, []string) error) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: args, RunE: run}
		compactionCmd.AddCommand(c)
		return c
	}
	l := sub("list", "List snapshots (reads index.json, or its listing cache)", cobra.NoArgs, g.inProject(&o.dir, true, o.runCompList))
	l.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "more columns and the command summary")
	sub("show ID", "Show a snapshot's details", cobra.ExactArgs(1), g.inProject(&o.dir, true, o.runCompShow))
	sub("diff ID", "Compare a snapshot with the current context, with the detail compaction lost", cobra.ExactArgs(1), g.inProject(&o.dir, true, o.runCompDiff))
	r := sub("restore ID", "Restore a snapshot as a resumable session, or part of it", cobra.ExactArgs(1), g.inProject(&o.dir, false, o.runCompRestore))
	r.Flags().StringVar(&o.partial, "partial", "", "messages=A-B (Markdown) | tools[=NAME] (JSONL) | files[=GLOB] (back into the project)")
	r.Flags().StringVar(&o.out, "out", "", "with --partial messages/tools: file to write (default stdout)")
	r.Flags().BoolVar(&o.force, "force", false, "with --partial files: overwrite files that differ")
	r.Flags().StringVar(&o.projectDir, "project-dir", "", "project to resume in (default: the project)")
	r.Flags().StringVar(&o.cfgDir, "config-dir", "", "Claude Code config directory (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
	r.Flags().BoolVar(&o.unauth, "include-unauthenticated", false, "restore as a session a snapshot not authenticated as yours (a planted or pulled one)")
	x := sub("extract ID (--messages | --files | --tools)", "Extract messages (Markdown/JSONL), tool executions (JSONL) or captured files", cobra.ExactArgs(1), g.inProject(&o.dir, true, o.runCompExtract))
	x.Flags().BoolVar(&o.messages, "messages", false, "the conversation")
	x.Flags().BoolVar(&o.files, "files", false, "captured file contents (into --out DIR)")
	x.Flags().BoolVar(&o.tools, "tools", false, "tool executions as JSONL")
	x.Flags().StringVar(&o.format, "format", "markdown", "messages: markdown or jsonl")
	x.Flags().StringVar(&o.rng, "range", "", "messages: A-B (1-based, inclusive)")
	x.Flags().StringVar(&o.out, "out", "", "file (messages, tools; default stdout) or directory (files)")
	x.Flags().StringVar(&o.glob, "glob", "", "files: only paths matching this pattern")
	x.Flags().StringVar(&o.tool, "tool", "", "tools: only this tool")
	x.Flags().BoolVar(&o.force, "force", false, "files: overwrite existing files")
	sub("pin ID", "Pin a snapshot (never pruned)", cobra.ExactArgs(1), g.inProject(&o.dir, false, o.runCompPin(true)))
	sub("unpin ID", "Unpin a snapshot", cobra.ExactArgs(1), g.inProject(&o.dir, false, o.runCompPin(false)))
	del := sub("delete ID", "Delete a snapshot (asks first on a terminal, unless --yes)", cobra.ExactArgs(1), g.inProject(&o.dir, false, o.runCompDelete))
	del.Flags().BoolVarP(&o.yes, "yes", "y", false, "do not ask for confirmation")
	pr := sub("prune", "Apply the retention policy now (asks first on a terminal, unless --yes)", cobra.NoArgs, g.inProject(&o.dir, false, o.runCompPrune))
	pr.Flags().BoolVarP(&o.yes, "yes", "y", false, "do not ask for confirmation")
	sub("export ID PATH", "Write a snapshot as a standalone .ctx file", cobra.ExactArgs(2), g.inProject(&o.dir, true, o.runCompExport))
	s := sub("snapshot", "Take a snapshot now (what the PreCompact hook does)", cobra.NoArgs, g.inProject(&o.dir, false, o.runCompSnapshot))
	s.Flags().StringVar(&o.transcript, "transcript", "", "transcript (default: the newest of this project's Claude Code folder)")
	s.Flags().StringVar(&o.session, "session", "", "session id (default: the transcript's)")
	s.Flags().StringVar(&o.trigger, "trigger", "manual", "auto | manual")
	s.Flags().StringVar(&o.level, "level", "", "compression level (default: compaction_snapshots.compression_level)")
	s.Flags().BoolVar(&o.force, "force", false, "bypass the debounce (and compaction_snapshots.enabled)")
	q := sub("search QUERY", "Search every snapshot's messages and tool inputs/outputs", cobra.ExactArgs(1), g.inProject(&o.dir, true, o.runCompSearch))
	q.Flags().BoolVar(&o.regex, "regex", false, "QUERY is a Go regular expression (default: literal, case-insensitive)")
	q.Flags().IntVar(&o.limit, "limit", 0, "stop after this many hits (0 = all)")
	return compactionCmd
}

func (o *compactionOptions) runCompList(cmd *cobra.Command, _ []string, st *store.Store, m *snapshot.Manager) error {
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	ix, err := m.Index()
	if err != nil {
		return err
	}
	if o.g.json {
		return printJSON(out, ix)
	}
	t, cfg := snapshot.NewListTable(ix, o.verbose), st.Config().CompactionSnapshots
	fmt.Fprintf(out, "Compaction Snapshots for %s\n%s\n\n", tildePath(st.ProjectDir()), rule(62))
	if t.Count == 0 {
		fmt.Fprintf(out, "No snapshots yet. One is taken before every compaction (or: ben10 context compaction snapshot).\n")
		return nil
	}
	out.Write(t.AppendTo(nil))
	fmt.Fprintf(out, "\nTotal: %d snapshots (%s)\n", t.Count, humanBytes(t.TotalBytes))
	fmt.Fprintf(out, "Retention: %d snapshots / %d days / %d MB max\n", cfg.RetentionCount, cfg.RetentionDays, cfg.MaxStorageMB)
	if o.verbose {
		fmt.Fprintf(out, "\nCommands:\n  ben10 context compaction show <id>     View snapshot details\n  ben10 context compaction diff <id>     Compare with current context\n  ben10 context compaction restore <id>  Restore pre-compaction state\n")
	}
	return nil
}

func (o *compactionOptions) runCompShow(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
	a, s, err := m.OpenArchive(args[0])
	if err != nil {
		return err
	}
	defer a.Close()
	sum := a.Summary()
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	if o.g.json {
		return printJSON(out, map[string]any{"snapshot": s, "path": m.Path(s), "archive": sum})
	}
	pin := "no"
	if s.Pinned {
		pin = "yes 📌"
	}
	post := "~unknown"
	if s.PostCompaction.TokenCount > 0 {
		post = commas(s.PostCompaction.TokenCount)
	}
	fmt.Fprintf(out, "Snapshot %s\n%s\n\n", s.ID, rule(62))
	writeRows(out, [][2]string{
		{"Created", s.CreatedAt.Local().Format("Jan 2, 2006 3:04:05 PM MST") + " (" + ago(s.CreatedAt, time.Now()) + ")"},
		{"Session", s.SessionID},
		{"Trigger", s.Trigger + " (" + orNone(s.Source) + ")"},
		{"Token count", commas(s.PreCompaction.TokenCount) + " (before) → " + post + " (after)"},
		{"Messages", fmt.Sprintf("%d preserved", s.PreCompaction.MessageCount)},
		{"Tool executions", fmt.Sprint(s.PreCompaction.ToolExecutionCount)},
		{"Files", fmt.Sprintf("%d tracked, %d contents captured", s.PreCompaction.FileCount, s.FileContents)},
		{"Size", fmt.Sprintf("%s (compressed: %s, level %s)", humanBytes(s.UncompressedBytes), humanBytes(s.CompressedBytes), orNone(s.Level))},
		{"Redactions", snapshotRedactions(s.Redactions, a.Redaction())},
		{"SHA-256", s.ContentHash},
		{"Pinned", pin},
		{"Tags", strings.Join(s.Tags, ", ")},
		{"Notes", s.Notes},
		{"Title", sum.Meta.Title},
		{"Model", sum.Meta.Model},
		{"Tasks", fmt.Sprintf("%d active, %d pending, %d completed", sum.TasksActive, sum.TasksPend, sum.TasksDone)},
		{"Transcript", s.Transcript},
		{"File", m.Path(s)},
	})
	fmt.Fprintf(out, "\nRestore anytime: ben10 context compaction restore %s\n", lastPart(s.ID))
	return nil
}

func (o *compactionOptions) runCompDiff(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
	d, err := m.Diff(args[0], nil)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	if o.g.json {
		return printJSON(out, d)
	}
	fmt.Fprintf(out, "Comparing: %s vs Current Context\n%s\n", d.Snapshot.ID, rule(62))
	fmt.Fprintf(out, "Current:   %s\n\n", tildePath(d.CurrentSource))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tSnapshot\tCurrent\tDelta")
	summ := ""
	if d.Compacted {
		summ = fmt.Sprintf(" (+%d summarized)", d.Summarized)
	}
	fmt.Fprintf(tw, "Context tokens\t%s\t%s\t%s\n", commas(d.Snap.Tokens), commas(d.Current.Tokens), signed(d.Current.Tokens-d.Snap.Tokens))
	fmt.Fprintf(tw, "Messages in context\t%d\t%d%s\t%s\n", d.Snap.Messages, d.Current.Messages, summ, signed(int64(d.Current.Messages-d.Snap.Messages)))
	fmt.Fprintf(tw, "Files in context\t%d\t%d\t%s\n", d.Snap.Files, d.Current.Files, signed(int64(d.Current.Files-d.Snap.Files)))
	fmt.Fprintf(tw, "Tool executions\t%d\t%d\t%s\n", d.Snap.ToolExecutions, d.Current.ToolExecutions, signed(int64(d.Current.ToolExecutions-d.Snap.ToolExecutions)))
	tw.Flush()
	fmt.Fprintf(out, "\nLost Detail (in current compacted context):\n%s\n", thin(62))
	if len(d.LostSpans)+len(d.LostTools)+len(d.LostFiles) == 0 {
		fmt.Fprintln(out, "• Nothing: every message of the snapshot is still in the context")
	}
	for i, sp := range d.LostSpans {
		if i == 12 {
			fmt.Fprintf(out, "• … %d more spans\n", len(d.LostSpans)-i)
			break
		}
		fmt.Fprintf(out, "• %s %q (messages %d-%d, %d tool calls, %d errors, %s)\n", titleCase(sp.Status), sp.Title, sp.From, sp.To, sp.ToolCalls, sp.Errors, humanBytes(int64(sp.Bytes)))
	}
	for _, f := range d.LostFiles {
		fmt.Fprintf(out, "• Complete file contents: %s (%s lines, %s)\n", f.Path, commas(int64(f.Lines)), f.Source)
	}
	if d.LostToolCount > 0 {
		fmt.Fprintf(out, "• %d tool outputs (%s), largest:\n", d.LostToolCount, humanBytes(int64(d.LostToolBytes)))
		for i, t := range d.LostTools {
			if i == 5 {
				break
			}
			status := ""
			if !t.Success {
				status = ", failed"
			}
			fmt.Fprintf(out, "    %s %s (message %d, %s lines%s)\n", t.Name, oneLine(t.Subject, 60), t.Message, commas(int64(t.OutputLines)), status)
		}
	}
	fmt.Fprintf(out, "\nPreserved (in current compacted context):\n%s\n", thin(62))
	for _, p := range d.Preserved {
		fmt.Fprintf(out, "• %s\n", p)
	}
	id := lastPart(d.Snapshot.ID)
	fmt.Fprintf(out, "\nActions:\n  ben10 context compaction restore %s                      Restore the full snapshot as a session\n  ben10 context compaction extract %s --messages --range A-B  Extract messages to a file\n  ben10 context compaction search QUERY                  Search within snapshots\n", id, id)
	return nil
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func signed(n int64) string {
	if n > 0 {
		return "+" + commas(n)
	}
	if n == 0 {
		return "0"
	}
	return commas(n)
}

func (o *compactionOptions) runCompRestore(cmd *cobra.Command, args []string, st *store.Store, m *snapshot.Manager) error {
	a, s, err := m.OpenArchive(args[0])
	if err != nil {
		return err
	}
	defer a.Close()
	out := cmd.OutOrStdout()
	audit := func(detail string) {
		_ = st.Audit(store.AuditEntry{Action: store.ActionRestore, SnapshotID: s.ID, Path: m.Path(s), Messages: s.PreCompaction.MessageCount, Detail: detail})
	}
	// A session to resume is refused for a snapshot this user's key does
	// not authenticate (planted in a cloned repository, pulled from a
	// teammate) unless asked for; a part restored for the user to read
	// is written with a warning.
	if err := o.g.allowResume("snapshot "+s.ID, index.TrustOf(a, snapshot.AuthKeyFor(st), false), o.unauth || o.partial != ""); err != nil {
		return err
	}
	if o.partial == "" {
		proj := cmp.Or(o.projectDir, st.ProjectDir())
		res, err := o.g.restoreResumable(a, m.Path(s), archive.RestoreOptions{ProjectDir: proj, ConfigDir: o.cfgDir})
		if err != nil {
			return err
		}
		audit("full restore as session " + res.SessionID)
		if o.g.json {
			return printJSON(out, map[string]any{"snapshot": s.ID, "restore": res})
		}
		fmt.Fprintf(out, "Restored snapshot %s as session %s\n  %s\n", s.ID, res.SessionID, res.Files[0])
		fmt.Fprintf(out, "Resume with: cd %s && claude --resume %s\n", web.ShellQuote(res.ProjectDir), res.SessionID)
		return nil
	}
	what, arg, _ := strings.Cut(o.partial, "=")
	xo := snapshot.ExtractOptions{Force: o.force, Out: out}
	switch what {
	case "messages":
		if xo.Range, err = snapshot.ParseRange(arg); err != nil {
			return err
		}
		xo.Messages = true
	case "tools":
		xo.Tools, xo.Tool = true, arg
	case "files":
		xo.Files, xo.Glob, xo.Dir = true, arg, st.ProjectDir()
	default:
		return fmt.Errorf("--partial %q: use messages=A-B, tools[=NAME] or files[=GLOB]", o.partial)
	}
	if o.g.json && what != "files" && o.out == "" {
		return errors.New("--json with --partial messages/tools needs --out (the content goes to stdout otherwise)")
	}
	res, err := o.extractTo(xo, func(xo snapshot.ExtractOptions) (*snapshot.ExtractResult, error) {
		return snapshot.ExtractArchive(a, xo)
	})
	if err != nil {
		return err
	}
	audit("partial restore: " + o.partial)
	if o.g.json {
		return printJSON(out, res)
	}
	if what == "files" {
		for _, f := range res.Files {
			fmt.Fprintf(out, "restored %s\n", f)
		}
		for _, f := range res.Skipped {
			fmt.Fprintf(out, "skipped %s (exists and differs; --force overwrites)\n", f)
		}
	} else if o.out != "" {
		fmt.Fprintf(out, "wrote %d messages, %d tools to %s\n", res.Messages, res.Tools, o.out)
	}
	return nil
}

func (o *compactionOptions) runCompExtract(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
	n := 0
	for _, b := range []bool{o.messages, o.files, o.tools} {
		if b {
			n++
		}
	}
	if n != 1 {
		return errors.New("extract needs exactly one of --messages, --files, --tools")
	}
	rng, err := snapshot.ParseRange(o.rng)
	if err != nil {
		return err
	}
	xo := snapshot.ExtractOptions{Messages: o.messages, Files: o.files, Tools: o.tools,
		Format: o.format, Glob: o.glob, Tool: o.tool, Force: o.force, Range: rng}
	out := cmd.OutOrStdout()
	xo.Out = out
	if o.files {
		if o.out == "" {
			return errors.New("extract --files needs --out DIR")
		}
		xo.Dir = o.out
	} else if o.out == "" && o.g.json {
		return errors.New("--json needs --out (the extracted content goes to stdout otherwise)")
	}
	res, err := o.extractTo(xo, func(xo snapshot.ExtractOptions) (*snapshot.ExtractResult, error) { return m.Extract(args[0], xo) })
	if err != nil {
		return err
	}
	if o.g.json {
		return printJSON(out, res)
	}
	if o.files {
		for _, f := range res.Files {
			fmt.Fprintf(out, "%s\n", f)
		}
		for _, f := range res.Skipped {
			fmt.Fprintf(cmd.ErrOrStderr(), "ben10: skipped %s (exists and differs, or outside the project; --force overwrites)\n", f)
		}
	}
	return nil
}

// extractTo runs extract with xo; messages and tools go to the --out file
// (written atomically: complete or not at all) when one is given.
func (o *compactionOptions) extractTo(xo snapshot.ExtractOptions, extract func(snapshot.ExtractOptions) (*snapshot.ExtractResult, error)) (*snapshot.ExtractResult, error) {
	if o.out == "" || xo.Files {
		return extract(xo)
	}
	var res *snapshot.ExtractResult
	_, err := writeAtomic(o.out, func(w io.Writer) (err error) {
		xo.Out = w
		res, err = extract(xo)
		return err
	})
	return res, err
}

// runCompPin is pin (pin true) or unpin.
func (o *compactionOptions) runCompPin(pin bool) projectRun {
	return func(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
		if err := m.Pin(args[0], pin); err != nil {
			return err
		}
		s, err := m.Get(args[0])
		if err != nil {
			return err
		}
		o.g.printWarnings(cmd, m.Warnings())
		return o.g.result(cmd.OutOrStdout(), s, "%s %s\n", map[bool]string{true: "pinned", false: "unpinned"}[pin], s.ID)
	}
}

func (o *compactionOptions) runCompDelete(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
	s, err := m.Get(args[0])
	if err != nil {
		return err
	}
	q := fmt.Sprintf("Delete snapshot %s (%s, %s)?", s.ID, humanBytes(s.CompressedBytes), s.CreatedAt.Local().Format("2006-01-02 15:04"))
	if s.Pinned {
		q = fmt.Sprintf("Delete PINNED snapshot %s (%s)?", s.ID, humanBytes(s.CompressedBytes))
	}
	if err := o.g.confirm(o.yes, q); err != nil {
		return err
	}
	if err := m.Delete(s.ID); err != nil {
		return err
	}
	o.g.printWarnings(cmd, m.Warnings())
	return o.g.result(cmd.OutOrStdout(), map[string]any{"deleted": s.ID}, "deleted %s (%s)\n", s.ID, humanBytes(s.CompressedBytes))
}

func (o *compactionOptions) runCompPrune(cmd *cobra.Command, _ []string, _ *store.Store, m *snapshot.Manager) error {
	if err := o.g.confirm(o.yes, "Delete the unpinned snapshots beyond the retention policy (compaction_snapshots.retention_count, retention_days) now?"); err != nil {
		return err
	}
	prog := o.g.newProgress("Pruning snapshots", 0)
	plan, err := m.Prune(time.Time{})
	prog.Done()
	if err != nil {
		return err
	}
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), map[string]any{"deleted": nonNil(plan.Delete), "warnings": nonNil(plan.Warnings)})
	}
	o.g.printWarnings(cmd, plan.Warnings)
	for _, id := range plan.Delete {
		o.g.infof(cmd.OutOrStdout(), "pruned %s\n", id)
	}
	o.g.infof(cmd.OutOrStdout(), "%d snapshots pruned\n", len(plan.Delete))
	return nil
}

func (o *compactionOptions) runCompExport(cmd *cobra.Command, args []string, _ *store.Store, m *snapshot.Manager) error {
	s, err := m.Get(args[0])
	if err != nil {
		return err
	}
	if err := m.Export(s.ID, args[1]); err != nil {
		return err
	}
	return o.g.result(cmd.OutOrStdout(), map[string]any{"snapshot": s.ID, "path": args[1], "bytes": s.CompressedBytes}, "exported %s to %s (%s)\n", s.ID, args[1], humanBytes(s.CompressedBytes))
}

func (o *compactionOptions) runCompSnapshot(cmd *cobra.Command, _ []string, st *store.Store, m *snapshot.Manager) error {
	var err error
	tr := o.transcript
	if tr == "" {
		if tr, err = latestTranscript(st.ProjectDir()); err != nil {
			return err
		}
	}
	var lvl ctxfmt.Level
	if o.level != "" {
		if lvl, err = ctxfmt.ParseLevel(o.level); err != nil {
			return err
		}
	}
	prog := o.g.newBytesProgress("Taking snapshot", 0)
	res, err := m.Create(snapshot.CreateOptions{TranscriptPath: tr, SessionID: o.session, Trigger: o.trigger,
		Source: "cli", Force: o.force, Level: lvl, Progress: prog.Report()})
	prog.Done()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	o.g.printWarnings(cmd, res.Warnings)
	if o.g.json {
		return printJSON(out, res)
	}
	if res.Pending {
		o.g.infof(out, "The store is busy: snapshot saved as %s; the next ben10 operation files it.\n", res.Path)
		return nil
	}
	s := res.Snapshot
	lines := []string{
		"📸 Pre-Compaction Snapshot Saved",
		"",
		"Snapshot ID:    " + s.ID,
		"Token count:    " + commas(s.PreCompaction.TokenCount) + " (before)",
		fmt.Sprintf("Messages:       %d preserved", s.PreCompaction.MessageCount),
		fmt.Sprintf("File contents:  %d files captured", s.FileContents),
		fmt.Sprintf("Size:           %s (compressed: %s)", humanBytes(s.UncompressedBytes), humanBytes(s.CompressedBytes)),
	}
	if res.Replaced != "" {
		lines = append(lines, "Replaces:       "+res.Replaced+" (same session, within the debounce)")
	}
	lines = append(lines, "", "Restore anytime: ben10 context compaction restore "+lastPart(s.ID))
	if !o.g.quiet {
		box(o.g, out, lines)
	}
	return nil
}

// box draws lines in the PRD's notification frame; an empty line after
// the first becomes the separator.
func box(g *globalOptions, w io.Writer, lines []string) {
	width := 0
	for _, l := range lines {
		if n := displayWidth(l); n > width {
			width = n
		}
	}
	width += 2
	fmt.Fprintf(w, "╭%s╮\n", thin(width+2))
	for i, l := range lines {
		if i == 1 && l == "" {
			fmt.Fprintf(w, "├%s┤\n", thin(width+2))
			continue
		}
		text := l
		if i == 0 {
			text = g.styled(w, styleBold, l) // the banner's title
		}
		fmt.Fprintf(w, "│  %s%s│\n", text, strings.Repeat(" ", width-displayWidth(l)))
	}
	fmt.Fprintf(w, "╰%s╯\n", thin(width+2))
}

// displayWidth counts runes, with emoji as two columns.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x1F000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func (o *compactionOptions) runCompSearch(cmd *cobra.Command, args []string, st *store.Store, m *snapshot.Manager) error {
	if !o.regex {
		// A scoped view of `ben10 search`: this project's snapshots.
		return runCompIndexSearch(cmd, o.g, st, args[0], o.limit)
	}
	var total int64
	if ix, err := m.Index(); err == nil {
		total = int64(len(ix.Snapshots))
	}
	prog := o.g.newProgress(fmt.Sprintf("Searching %d snapshots, matches", total), 0)
	defer prog.Done()
	out := prog.Writer(cmd.OutOrStdout())
	n := 0
	err := m.Search(args[0], o.regex, func(h snapshot.Hit) error {
		n++
		prog.Add(1)
		if o.g.json {
			if err := printJSONLine(out, h); err != nil {
				return err
			}
		} else {
			where := fmt.Sprintf("message %d", h.Message)
			if h.Kind != "message" {
				where += " " + h.Tool + " " + strings.TrimPrefix(h.Kind, "tool_")
			}
			fmt.Fprintf(out, "%s  %s: %s\n", lastPart(h.SnapshotID), where, h.Snippet)
		}
		if o.limit > 0 && n >= o.limit {
			return snapshot.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 && !o.g.json {
		fmt.Fprintf(cmd.ErrOrStderr(), "no match for %q\n", args[0])
		return &exitError{code: 1, err: fmt.Errorf("no match")}
	}
	return nil
}

// printJSONLine writes v as one compact JSON line (for streamed output).
func printJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// lastPart is a snapshot id's session-prefix suffix (<prefix>[-N]).
func lastPart(id string) string {
	short := snapshot.ShortID(id)
	// YYYYMMDD-HHMMSS-<prefix>[-N]
	if len(short) > 16 {
		return short[16:]
	}
	return short
}

// snapshotRedactions is compaction show's redaction row: the archive's own
// total when it records one, else "at least" what is known (the index's
// count, or the number of changed lines).
func snapshotRedactions(indexed int, r archive.RedactionReport) string {
	n, exact := r.Total()
	if !r.Enabled || exact {
		return secretsText(n) + " replaced"
	}
	return "at least " + secretsText(max(n, indexed)) + " replaced"
}
