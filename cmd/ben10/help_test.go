package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command a user can run has at least one example in its help,
// each starting with "ben10 ".
func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Hidden || !c.IsAvailableCommand() && c != c.Root() || c.Name() == "help" {
			return
		}
		if c.HasParent() && c.Parent().Name() == "completion" || c.Name() == "completion" {
			return // cobra's own
		}
		ex := strings.TrimSpace(c.Example)
		if ex == "" {
			t.Errorf("%s: no example", c.CommandPath())
			return
		}
		for _, l := range strings.Split(ex, "\n") {
			l = strings.TrimSpace(l)
			if l != "" && !strings.HasPrefix(l, "ben10 ") && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "$") && !strings.HasPrefix(l, "BEN10_") && !strings.HasPrefix(l, "eval ") && !strings.HasPrefix(l, "echo ") {
				t.Errorf("%s: example line %q does not run ben10", c.CommandPath(), l)
			}
		}
	}
	root := newRootCmd(&globalOptions{io: &IOStreams{}})
	walk(root)
}
