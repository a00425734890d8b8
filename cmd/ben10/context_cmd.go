package main

import "github.com/spf13/cobra"

// contextCmd is the parent of every `ben10 context …` command; each
// subcommand registers itself from its own file.
var contextCmd = &cobra.Command{
	Use:   "context",
	Short: "Save, inspect, restore and manage a project's context",
}

func init() { rootCmd.AddCommand(contextCmd) }
