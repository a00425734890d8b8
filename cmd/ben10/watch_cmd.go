package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/watch"
)

// watchOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type watchOptions struct {
	g                                       *globalOptions
	status, dryRun, once, verbose, noNotify bool
	llm                                     string
	config, state                           string
	poll                                    time.Duration
	unitDir, platform, binary               string // install, uninstall
}

// newWatchCmd builds `ben10 watch`.
func newWatchCmd(g *globalOptions) *cobra.Command {
	o := &watchOptions{g: g}
	watchCmd := &cobra.Command{
		Use:   "watch",
		Short: "Watch every assistant's sessions and snapshot them before compaction",
		Long: `Watch runs one process for every enabled assistant (Claude Code, Codex,
Gemini CLI, Kimi). It finds active session files (modified in the last five
minutes) with file notifications and polling, computes each session's
context % from the tail of its own usage records, and when a trigger fires
writes an incremental archive into the session's project store — plus, in
the export band, a pre-compaction snapshot (source "watcher"). A session is
never snapshotted twice within its cooldown, whether the snapshot came from
a hook or from the watcher.

Configuration: ~/.claude-code/watch.yaml (validated on load; an invalid
entry disables only that assistant). State: ~/.claude-code/watch-state.json.
SIGHUP reloads the configuration; SIGINT and SIGTERM stop cleanly.`,
		Args: cobra.NoArgs,
		RunE: o.runWatch,
	}
	watchInstallCmd := &cobra.Command{
		Use:   "install",
		Short: "Install ben10 watch as a systemd user service (Linux) or launchd agent (macOS)",
		Args:  cobra.NoArgs,
		RunE:  o.runWatchInstall,
	}
	watchUninstallCmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the ben10 watch service definition",
		Args:  cobra.NoArgs,
		RunE:  o.runWatchUninstall,
	}
	f := watchCmd.Flags()
	f.BoolVar(&o.status, "status", false, "show the watcher's state and exit")
	f.BoolVar(&o.dryRun, "dry-run", false, "report what would be exported; write nothing")
	f.BoolVar(&o.once, "once", false, "scan and evaluate once, then exit")
	f.BoolVar(&o.verbose, "verbose", false, "log every evaluation")
	f.StringVar(&o.llm, "llm", "", "only these assistants (comma-separated: claude,codex,gemini,kimi)")
	f.StringVar(&o.config, "config", "", "configuration file (default ~/.claude-code/watch.yaml)")
	f.StringVar(&o.state, "state", "", "state file (default ~/.claude-code/watch-state.json)")
	f.DurationVar(&o.poll, "poll-interval", 0, "override global.poll_interval_seconds (e.g. 10s)")
	f.BoolVar(&o.noNotify, "no-notify", false, "do not use file notifications (polling only)")

	for _, c := range []*cobra.Command{watchInstallCmd, watchUninstallCmd} {
		c.Flags().StringVar(&o.unitDir, "unit-dir", "", "directory of the service definition (default: ~/.config/systemd/user or ~/Library/LaunchAgents)")
		c.Flags().StringVar(&o.platform, "platform", "", "linux (systemd) or darwin (launchd); default: this system")
	}
	watchInstallCmd.Flags().StringVar(&o.binary, "binary", "", "ben10 binary the service runs (default: this executable)")
	watchCmd.AddCommand(watchInstallCmd, watchUninstallCmd)
	return watchCmd
}

func parseLLMs(s string) ([]archive.Harness, error) {
	var out []archive.Harness
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		h, err := transcript.ParseHarness(p)
		if err != nil {
			return nil, fmt.Errorf("--llm: %w", err)
		}
		out = append(out, h)
	}
	return out, nil
}

func (o *watchOptions) runWatch(cmd *cobra.Command, _ []string) error {
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	only, err := parseLLMs(o.llm)
	if err != nil {
		return err
	}
	statePath := cmp.Or(o.state, watch.StatePath(home))
	if o.status {
		return o.watchStatus(cmd.OutOrStdout(), statePath, only)
	}
	var logw io.Writer = cmd.ErrOrStderr()
	if o.g.quiet {
		logw = nil
	}
	w, err := watch.New(watch.Options{Home: home, ConfigPath: o.config, StatePath: statePath, Only: only,
		DryRun: o.dryRun, PollInterval: o.poll, Log: logw, Verbose: o.verbose,
		NoNotify: o.noNotify})
	if err != nil {
		return err
	}
	if o.once {
		evs, err := w.Once()
		if err != nil {
			return err
		}
		return o.printWatchEvents(cmd.OutOrStdout(), evs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			if s == syscall.SIGHUP {
				w.Reload()
				continue
			}
			cancel()
			return
		}
	}()
	return w.Run(ctx)
}

func (o *watchOptions) printWatchEvents(out io.Writer, evs []watch.Event) error {
	var shown []watch.Event
	for _, e := range evs {
		if e.Action != "evaluate" || o.verbose || o.dryRun {
			shown = append(shown, e)
		}
	}
	if len(shown) == 0 {
		return o.g.result(out, map[string]any{"events": []watch.Event{}}, "nothing to do\n")
	}
	return o.g.table(out, map[string]any{"events": shown}, nil, func(tw io.Writer) {
		fmt.Fprintln(tw, "LLM\tSESSION\tCONTEXT\tACTION\tDETAIL")
		for _, e := range shown {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.LLM, e.Session, percent(e.Percent), e.Action, oneLine(e.Detail, 120))
		}
	})
}

func (o *watchOptions) watchStatus(out io.Writer, path string, only []archive.Harness) error {
	st, err := watch.ReadState(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return o.g.result(out, map[string]any{"state": nil, "running": false, "path": path}, "the watcher has not run yet (no %s)\n", path)
	}
	names := make([]string, 0, len(st.LLMs))
	for n := range st.LLMs {
		if len(only) == 0 || slices.Contains(only, archive.Harness(n)) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	running := st.Running && store.ProcessAlive(st.PID)
	if o.g.json {
		llms := map[string]*watch.LLMState{}
		for _, n := range names {
			llms[n] = st.LLMs[n]
		}
		cp := *st
		cp.LLMs = llms
		return printJSON(out, map[string]any{"state": cp, "running": running, "path": path})
	}
	if running {
		o.g.infof(out, "watcher running (pid %d) since %s; state updated %s\n", st.PID, utc(st.StartedAt), utc(st.LastUpdated))
	} else {
		o.g.infof(out, "watcher not running; state last updated %s\n", utc(st.LastUpdated))
	}
	o.g.infof(out, "exports %d, snapshots %d\n\n", st.GlobalStats.TotalExports, st.GlobalStats.TotalSnapshots)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LLM\tENABLED\tACTIVE\tCONTEXT\tEXPORTS\tSNAPSHOTS\tLAST EXPORT\tCOOLDOWNS\tNOTE")
	for _, n := range names {
		l := st.LLMs[n]
		note := l.Disabled
		if l.LastError != "" {
			note = strings.TrimSpace(note + " last error: " + l.LastError)
		}
		fmt.Fprintf(tw, "%s\t%v\t%d\t%s\t%d\t%d\t%s\t%d\t%s\n", n, l.Enabled, len(l.ActiveSessions), percent(l.LastContextPercent),
			l.ExportsTriggered, l.SnapshotsTaken, utc(l.LastExport), len(l.SessionCooldowns), oneLine(note, 80))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(only) == 1 {
		l := st.LLMs[string(only[0])]
		if l == nil {
			return nil
		}
		ids := slices.Sorted(maps.Keys(l.Sessions))
		o.g.infof(out, "\n")
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tCONTEXT\tEXPORTS\tSNAPSHOTS\tLAST SNAPSHOT\tBY\tCOOLDOWN UNTIL\tPATH")
		for _, id := range ids {
			s := l.Sessions[id]
			cd := "-"
			if t, ok := l.SessionCooldowns[id]; ok {
				cd = utc(t)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", id, percent(s.ContextPercent), s.Exports, s.Snapshots, utc(s.LastSnapshot),
				orNone(s.SnapshotSource), cd, filepath.Base(s.Path))
		}
		return tw.Flush()
	}
	return nil
}

func (o *watchOptions) runWatchInstall(cmd *cobra.Command, _ []string) error {
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	platform := cmp.Or(o.platform, watch.Platform())
	bin := o.binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("finding this executable: %w", err)
		}
		if r, err := filepath.EvalSymlinks(bin); err == nil {
			bin = r
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	p, err := watch.Install(platform, o.unitDir, bin, home)
	if err != nil {
		return err
	}
	hint := watch.EnableHint(platform, p, true)
	return o.g.result(cmd.OutOrStdout(), map[string]any{"path": p, "platform": platform, "binary": bin, "enable": hint}, "wrote %s (runs %s watch)\nto start it now and at every login:\n  %s\n", p, bin, hint)
}

func (o *watchOptions) runWatchUninstall(cmd *cobra.Command, _ []string) error {
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	platform := cmp.Or(o.platform, watch.Platform())
	p, removed, err := watch.Uninstall(platform, o.unitDir, home)
	if err != nil {
		return err
	}
	hint := watch.EnableHint(platform, p, false)
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), map[string]any{"path": p, "removed": removed, "stop": hint})
	}
	if !removed {
		o.g.infof(cmd.OutOrStdout(), "no service definition at %s\n", p)
		return nil
	}
	o.g.infof(cmd.OutOrStdout(), "removed %s\nif it is running, stop it: %s\n", p, hint)
	return nil
}

// percent prints a context percentage ("-" when unknown).
func percent(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *p)
}
