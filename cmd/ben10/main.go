// Command ben10 keeps an AI coding assistant's context: it captures sessions
// into .ctx archives, snapshots them before compaction and gives them back.
//
// The command is a thin layer over the library packages: it parses flags,
// calls the library and formats the result. Each command group lives in its
// own file, built by a constructor (newXCmd) from the global options and
// the streams it talks through (globalOptions, IOStreams); newRootCmd puts
// the tree together and run executes one command line, so that a test can
// run any command in-process.
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

// newRootCmd builds the whole command tree for g: --json and --quiet set
// g, and every command talks through g's streams.
func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "ben10",
		Short: "Keep your AI coding assistant's context: capture, snapshot, restore",
		Long: `Ben10 captures a coding assistant's session losslessly into a portable
.ctx archive, snapshots the full context right before every compaction, and
gives it back: a recovery digest, a resumable transcript, search, diff,
extract and export.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVar(&g.json, "json", false, "machine-readable JSON output")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "print only errors")
	root.AddCommand(newVersionCmd(g), newContextCmd(g), newHookCmd(g), newInternalCmd(g))
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

// newVersionCmd builds `ben10 version`.
func newVersionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ben10 version",
		Example: `  ben10 version
  ben10 --version
  ben10 version --json   # version, module, revision, go`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.json {
				return printJSON(cmd.OutOrStdout(), buildInfo())
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ben10 %s\n", versionString())
			return nil
		},
	}
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(&globalOptions{io: systemStreams()}, os.Args[1:]))
}

// run executes the command line args (without the program name) for g and
// returns the process's exit code: 0, or the error's (see exitCode) after
// its message on g's error stream. Commands never exit themselves.
func run(g *globalOptions, args []string) int {
	var err error
	if len(args) > 0 && args[0] == "hook" {
		// `ben10 hook …` normally never gets here: internal/hookentry
		// handled it during initialisation. When it does (--help), it
		// still skips building the tree and cobra's Execute: hook takes
		// its arguments raw (DisableFlagParsing) and handles --help
		// itself, so the result is the same. A global flag before "hook"
		// takes the ordinary path.
		c := newHookCmd(g)
		c.SetOut(g.io.Out)
		c.SetErr(g.io.ErrOut)
		err = c.RunE(c, args[1:])
	} else {
		root := newRootCmd(g)
		root.SetArgs(args)
		err = root.Execute()
	}
	if err == nil {
		return 0
	}
	fmt.Fprintf(g.io.ErrOut, "ben10: %v\n", err)
	return exitCode(err)
}
