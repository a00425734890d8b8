package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ben10ctx/ben10/hook"
	"github.com/spf13/cobra"
)

var hooksFlags struct {
	scope string
	dir   string
	bin   string
}

var hooksCmd = &cobra.Command{
	Use:   "hooks",
	Short: "Install, remove or show Ben10's Claude Code hooks",
	Long: `Ben10 works automatically through Claude Code hooks: it snapshots the
context before every compaction (PreCompact), injects a recovery digest when a
session starts after compaction (SessionStart), checkpoints as you work
(UserPromptSubmit, PostToolUse) and saves when the session ends (SessionEnd).

When the hook shim ben10-hook sits next to ben10 (make build puts it there),
install points UserPromptSubmit at it: it counts a prompt with no checkpoint
due in about the start-up time of an empty Go program, and hands every other
call to ben10. An install of the other form is updated in place.`,
}

var hooksInstallCmd = &cobra.Command{
	Use:   "install",
	Short: "Merge Ben10's hook entries into a Claude Code settings file",
	Example: `  ben10 hooks install                  # ~/.claude/settings.json
  ben10 hooks install --scope project  # .claude/settings.json (committed)
  ben10 hooks install --scope local    # .claude/settings.local.json`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		path, err := hooksSettingsPath()
		if err != nil {
			return err
		}
		bin, err := hooksBinary()
		if err != nil {
			return err
		}
		changed, err := hook.Install(path, bin)
		if err != nil {
			return err
		}
		mcpOut, err := installMCPServer(cmd.OutOrStdout(), bin)
		if err != nil {
			return err
		}
		shim := hook.ShimFor(bin)
		if globalFlags.json {
			out := map[string]any{"path": path, "changed": changed, "binary": bin, "mcp": mcpOut}
			if shim != "" {
				out["shim"] = shim
			}
			return printJSON(cmd.OutOrStdout(), out)
		}
		if changed {
			infof(cmd.OutOrStdout(), "Installed Ben10 hooks in %s (binary %s)\n", path, bin)
			if shim != "" {
				infof(cmd.OutOrStdout(), "UserPromptSubmit runs the hook shim %s\n", shim)
			}
		} else {
			infof(cmd.OutOrStdout(), "Ben10 hooks already installed in %s; nothing changed\n", path)
		}
		return nil
	},
}

var hooksUninstallCmd = &cobra.Command{
	Use:     "uninstall",
	Short:   "Remove Ben10's hook entries (and only those) from a settings file",
	Example: `  ben10 hooks uninstall --scope user`,
	Args:    cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		path, err := hooksSettingsPath()
		if err != nil {
			return err
		}
		changed, err := hook.Uninstall(path)
		if err != nil {
			return err
		}
		mcpOut, err := uninstallMCPServer(cmd.OutOrStdout())
		if err != nil {
			return err
		}
		if globalFlags.json {
			return printJSON(cmd.OutOrStdout(), map[string]any{"path": path, "changed": changed, "mcp": mcpOut})
		}
		if changed {
			infof(cmd.OutOrStdout(), "Removed Ben10 hooks from %s\n", path)
		} else {
			infof(cmd.OutOrStdout(), "No Ben10 hooks in %s; nothing changed\n", path)
		}
		return nil
	},
}

var hooksStatusCmd = &cobra.Command{
	Use:     "status",
	Short:   "Show which Ben10 hooks are installed in each settings file",
	Example: `  ben10 hooks status --json`,
	Args:    cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		sts, err := hooksStatusAll()
		if err != nil {
			return err
		}
		if globalFlags.json {
			return printJSON(cmd.OutOrStdout(), sts)
		}
		w := cmd.OutOrStdout()
		for _, st := range sts {
			state := "not installed"
			switch {
			case !st.Exists:
				state = "no settings file"
			case len(st.Events) > 0 && len(st.Missing) == 0:
				state = "installed"
			case len(st.Events) > 0:
				state = "partly installed (missing " + joinEvents(st.Missing) + ")"
			}
			fmt.Fprintf(w, "%-8s %s: %s\n", st.Scope, st.Path, state)
			if st.Binary != "" {
				note := ""
				if _, err := os.Stat(st.Binary); err != nil {
					note = "  ⚠ binary not found"
				}
				fmt.Fprintf(w, "         binary %s%s\n", st.Binary, note)
			}
			if st.Shim != "" {
				note := ""
				if _, err := os.Stat(st.Shim); err != nil {
					note = "  ⚠ shim not found"
				}
				fmt.Fprintf(w, "         shim   %s%s\n", st.Shim, note)
			}
		}
		return nil
	},
}

func joinEvents(es []hook.Event) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = string(e)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// hooksStatusAll reads every scope's settings file.
func hooksStatusAll() ([]hook.Installed, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	dir, err := projectDir(hooksFlags.dir)
	if err != nil {
		return nil, err
	}
	var out []hook.Installed
	for _, sc := range hook.Scopes {
		st, err := hook.Status(hook.SettingsPath(sc, home, dir), sc)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func hooksSettingsPath() (string, error) {
	sc, err := hook.ParseScope(hooksFlags.scope)
	if err != nil {
		return "", err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	dir, err := projectDir(hooksFlags.dir)
	if err != nil {
		return "", err
	}
	return hook.SettingsPath(sc, home, dir), nil
}

// hooksBinary is the absolute, symlink-resolved path of the binary the
// hooks will run: --bin, or this executable.
func hooksBinary() (string, error) {
	p := hooksFlags.bin
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding the ben10 binary: %w (pass --bin)", err)
		}
		p = exe
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("hook binary %s: %w", abs, err)
	}
	return abs, nil
}

// projectDir is dir, or the working directory, made absolute.
func projectDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	return filepath.Abs(dir)
}

func init() {
	for _, c := range []*cobra.Command{hooksInstallCmd, hooksUninstallCmd} {
		c.Flags().StringVar(&hooksFlags.scope, "scope", "user", "settings file: user, project or local")
	}
	hooksInstallCmd.Flags().StringVar(&hooksFlags.bin, "bin", "", "binary the hooks run (default: this ben10)")
	hooksCmd.PersistentFlags().StringVar(&hooksFlags.dir, "dir", "", "project directory for project/local scope (default: current directory)")
	hooksCmd.AddCommand(hooksInstallCmd, hooksUninstallCmd, hooksStatusCmd)
	rootCmd.AddCommand(hooksCmd)
}
