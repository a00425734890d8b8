package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hookentry"
	"github.com/ben10ctx/ben10/internal/hookfast"
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

// newInternalCmd builds `ben10 internal` (hidden): the commands ben10 runs
// itself.
func newInternalCmd(g *globalOptions) *cobra.Command {
	internalCmd := &cobra.Command{
		Use:    "internal",
		Short:  "Commands ben10 runs itself",
		Hidden: true,
	}
	var once bool
	internalWorkCmd := &cobra.Command{
		Use:   "work",
		Short: "Do the jobs the hooks queued (started in the background by PreCompact and SessionEnd)",
		Long: `Runs the jobs the hooks queued in the projects' stores: final saves
(SessionEnd) and snapshots before a compaction (PreCompact). One runs per
user at a time; a second one returns at once. A failed job is retried
with backoff and kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, _ := store.HomeDir()
			h := &hook.Handler{}
			if once {
				// A hook waits for this run (hook.Handler.SyncWork) and
				// reports its failure; the recall index is updated by the
				// next worker, as after any job done inside a hook.
				_, err := h.WorkDue(cmd.Context())
				return err
			}
			projects, err := h.Work(cmd.Context())
			if err != nil {
				// Nobody reads this process's stderr: log it where the hooks log.
				_ = hookfast.AppendError(home, hookfast.ErrorEntry{Time: time.Now(), Event: "work", Error: err.Error()})
			}
			// This detached process is the hooks' background work: what it
			// wrote goes into the recall index here, never in the hook itself.
			for _, p := range projects {
				indexInBackground(cmd.Context(), p)
			}
			return err
		},
	}
	internalWorkCmd.Flags().BoolVar(&once, "once", false, "run the jobs due now and return (a hook waits for them)")
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
	internalCmd.AddCommand(internalWorkCmd, internalRenderCmd)
	if man := newManCmd(g); man != nil {
		internalCmd.AddCommand(man)
	}
	return internalCmd
}
