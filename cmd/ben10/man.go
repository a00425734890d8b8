package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// internalManCmd writes a man page per command, generated from the
// command tree (make man).
var internalManCmd = &cobra.Command{
	Use:     "man --dir DIR",
	Short:   "Write the man pages (section 1) of every command into DIR",
	Example: `  ben10 internal man --dir docs/man   # what make man runs`,
	Args:    cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		dir, _ := cmd.Flags().GetString("dir")
		if dir == "" {
			return &usageError{cmd, fmt.Errorf("--dir is required")}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		rootCmd.DisableAutoGenTag = true // reproducible pages: no date
		hdr := &doc.GenManHeader{Title: "BEN10", Section: "1", Source: "ben10 " + version, Manual: "Ben10 manual"}
		if err := doc.GenManTree(rootCmd, hdr, dir); err != nil {
			return fmt.Errorf("writing man pages into %s: %w", dir, err)
		}
		infof(cmd.OutOrStdout(), "man pages written to %s\n", dir)
		return nil
	},
}

func init() {
	internalManCmd.Flags().String("dir", "", "directory to write the pages into")
	internalCmd.AddCommand(internalManCmd)
}
