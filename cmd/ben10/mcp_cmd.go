package main

import (
	"github.com/ben10ctx/ben10/mcp"
	"github.com/spf13/cobra"
)

func newMCPCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve Ben10's recall tools to an assistant over MCP (stdio)",
		Long: `Run the Ben10 MCP server on stdin and stdout. An assistant (Claude Code:
` + "`ben10 hooks install`" + ` registers it) can then search everything Ben10 captured,
read around a hit, recall what was done to a file before a compaction, list
sessions and snapshots, and store a checkpoint of its own. The project is the
client's first root, else --dir, else the working directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcp.Run(cmd.Context(), mcp.Options{Dir: dir, Version: version})
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "project directory when the client names none (default: the working directory)")
	return c
}

func init() { rootCmd.AddCommand(newMCPCmd()) }
