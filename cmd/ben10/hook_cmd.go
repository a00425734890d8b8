package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hookentry"
	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// newHookCmd builds `ben10 hook`, which reads the hook JSON from g's input
// stream. main runs it without building the rest of the tree.
func newHookCmd(g *globalOptions) *cobra.Command {
	hookCmd := &cobra.Command{
		Use:   "hook [EVENT]",
		Short: "Handle one Claude Code hook event (reads the hook JSON on stdin)",
		Long: `Claude Code runs this command for the events ` + "`ben10 hooks install`" + ` registers.
It reads the hook JSON on stdin; EVENT is Claude Code's name (PreCompact) or
its kebab-case form (pre-compact) and defaults to the input's hook_event_name.

  SessionStart      compact: inject the recovery digest of the snapshot taken
                    before the compaction; startup/clear: inject the digest of
                    this project's previous session when recent
  UserPromptSubmit  count prompts; checkpoint every checkpoint_interval
                    prompts or checkpoint_minutes
  PostToolUse       checkpoint after file modifications (debounced)
  PreCompact        snapshot the full context before compaction proceeds
  PostCompact       remember the compaction summary
  SessionEnd        final save into current.ctx (previous one into history/)
  Stop              note activity only

It always exits 0: a failure is one line on stderr and an entry in
~/.claude-code/ben10-errors.log, and never blocks Claude Code.`,
		Example: `  ben10 hook pre-compact --input saved-input.json
  echo '{"session_id":"s1","transcript_path":"/p/s1.jsonl","cwd":"/p","hook_event_name":"PreCompact","trigger":"auto"}' | ben10 hook
  ben10 hook session-start < input.json`,
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if hookentry.WantsHelp(args) {
				return cmd.Help()
			}
			code := hookentry.Main(args, g.io.In, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if code != 0 {
				return &exitError{code: code, err: fmt.Errorf("hook exited %d", code)}
			}
			return nil
		},
	}
	return hookCmd
}

// recompressOptions are the flags of `ben10 internal recompress`.
type recompressOptions struct {
	project string
	level   string
}

// newInternalCmd builds `ben10 internal` (hidden): the commands ben10 runs
// itself.
func newInternalCmd(g *globalOptions) *cobra.Command {
	internalCmd := &cobra.Command{
		Use:    "internal",
		Short:  "Commands ben10 runs itself",
		Hidden: true,
	}
	rc := &recompressOptions{}
	internalRecompressCmd := &cobra.Command{
		Use:   "recompress --project DIR [--level LEVEL] SNAPSHOT-ID",
		Short: "Rewrite a snapshot at a better compression level (started in the background by PreCompact)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runRecompress(rc.project, rc.level, args[0])
			if err != nil {
				// Nobody reads this process's stderr: log it where the hooks log.
				home, _ := store.HomeDir()
				_ = hook.AppendError(home, hook.ErrorEntry{Time: time.Now(), Event: "recompress", Project: rc.project, Error: err.Error()})
			}
			// This detached process is the hooks' background work: the new
			// snapshot (and whatever else the project saved) goes into the
			// recall index here, never in the hook itself.
			indexInBackground(cmd.Context(), rc.project)
			return err
		},
	}
	internalRecompressCmd.Flags().StringVar(&rc.project, "project", "", "project directory")
	internalRecompressCmd.Flags().StringVar(&rc.level, "level", "", "target level (default: compaction_snapshots.compression_level)")
	// internalRenderCmd shows a hook's JSON output the way a user meets it:
	// the systemMessage as a notice, the additionalContext as the text Claude
	// receives. Used by scripts/demo.sh.
	internalRenderCmd := &cobra.Command{
		Use:   "render-hook-output",
		Short: "Show hook output JSON (stdin) as the user and Claude see it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := io.ReadAll(io.LimitReader(g.io.In, 1<<20))
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if len(bytes.TrimSpace(data)) == 0 {
				fmt.Fprintln(w, "  (no output: nothing shown, nothing injected)")
				return nil
			}
			var o hook.Output
			if err := json.Unmarshal(data, &o); err != nil {
				return fmt.Errorf("hook output is not JSON: %w", err)
			}
			if o.SystemMessage != "" {
				fmt.Fprintf(w, "  ┌ shown to the user\n  │ %s\n  └\n", o.SystemMessage)
			}
			if o.HookSpecificOutput != nil && o.HookSpecificOutput.AdditionalContext != "" {
				fmt.Fprintf(w, "  ┌ added to Claude's context (%d characters)\n", len([]rune(o.HookSpecificOutput.AdditionalContext)))
				for _, l := range strings.Split(strings.TrimRight(o.HookSpecificOutput.AdditionalContext, "\n"), "\n") {
					fmt.Fprintf(w, "  │ %s\n", l)
				}
				fmt.Fprintln(w, "  └")
			}
			return nil
		},
	}
	internalCmd.AddCommand(internalRecompressCmd, internalRenderCmd, newManCmd(g))
	return internalCmd
}

func runRecompress(project, levelName, id string) error {
	if project == "" {
		return fmt.Errorf("--project is required")
	}
	st, err := store.Open(project, store.Options{})
	if err != nil {
		return err
	}
	cfg := st.Config()
	level := ctxfmt.LevelFromZstd(cfg.CompactionSnapshots.CompressionLevel)
	if levelName != "" {
		if level, err = ctxfmt.ParseLevel(levelName); err != nil {
			return err
		}
	}
	if hook.DefaultSnapshots == nil {
		return fmt.Errorf("no snapshot layer in this build")
	}
	sn := hook.DefaultSnapshots(st, cfg)
	err = sn.Recompress(id, level)
	// The work a killed or failed worker left (raw-only snapshots still
	// pending after snapshot.StalePending) is taken over here.
	if m, ok := sn.(interface {
		CompletePending(ctxfmt.Level, time.Time) ([]string, error)
	}); ok {
		_, perr := m.CompletePending(level, time.Now())
		err = errors.Join(err, perr)
	}
	return err
}
