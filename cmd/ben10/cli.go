package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a command line the command could not take (an unknown
// command or flag, a wrong number of arguments): main prints it with a
// pointer to the command's help and exits 2.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string {
	return fmt.Sprintf("%v\nRun '%s --help' for usage.", e.err, e.cmd.CommandPath())
}
func (e *usageError) Unwrap() error { return e.err }

// finishTree is applied to the whole command tree once every command has
// been added: a command group given an unknown subcommand fails with "did
// you mean" instead of printing its help and exiting 0; argument-count
// and flag errors become usage errors (with a pointer to --help).
func finishTree(c *cobra.Command) {
	c.SuggestionsMinimumDistance = 2
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
			}
			return &usageError{cmd, errors.New(msg)}
		}
	} else if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &usageError{cmd, err}
			}
			return nil
		}
	}
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd, err}
	})
	for _, sub := range c.Commands() {
		finishTree(sub)
	}
}

// shortcuts are top-level verbs people type for the context commands.
var shortcuts = []struct{ name, target string }{
	{"status", "context status"},
	{"list", "context list"},
	{"save", "context save"},
	{"restore", "context restore"},
}

// addShortcuts adds `ben10 status` for `ben10 context status` and the
// like (unless a command of that name exists): each runs its target with
// the same arguments and flags.
func addShortcuts(root *cobra.Command) {
	for _, s := range shortcuts {
		if c, _, err := root.Find([]string{s.name}); err == nil && c != root {
			continue
		}
		target := strings.Fields(s.target)
		root.AddCommand(&cobra.Command{
			Use:                s.name + " [flags]",
			Short:              "Same as 'ben10 " + s.target + "'",
			Example:            "  ben10 " + s.name + " --help   # the flags of ben10 " + s.target,
			DisableFlagParsing: true,
			GroupID:            "",
			RunE: func(cmd *cobra.Command, args []string) error {
				root.SetArgs(append(append([]string{}, target...), args...))
				return root.Execute()
			},
		})
	}
}

// versionString is the version printed by `ben10 version` and --version:
// the version stamped by make build (-ldflags -X main.version=…), else the
// module's version, then the VCS revision and time the binary was built
// from and the Go version, as debug.ReadBuildInfo reports them (see
// buildInfo).
func versionString() string {
	b := buildInfo()
	v := b["version"]
	if v == "(devel)" {
		v = version
	}
	if rev := b["revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b["modified"] == "true" {
			rev += "-dirty"
		}
		v += " (" + rev
		if when := b["revision_time"]; when != "" {
			v += ", " + when
		}
		v += ")"
	}
	if g, ok := b["go"]; ok {
		v += " " + g
	}
	return v
}

// buildInfo is `ben10 version --json`.
func buildInfo() map[string]string {
	out := map[string]string{"version": version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		out["go"] = bi.GoVersion
		out["module"] = bi.Main.Path
		if version == "dev" && bi.Main.Version != "" {
			out["version"] = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				out["revision"] = s.Value
			case "vcs.time":
				out["revision_time"] = s.Value
			case "vcs.modified":
				out["modified"] = s.Value
			}
		}
	}
	return out
}

// exitCode is the process exit code for err: 2 for a usage error, an
// exitError's own code, else 1.
func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
