package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/web"
)

// contextStoreOptions are the flags of `context status`, `list`, `diff`,
// `clear` and `prune` (one process runs one of them) and the global
// options.
type contextStoreOptions struct {
	g                *globalOptions
	dir              string
	brief, reconcile bool
	force            bool
}

// reconciledKey is where `context diff --reconcile` records the current
// file hashes in current.ctx.meta.
const reconciledKey = "reconciled_hashes"

// namedDir holds `context save --name N` archives.
const namedDir = "named"

// newContextStoreCmds builds `context status`, `list`, `diff`, `clear`
// and `prune`.
func newContextStoreCmds(g *globalOptions) []*cobra.Command {
	o := &contextStoreOptions{g: g}
	var cmds []*cobra.Command
	add := func(use, short string, run func(*cobra.Command, []string) error) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs, RunE: run}
		c.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the current directory)")
		cmds = append(cmds, c)
		return c
	}
	s := add("status", "Show the project's saved context, checkpoints and snapshots", g.inProject(&o.dir, true, o.runStatus))
	s.Flags().BoolVar(&o.brief, "brief", false, "one line (for prompts and status lines)")
	add("list", "List saved contexts: current, checkpoints, history, named saves, exports", g.inProject(&o.dir, true, o.runList))
	d := add("diff", "Compare the saved file registry with the working tree", o.runDiff)
	d.Flags().BoolVar(&o.reconcile, "reconcile", false, "record the current file hashes as the new baseline")
	c := add("clear", "Clear the current context (it is moved to history, not deleted)", g.inProject(&o.dir, false, o.runClear))
	c.Flags().BoolVarP(&o.force, "yes", "y", false, "do not ask for confirmation")
	c.Flags().BoolVar(&o.force, "force", false, "do not ask for confirmation (same as --yes)")
	p := add("prune", "Apply retention to checkpoints, history and compaction snapshots now (asks first on a terminal, unless --yes)", g.inProject(&o.dir, false, o.runPrune))
	p.Flags().BoolVarP(&o.force, "yes", "y", false, "do not ask for confirmation")
	return cmds
}

// statusInfo is what status shows; status --brief reads only
// current.ctx.meta, the checkpoints directory and index.json.
type statusInfo struct {
	Project     string      `json:"project"`
	Store       string      `json:"store"`
	Fallback    bool        `json:"fallback"`
	Current     *store.Meta `json:"current,omitempty"`
	Checkpoints int         `json:"checkpoints"`
	LatestCP    string      `json:"latest_checkpoint,omitempty"`
	LatestCPAt  time.Time   `json:"latest_checkpoint_at,omitzero"`
	History     int         `json:"history"`
	Snapshots   int         `json:"snapshots"`
	SnapBytes   int64       `json:"snapshot_bytes"`
	Pinned      int         `json:"pinned"`
	// Unauthenticated lists the saved contexts this user's key does not
	// authenticate: never injected at a session start (full status only).
	Unauthenticated []snapshot.Unauthenticated `json:"unauthenticated,omitempty"`
	// AgentDigests are the checkpoints assistants wrote themselves
	// (session_digest) that the user's key authenticates, newest first.
	AgentDigests []snapshot.AgentDigest `json:"agent_digests,omitempty"`
	Health       string                 `json:"health,omitempty"`
	Problems     []string               `json:"problems,omitempty"`
	// Refused are saves refused over the storage limit since the last
	// successful one.
	Refused []store.Refusal `json:"refused,omitempty"`
}

func gatherStatus(st *store.Store) statusInfo {
	info := statusInfo{Project: st.ProjectDir(), Store: st.Root(), Fallback: st.IsFallback()}
	if meta, err := st.ReadMeta(); err == nil {
		info.Current = &meta
	}
	if cps, err := st.Checkpoints(); err == nil {
		info.Checkpoints = len(cps)
		if n := len(cps); n > 0 {
			info.LatestCP, info.LatestCPAt = filepath.Base(cps[n-1].Path), cps[n-1].ModTime
		}
	}
	if rs, err := st.Refusals(); err != nil {
		info.Problems = append(info.Problems, err.Error())
	} else {
		for _, r := range rs {
			info.Problems = append(info.Problems, r.String())
		}
		info.Refused = rs
	}
	if sum, err := snapshot.ReadSummary(st.IndexPath()); err == nil {
		info.Snapshots, info.SnapBytes, info.Pinned = sum.Count, sum.TotalSizeBytes, sum.Pinned
	} else {
		info.Problems = append(info.Problems, err.Error())
	}
	return info
}

func (o *contextStoreOptions) runStatus(cmd *cobra.Command, _ []string, st *store.Store, _ *snapshot.Manager) error {
	info := gatherStatus(st)
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	now := time.Now()
	if o.brief {
		if o.g.json {
			return printJSON(out, info)
		}
		parts := []string{}
		if c := info.Current; c != nil {
			parts = append(parts, fmt.Sprintf("%d msgs", c.Messages), commas(c.ContextTokens)+" tok in context", "saved "+ago(c.SavedAt, now))
		} else if info.Checkpoints > 0 {
			parts = append(parts, "no final save; checkpoint "+ago(info.LatestCPAt, now))
		} else {
			parts = append(parts, "no saved context")
		}
		parts = append(parts, fmt.Sprintf("%d cp", info.Checkpoints), fmt.Sprintf("%d snap", info.Snapshots))
		if len(info.Refused) > 0 {
			parts = append(parts, "SAVE REFUSED: storage limit")
		}
		fmt.Fprintln(out, strings.Join(parts, " · "))
		return nil
	}
	// The full status also opens current.ctx: its header, index, footer
	// and metadata, not the whole file (ben10 doctor and archive verify
	// read every byte), so that it stays fast at any archive size.
	if _, err := os.Stat(st.CurrentPath()); err == nil {
		if err := openCheck(st, st.CurrentPath()); err != nil {
			info.Problems = append(info.Problems, "current.ctx fails verification: "+err.Error())
		}
	}
	if h, err := st.History(); err == nil {
		info.History = len(h)
	}
	if k, err := snapshot.UserAuthKey(st.Home()); err != nil {
		info.Problems = append(info.Problems, "nothing saved can be injected at a session start: "+err.Error())
	} else {
		info.Unauthenticated = snapshot.UnauthenticatedArchives(st, st.Config(), k)
		info.AgentDigests, _ = snapshot.AgentDigests(st, k)
	}
	info.Health = "Good (no issues detected)"
	if len(info.Problems) > 0 {
		info.Health = "Problems: " + strings.Join(info.Problems, "; ")
	}
	if o.g.json {
		return printJSON(out, info)
	}
	if o.g.quiet {
		// --quiet: only what needs attention.
		for _, p := range info.Problems {
			fmt.Fprintln(out, "problem: "+p)
		}
		return nil
	}
	cfg := st.Config()
	fmt.Fprintf(out, "Context Status for %s\n%s\n\n", tildePath(info.Project), rule(62))
	// The sections are one table: a line without a tab (a section's
	// title) ends the columns above it, so each section aligns alone.
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	loc, _ := filepath.Rel(info.Project, st.Root())
	if info.Fallback || strings.HasPrefix(loc, "..") {
		loc = tildePath(st.Root())
	}
	if c := info.Current; c != nil {
		fmt.Fprintf(tw, "State:\tSaved %s (%s)\n", ago(c.SavedAt, now), c.SavedAt.Local().Format("Jan 2, 2006 3:04 PM"))
		fmt.Fprintf(tw, "Location:\t%s\n", filepath.Join(loc, store.CurrentName))
		fmt.Fprintf(tw, "Size:\t%s compressed\n", humanBytes(c.SizeBytes))
		fmt.Fprintf(tw, "\nConversation:\n")
		fmt.Fprintf(tw, "  Session:\t%s (%s)\n", orNone(c.SessionID), orNone(c.Assistant))
		fmt.Fprintf(tw, "  Messages:\t%d\n", c.Messages)
		fmt.Fprintf(tw, "  Context tokens:\t%s (the last request's context)\n", commas(c.ContextTokens))
		fmt.Fprintf(tw, "  Tokens used:\t%s (all requests)\n", commas(c.TokensUsed))
		fmt.Fprintf(tw, "  Tools:\t%d executions\n", c.ToolExecutions)
		fmt.Fprintf(tw, "\nFile Registry:\n")
		fmt.Fprintf(tw, "  Tracked:\t%d files (ben10 context diff shows changes)\n", c.Files)
	} else if info.Checkpoints > 0 {
		// No final save (the session crashed, or has not ended), but its
		// checkpoints hold the context: say so.
		fmt.Fprintf(tw, "State:\tNo final save; checkpoint %s from %s (ben10 context restore)\n", strings.TrimSuffix(info.LatestCP, ".ctx"), ago(info.LatestCPAt, now))
		fmt.Fprintf(tw, "Location:\t%s\n", filepath.Join(loc, store.CheckpointsName, info.LatestCP))
	} else {
		fmt.Fprintf(tw, "State:\tNo saved context (ben10 context save)\n")
		fmt.Fprintf(tw, "Location:\t%s\n", loc)
	}
	fmt.Fprintf(tw, "\nCheckpoints:\n")
	if info.Checkpoints > 0 {
		fmt.Fprintf(tw, "  Latest:\t%s (%s)\n", ago(info.LatestCPAt, now), strings.TrimSuffix(info.LatestCP, ".ctx"))
	}
	fmt.Fprintf(tw, "  Count:\t%d available\n", info.Checkpoints)
	fmt.Fprintf(tw, "  Auto-save:\tEvery %d messages\n", cfg.CheckpointInterval)
	fmt.Fprintf(tw, "  History:\t%d sessions\n", info.History)
	fmt.Fprintf(tw, "\nCompaction Snapshots:\n")
	fmt.Fprintf(tw, "  Count:\t%d (%d pinned, %s)\n", info.Snapshots, info.Pinned, humanBytes(info.SnapBytes))
	if n := len(info.AgentDigests); n > 0 {
		d := info.AgentDigests[0]
		fmt.Fprintf(tw, "\nAgent Checkpoints (session_digest):\n")
		fmt.Fprintf(tw, "  Count:\t%d\n", n)
		fmt.Fprintf(tw, "  Latest:\t%s (session %s, %d characters; offered at the next session start)\n", ago(d.Saved, now), orNone(d.Session), len([]rune(d.Text)))
		fmt.Fprintf(tw, "  File:\t%s\n", tildePath(d.Path))
	}
	tw.Flush()
	if n := len(info.Unauthenticated); n > 0 {
		fmt.Fprintf(out, "\nNot saved by you (%d; listed and restorable, never injected at a session start):\n", n)
		for _, u := range info.Unauthenticated {
			rel, err := filepath.Rel(st.Root(), u.Path)
			if err != nil {
				rel = u.Path
			}
			fmt.Fprintf(out, "  %s: %s\n", rel, u.Reason)
		}
		fmt.Fprintf(out, "  (%s)\n", snapshot.AdoptHint)
	}
	mark := "✓"
	if len(info.Problems) > 0 {
		mark = "✗"
	}
	fmt.Fprintf(out, "\nHealth:         %s %s\n", mark, info.Health)
	return nil
}

type listEntry struct {
	Kind    string    `json:"kind"` // current | checkpoint | history | named | export | snapshot
	Name    string    `json:"name"`
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
}

func (o *contextStoreOptions) runList(cmd *cobra.Command, _ []string, st *store.Store, _ *snapshot.Manager) error {
	var list, snaps []listEntry
	all, _ := snapshot.Archives(st.Root())
	var ix snapshot.Index // the listed snapshots, for their handles
	for _, a := range all {
		switch {
		case a.Kind == snapshot.KindSnapshot && a.Err == nil:
			ix.Snapshots = append(ix.Snapshots, *a.Snapshot)
			snaps = append(snaps, listEntry{"snapshot", "", a.Path, a.Snapshot.CompressedBytes, a.Snapshot.CreatedAt})
		case a.Kind != snapshot.KindSnapshot:
			list = append(list, listEntry{a.Kind, a.Name, a.Path, a.Size, a.ModTime})
		}
	}
	ents, _ := os.ReadDir(st.ExportsDir())
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".ctxpkg") {
			list = append(list, listEntry{"export", strings.TrimSuffix(e.Name(), ".ctxpkg"), filepath.Join(st.ExportsDir(), e.Name()), fi.Size(), fi.ModTime()})
		}
	}
	for i, h := range snapshot.Handles(&ix) {
		snaps[i].Name = h
	}
	list = append(list, snaps...)
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	return o.g.table(out, nonNil(list), nil, func(tw io.Writer) {
		fmt.Fprintf(tw, "Saved contexts for %s\n%s\n\n", tildePath(st.ProjectDir()), rule(62))
		if len(list) == 0 {
			fmt.Fprintln(tw, "Nothing saved yet (ben10 context save).")
			return
		}
		fmt.Fprintln(tw, "KIND\tNAME\tSAVED\tSIZE\tRESTORE WITH")
		for _, e := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Kind, e.Name, ago(e.ModTime, time.Now()), humanBytes(e.Size), restoreWith(e))
		}
	})
}

// restoreWith is the command that restores a saved context of the list.
func restoreWith(e listEntry) string {
	switch e.Kind {
	case "current":
		return "ben10 context restore"
	case "checkpoint":
		return "ben10 context restore --checkpoint " + e.Name
	case "history", "export":
		return "ben10 context restore --from " + web.ShellQuote(e.Path)
	case "named":
		return "ben10 context restore --name " + web.ShellQuote(e.Name)
	case "snapshot":
		return "ben10 context compaction restore " + e.Name
	}
	return ""
}

func (o *contextStoreOptions) runDiff(cmd *cobra.Command, _ []string) error {
	st, _, err := o.g.openProject(o.dir, !o.reconcile)
	if err != nil {
		return err
	}
	// The check Recover applies: the container's structure and footer and
	// the archive metadata.
	rec, err := st.Recover(verifyContext(snapshot.OpenOptions(st.Config()), st.Config(), false))
	if err != nil {
		return fmt.Errorf("no saved context to compare with: %w", err)
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	if rec.Kind != store.KindCurrent && !o.g.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: current.ctx is missing or damaged; using %s %s (%s old)\n", rec.Kind, rec.Path, store.FormatDuration(rec.Age.Round(time.Second)))
	}
	a, err := archive.OpenFile(rec.Path, snapshot.OpenOptions(st.Config()))
	if err != nil {
		return err
	}
	defer a.Close()
	files, err := a.Files()
	if err != nil {
		return err
	}
	contents, err := a.FileContents()
	if err != nil {
		return err
	}
	var baseline map[string]string
	meta, merr := st.ReadMeta()
	if merr == nil && rec.Kind == store.KindCurrent {
		if raw, ok := meta.Extra[reconciledKey]; ok {
			b, _ := json.Marshal(raw)
			_ = json.Unmarshal(b, &baseline)
		}
	}
	res, err := snapshot.Reconcile(st.ProjectDir(), files, contents, baseline, snapshot.ExcludePatterns(st.Config()))
	if err != nil {
		return err
	}
	if o.reconcile {
		if merr != nil || rec.Kind != store.KindCurrent {
			return errors.New("--reconcile needs a valid current.ctx and its current.ctx.meta (save first)")
		}
		err := st.WithLock(context.Background(), func() error {
			meta, err := st.ReadMeta()
			if err != nil {
				return err
			}
			if meta.Extra == nil {
				meta.Extra = map[string]any{}
			}
			meta.Extra[reconciledKey] = res.Hashes
			data, _ := json.MarshalIndent(meta, "", "  ")
			return store.WriteFileAtomic(st.MetaPath(), append(data, '\n'))
		})
		if err != nil {
			return fmt.Errorf("recording the reconciled hashes: %w", err)
		}
	}
	if o.g.json {
		return printJSON(out, map[string]any{"baseline": rec.Path, "saved_at": rec.ModTime, "result": res, "reconciled": o.reconcile})
	}
	fmt.Fprintf(out, "Changes since last session (%s)\n%s\n\n", rec.ModTime.Local().Format("Jan 2, 2006 3:04 PM"), rule(62))
	if !res.Changed() {
		fmt.Fprintf(out, "No changes: %d tracked files unchanged", res.Unchanged)
		if res.Unknown > 0 {
			fmt.Fprintf(out, ", %d without a recorded hash", res.Unknown)
		}
		fmt.Fprintln(out)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if len(res.Modified) > 0 {
		fmt.Fprintln(out, "Modified Files:")
		for _, c := range res.Modified {
			lines := "(content not saved; hash changed)"
			if c.Counted {
				lines = fmt.Sprintf("(+%d, -%d lines)", c.Added, c.Removed)
			}
			fmt.Fprintf(tw, "  M  %s\t%s\n", c.Path, lines)
		}
		tw.Flush()
		fmt.Fprintln(out)
	}
	if len(res.Deleted) > 0 {
		fmt.Fprintln(out, "Deleted Files:")
		for _, c := range res.Deleted {
			fmt.Fprintf(tw, "  D  %s\t(was tracked)\n", c.Path)
		}
		tw.Flush()
		fmt.Fprintln(out)
	}
	if len(res.New) > 0 {
		fmt.Fprintln(out, "New Files (untracked):")
		for _, c := range res.New {
			fmt.Fprintf(out, "  ?  %s\n", c.Path)
		}
		fmt.Fprintln(out)
	}
	if o.reconcile {
		fmt.Fprintf(out, "Reconciled: the current hashes of %d files are the new baseline.\n", len(res.Hashes))
	} else if res.Changed() {
		fmt.Fprintf(out, "Actions:\n  ben10 context diff --reconcile   Update context with current file states\n")
	}
	return nil
}

func (o *contextStoreOptions) runClear(cmd *cobra.Command, _ []string, st *store.Store, _ *snapshot.Manager) error {
	if _, err := os.Stat(st.CurrentPath()); err != nil {
		if notExist(err) {
			o.g.infof(cmd.OutOrStdout(), "nothing to clear: no current context\n")
			return nil
		}
		return err
	}
	if !o.force {
		fmt.Fprintf(cmd.ErrOrStderr(), "Clear the current context of %s? It is kept in history/. [y/N] ", tildePath(st.ProjectDir()))
		line, _ := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return &exitError{code: 1, err: errors.New("not cleared (answer y, or pass --force)")}
		}
	}
	var dst string
	err := st.WithLock(context.Background(), func() (err error) {
		dst, _, err = st.ClearCurrent()
		return err
	})
	if err != nil {
		return err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionDelete, Path: st.CurrentPath(), Detail: "context clear: moved to " + dst})
	return o.g.result(cmd.OutOrStdout(), map[string]any{"cleared": st.CurrentPath(), "moved_to": dst}, "cleared: current context moved to %s\n", dst)
}

func (o *contextStoreOptions) runPrune(cmd *cobra.Command, _ []string, st *store.Store, m *snapshot.Manager) error {
	if err := o.g.confirm(o.force, fmt.Sprintf("Delete the checkpoints, history and unpinned snapshots of %s beyond the retention limits now?", tildePath(st.ProjectDir()))); err != nil {
		return err
	}
	var removed []string
	prog := o.g.newProgress("Pruning", 0)
	defer prog.Done()
	err := st.WithLock(context.Background(), func() (err error) {
		removed, err = st.Prune()
		return err
	})
	if err != nil {
		return err
	}
	if len(removed) > 0 {
		_ = st.Audit(store.AuditEntry{Action: store.ActionPrune, Count: len(removed), Detail: "checkpoints and history: " + strings.Join(removed, ", ")})
	}
	plan, err := m.Prune(time.Time{})
	prog.Done()
	if err != nil {
		return err
	}
	sort.Strings(removed)
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), map[string]any{"removed": nonNil(removed), "snapshots_pruned": nonNil(plan.Delete), "warnings": nonNil(plan.Warnings)})
	}
	o.g.printWarnings(cmd, plan.Warnings)
	out := cmd.OutOrStdout()
	for _, r := range removed {
		o.g.infof(out, "removed %s\n", r)
	}
	for _, id := range plan.Delete {
		o.g.infof(out, "pruned snapshot %s\n", id)
	}
	o.g.infof(out, "%d checkpoint/history files and %d snapshots pruned\n", len(removed), len(plan.Delete))
	return nil
}
