// Command ben10 keeps an AI coding assistant's context: it captures sessions
// into .ctx archives, snapshots them before compaction and gives them back.
//
// The command is a thin layer over the library packages: it parses flags,
// calls the library and formats the result. Each command group lives in its
// own file and registers itself on the root command from an init function.
package main

import (
	"fmt"
	"os"

	// `ben10 hook …` runs from this package's initialisation, before the
	// command tree below is built (see its doc).
	_ "github.com/ben10ctx/ben10/internal/hookentry"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

var rootCmd = &cobra.Command{
	Use:   "ben10",
	Short: "Keep your AI coding assistant's context: capture, snapshot, restore",
	Long: `Ben10 captures a coding assistant's session losslessly into a portable
.ctx archive, snapshots the full context right before every compaction, and
gives it back: a recovery digest, a resumable transcript, search, diff,
extract and export.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

func init() {
	rootCmd.PersistentFlags().BoolVar(&globalFlags.json, "json", false, "machine-readable JSON output")
	rootCmd.PersistentFlags().BoolVarP(&globalFlags.quiet, "quiet", "q", false, "print only errors")
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the ben10 version",
		Example: `  ben10 version
  ben10 --version
  ben10 version --json   # version, module, revision, go`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if globalFlags.json {
				return printJSON(cmd.OutOrStdout(), buildInfo())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ben10 %s\n", versionString())
			return nil
		},
	})
}

// newRootCmd builds the command tree for g, talking through g's streams.
// (While some commands still register themselves on rootCmd, it returns
// rootCmd and can be called once per process.)
func newRootCmd(g *globalOptions) *cobra.Command {
	root := rootCmd
	contextCmd.AddCommand(newCompactionCmd(g), newConfigCmd(g))
	contextCmd.AddCommand(newContextStoreCmds(g)...)
	contextCmd.AddCommand(newContextSaveCmd(g), newContextInspectCmd(g), newContextExportCmd(g), newContextRestoreCmd(g))
	root.AddCommand(newHookCmd(g), newInternalCmd(g))
	root.AddCommand(newArchiveCmd(g), newDoctorCmd(g), newHooksCmd(g), newIndexCmd(g), newMCPCmd(g), newRemoteCmd(g), newSearchCmd(g), newServeCmd(g), newShellInitCmd(g), newShowCmd(g), newStatuslineCmd(g), newViewCmd(g), newWatchCmd(g))
	root.SetIn(g.io.In)
	root.SetOut(g.io.Out)
	root.SetErr(g.io.ErrOut)
	root.Version = versionString()
	root.SetVersionTemplate("ben10 {{.Version}}\n")
	// Shortcuts, examples, completions, usage errors: once every command
	// is in the tree.
	addShortcuts(root)
	addExamples(root)
	addCompletions(root)
	finishTree(root)
	return root
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	// `ben10 hook …` normally never gets here: internal/hookentry handled
	// it during initialisation. When it does (--help), it still skips
	// cobra's Execute (command lookup, flag parsing and building the
	// default help and completion commands): hook takes its arguments raw
	// (DisableFlagParsing) and handles --help itself, so the result is the
	// same. A global flag before "hook" takes the ordinary path.
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		hookCmd := newHookCmd(globalFlags)
		hookCmd.SetOut(globalFlags.io.Out)
		hookCmd.SetErr(globalFlags.io.ErrOut)
		exitOn(hookCmd.RunE(hookCmd, os.Args[2:]))
		return
	}
	exitOn(newRootCmd(globalFlags).Execute())
}

// exitOn ends the process for a command's error: its message on stderr and
// its exit code (1 unless an exitError says otherwise).
func exitOn(err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(globalFlags.io.ErrOut, "ben10: %v\n", err)
	os.Exit(exitCode(err))
}
