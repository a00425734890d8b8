//go:build man

// `ben10 internal man` exists only in a binary built with -tags man (make
// man): cobra/doc and the Markdown renderer it links cost every start of
// ben10, and a hook starts it on every event.

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type manOptions struct {
	g   *globalOptions
	dir string
}

// newManCmd builds `ben10 internal man`.
func newManCmd(g *globalOptions) *cobra.Command {
	o := &manOptions{g: g}
	// internalManCmd writes a man page per command, generated from the
	// command tree (make man).
	internalManCmd := &cobra.Command{
		Use:     "man --dir DIR",
		Short:   "Write the man pages (section 1) of every command into DIR",
		Example: `  ben10 internal man --dir docs/man   # what make man runs`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir := o.dir
			if dir == "" {
				return &usageError{cmd, fmt.Errorf("--dir is required")}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			cmd.Root().DisableAutoGenTag = true // reproducible pages: no date
			hdr := &doc.GenManHeader{Title: "BEN10", Section: "1", Source: "ben10 " + version, Manual: "Ben10 manual"}
			if err := doc.GenManTree(cmd.Root(), hdr, dir); err != nil {
				return fmt.Errorf("writing man pages into %s: %w", dir, err)
			}
			o.g.infof(cmd.OutOrStdout(), "man pages written to %s\n", dir)
			return nil
		},
	}
	internalManCmd.Flags().StringVar(&o.dir, "dir", "", "directory to write the pages into")
	return internalManCmd
}
