package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/watch"
)

// newStatuslineCmd builds `ben10 statusline`.
func newStatuslineCmd(g *globalOptions) *cobra.Command {
	statuslineCmd := &cobra.Command{
		Use:   "statusline",
		Short: "Print a status line for Claude Code (reads its statusline JSON on stdin)",
		Long: `Statusline reads the JSON Claude Code pipes to a statusLine command and
prints one line: the context %, when the session's last snapshot was saved,
and how many snapshots wait in pending/. It reads only the snapshot index
and the transcript's tail, and never fails: on bad input it prints what it
can and exits 0. Configure it in ~/.claude/settings.json:

  "statusLine": {"type": "command", "command": "ben10 statusline"}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, _ := store.HomeDir()
			st, err := watch.ReadStatus(cmd.InOrStdin(), home)
			if err != nil && os.Getenv("BEN10_DEBUG") != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "ben10 statusline: %v\n", err)
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), map[string]any{"line": st.Line(time.Now()), "context_percent": st.Percent,
					"has_context_percent": st.HavePercent, "last_snapshot": st.LastSnapshot, "pending": st.Pending})
			}
			fmt.Fprintln(cmd.OutOrStdout(), st.Line(time.Now()))
			return nil
		},
	}
	return statuslineCmd
}
