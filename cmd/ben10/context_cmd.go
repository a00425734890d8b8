package main

import "github.com/spf13/cobra"

// newContextCmd builds `ben10 context`, the parent of the commands that
// save, inspect, restore and manage a project's context.
func newContextCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "context",
		Short: "Save, inspect, restore and manage a project's context",
	}
	c.AddCommand(newContextStoreCmds(g)...)
	c.AddCommand(newContextSaveCmd(g), newContextInspectCmd(g), newContextExportCmd(g), newContextRestoreCmd(g))
	c.AddCommand(newCompactionCmd(g), newConfigCmd(g))
	return c
}
