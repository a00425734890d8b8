package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ben10ctx/ben10/hook"
	"github.com/spf13/cobra"
)

// hooksOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type hooksOptions struct {
	g      *globalOptions
	scope  string
	dir    string
	bin    string
	dryRun bool
}

// newHooksCmd builds `ben10 hooks`.
func newHooksCmd(g *globalOptions) *cobra.Command {
	o := &hooksOptions{g: g}
	hooksCmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install, remove or show Ben10's Claude Code hooks",
		Long: `Ben10 works automatically through Claude Code hooks: it snapshots the
context before every compaction (PreCompact), injects a recovery digest when a
session starts after compaction (SessionStart), checkpoints as you work
(UserPromptSubmit, PostToolUse) and saves when the session ends (SessionEnd).

When the hook shim ben10-hook sits next to ben10 (make build puts it there),
install points every event at it: it handles what only takes note (counting a
prompt, queuing a checkpoint, PreCompact or SessionEnd job and starting the
worker) without starting ben10, and hands the rest (the digest SessionStart
injects) to ben10. An install of the other form is updated in place.`,
	}
	hooksInstallCmd := &cobra.Command{
		Use:   "install",
		Short: "Merge Ben10's hook entries into a Claude Code settings file",
		Long: `Adds Ben10's hook entries to a Claude Code settings file with minimal
edits: every other byte of the file (its formatting, key order, other tools'
hooks) stays as it was; a symlinked file is edited at its target and keeps
its mode; the previous version is kept as <file>.ben10-backup. Uninstalling
right after gives back the file byte for byte. --dry-run prints the change
as a diff and writes nothing.

--scope project writes a portable command into the committed
.claude/settings.json: "ben10" found on PATH (or, with --bin pointing into the
project, a path relative to $CLAUDE_PROJECT_DIR), never a path in your home
directory.`,
		Example: `  ben10 hooks install                  # ~/.claude/settings.json
  ben10 hooks install --dry-run        # show the diff, change nothing
  ben10 hooks install --scope project  # .claude/settings.json (committed), runs "ben10" from PATH
  ben10 hooks install --scope local    # .claude/settings.local.json
  ben10 hooks install --bin ben10      # run the ben10 found on PATH`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, sc, dir, err := o.hooksTarget()
			if err != nil {
				return err
			}
			bin, err := o.hooksBinaryFor(sc, dir)
			if err != nil {
				return err
			}
			opts := hook.EditOptions{Bin: bin, DryRun: o.dryRun}
			if sc != hook.ScopeUser {
				opts.Within = dir
			}
			res, err := hook.InstallFile(path, opts)
			if err != nil {
				return err
			}
			shim := ""
			if filepath.IsAbs(bin) {
				shim = hook.ShimFor(bin)
			}
			w := cmd.OutOrStdout()
			var mcpOut map[string]any
			if !o.dryRun {
				if mcpOut, err = o.installMCPServer(w, bin); err != nil {
					return err
				}
			}
			if o.g.json {
				out := map[string]any{"path": path, "target": res.Target, "changed": res.Changed, "binary": bin, "dry_run": o.dryRun}
				if mcpOut != nil {
					out["mcp"] = mcpOut
				}
				if shim != "" {
					out["shim"] = shim
				}
				if res.Backup != "" {
					out["backup"] = res.Backup
				}
				if o.dryRun {
					out["diff"] = unifiedDiff(res.Target, res.Before, res.After)
				}
				return printJSON(w, out)
			}
			return o.reportEdit(w, res, "Installed Ben10 hooks in %s (binary %s)\n", bin, shim)
		},
	}
	hooksUninstallCmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove Ben10's hook entries (and only those) from a settings file",
		Long: `Removes Ben10's hook entries, and only those, with minimal edits (see
"hooks install"): right after an install, the file is back byte for byte.`,
		Example: `  ben10 hooks uninstall --scope user
  ben10 hooks uninstall --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, sc, dir, err := o.hooksTarget()
			if err != nil {
				return err
			}
			opts := hook.EditOptions{DryRun: o.dryRun}
			if sc != hook.ScopeUser {
				opts.Within = dir
			}
			res, err := hook.UninstallFile(path, opts)
			if err != nil {
				return err
			}
			var mcpOut map[string]any
			if !o.dryRun {
				if mcpOut, err = o.uninstallMCPServer(cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			if o.g.json {
				out := map[string]any{"path": path, "target": res.Target, "changed": res.Changed, "dry_run": o.dryRun}
				if mcpOut != nil {
					out["mcp"] = mcpOut
				}
				if res.Backup != "" {
					out["backup"] = res.Backup
				}
				if o.dryRun {
					out["diff"] = unifiedDiff(res.Target, res.Before, res.After)
				}
				return printJSON(cmd.OutOrStdout(), out)
			}
			return o.reportEdit(cmd.OutOrStdout(), res, "Removed Ben10 hooks from %s\n", "", "")
		},
	}
	hooksStatusCmd := &cobra.Command{
		Use:     "status",
		Short:   "Show which Ben10 hooks are installed in each settings file",
		Example: `  ben10 hooks status --json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sts, err := o.hooksStatusAll()
			if err != nil {
				return err
			}
			if o.g.json {
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
	for _, c := range []*cobra.Command{hooksInstallCmd, hooksUninstallCmd} {
		c.Flags().StringVar(&o.scope, "scope", "user", "settings file: user, project or local")
	}
	hooksInstallCmd.Flags().StringVar(&o.bin, "bin", "", `binary the hooks run: a path, or a command on PATH such as "ben10" (default: this ben10; "ben10" for --scope project)`)
	for _, c := range []*cobra.Command{hooksInstallCmd, hooksUninstallCmd} {
		c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the change as a diff and write nothing")
	}
	hooksCmd.PersistentFlags().StringVar(&o.dir, "dir", "", "project directory for project/local scope (default: current directory)")
	hooksCmd.AddCommand(hooksInstallCmd, hooksUninstallCmd, hooksStatusCmd)
	return hooksCmd
}

// reportEdit prints what a settings edit did, or its diff for a dry run.
func (o *hooksOptions) reportEdit(w io.Writer, res hook.EditResult, doneFormat, bin, shim string) error {
	switch {
	case o.dryRun && res.Changed:
		fmt.Fprint(w, unifiedDiff(res.Target, res.Before, res.After))
		o.g.infof(w, "(dry run: %s not changed)\n", res.Target)
	case !res.Changed && bin != "":
		o.g.infof(w, "Ben10 hooks already installed in %s; nothing changed\n", res.Path)
	case !res.Changed:
		o.g.infof(w, "No Ben10 hooks in %s; nothing changed\n", res.Path)
	default:
		if bin != "" {
			o.g.infof(w, doneFormat, res.Path, bin)
		} else {
			o.g.infof(w, doneFormat, res.Path)
		}
		if res.Target != res.Path {
			o.g.infof(w, "(edited the symlink's target %s)\n", res.Target)
		}
		if res.Backup != "" {
			o.g.infof(w, "Previous version kept in %s\n", res.Backup)
		}
		if shim != "" {
			o.g.infof(w, "UserPromptSubmit runs the hook shim %s\n", shim)
		}
	}
	return nil
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
func (o *hooksOptions) hooksStatusAll() ([]hook.Installed, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	dir, err := projectDir(o.dir)
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

// hooksTarget is the settings file --scope and --dir name, its scope and
// the project directory.
func (o *hooksOptions) hooksTarget() (path string, sc hook.Scope, dir string, err error) {
	if sc, err = hook.ParseScope(o.scope); err != nil {
		return "", "", "", err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", "", err
	}
	if dir, err = projectDir(o.dir); err != nil {
		return "", "", "", err
	}
	return hook.SettingsPath(sc, home, dir), sc, dir, nil
}

// hooksBinaryFor is the ben10 the hooks of scope sc run, as written into
// the settings file: --bin as a bare command name found on PATH ("ben10")
// as it is; otherwise an absolute, symlink-resolved path (--bin, or this
// executable). A project's committed settings get a portable command: the
// bare "ben10" by default, a path inside the project as
// "$CLAUDE_PROJECT_DIR"/…, and never a path in the user's home directory.
func (o *hooksOptions) hooksBinaryFor(sc hook.Scope, dir string) (string, error) {
	p := o.bin
	if sc == hook.ScopeProject && p == "" {
		p = "ben10"
	}
	if p != "" && !strings.ContainsAny(p, `/\`) {
		if _, err := exec.LookPath(p); err != nil {
			o.g.warnf("%s is not on PATH here: the hooks will fail until it is", p)
		}
		return p, nil
	}
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
	if sc == hook.ScopeProject {
		root := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			root = r
		}
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return `"$CLAUDE_PROJECT_DIR"/` + filepath.ToSlash(rel), nil
		}
		if home, err := os.UserHomeDir(); err == nil {
			if rel, err := filepath.Rel(home, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return "", fmt.Errorf("--scope project: %s is in your home directory and would be committed with the project; use --bin ben10 (found on PATH) or a binary inside the project", abs)
			}
		}
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
