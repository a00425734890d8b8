package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// configOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type configOptions struct {
	g    *globalOptions
	dir  string
	user bool
}

// newConfigCmd builds `ben10 context config`.
func newConfigCmd(g *globalOptions) *cobra.Command {
	o := &configOptions{g: g}
	configCmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and where each value came from",
		Long: `Show the effective Ben10 configuration of a project: every key under
context:, its value, and where it came from (default, user file
~/.claude-code/config.yaml, project file .claude/config.yaml, with line).
Precedence: flags > project > user > defaults.`,
		Args: cobra.NoArgs,
		RunE: o.runConfigShow,
	}
	configSetCmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set one configuration key, keeping the file's comments",
		Long: `Set one key (dotted, under context:, e.g. compaction_snapshots.retention_count)
in the project's .claude/config.yaml, or with --user in ~/.claude-code/config.yaml.
The value is validated first; lists take "a,b,c" or YAML flow syntax "[a, b]".`,
		Args: cobra.ExactArgs(2),
		RunE: o.runConfigSet,
	}
	configCmd.PersistentFlags().StringVar(&o.dir, "dir", ".", "project directory")
	configSetCmd.Flags().BoolVar(&o.user, "user", false, "edit the user file ~/.claude-code/config.yaml instead of the project's")
	configCmd.AddCommand(configSetCmd)
	return configCmd
}

// configFiles are the files a project's configuration is read from.
type configFiles struct {
	User    string `json:"user"`
	Project string `json:"project"`
}

func (o *configOptions) configPaths() (project, home string, files configFiles, err error) {
	project, err = store.CanonicalDir(o.dir)
	if err != nil {
		return "", "", files, err
	}
	home, err = store.HomeDir()
	if err != nil {
		return "", "", files, err
	}
	return project, home, configFiles{User: store.UserConfigPath(home), Project: store.ProjectConfigPath(project)}, nil
}

func printConfigWarnings(w io.Writer, warns []store.Warning) {
	for _, wn := range warns {
		fmt.Fprintf(w, "ben10: warning: %s\n", wn)
	}
}

func (o *configOptions) runConfigShow(cmd *cobra.Command, _ []string) error {
	project, home, files, err := o.configPaths()
	if err != nil {
		return err
	}
	cfg, prov, warns, err := store.LoadConfig(project, home, nil)
	printConfigWarnings(cmd.ErrOrStderr(), warns)
	if err != nil {
		return err
	}
	settings := store.Settings(cfg, prov)
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), struct {
			Project  string          `json:"project"`
			Files    configFiles     `json:"files"`
			Settings []store.Setting `json:"settings"`
			Warnings []store.Warning `json:"warnings"`
		}{project, files, settings, nonNil(warns)})
	}
	if o.g.quiet {
		return nil
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "Configuration for %s\n", project)
	fmt.Fprintf(out, "  user file:    %s%s\n", files.User, existsNote(files.User))
	fmt.Fprintf(out, "  project file: %s%s\n\n", files.Project, existsNote(files.Project))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, s := range settings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, oneLine(s.Text, 60), s.Source)
	}
	return tw.Flush()
}

func existsNote(p string) string {
	if _, err := os.Stat(p); err != nil {
		return " (not present)"
	}
	return ""
}

func (o *configOptions) runConfigSet(cmd *cobra.Command, args []string) error {
	project, home, files, err := o.configPaths()
	if err != nil {
		return err
	}
	path := files.Project
	if o.user {
		path = files.User
	}
	key := strings.TrimPrefix(args[0], "context.")
	if err := store.SetConfigValue(path, key, args[1]); err != nil {
		return err
	}
	cfg, prov, warns, err := store.LoadConfig(project, home, nil)
	printConfigWarnings(cmd.ErrOrStderr(), warns)
	if err != nil {
		return fmt.Errorf("%s was updated, but the configuration is now invalid: %w", path, err)
	}
	var set store.Setting
	for _, s := range store.Settings(cfg, prov) {
		if s.Key == key || (key == "encryption" && s.Key == "encryption.enabled") {
			set = s
		}
	}
	if o.g.json {
		return printJSON(cmd.OutOrStdout(), struct {
			File           string       `json:"file"`
			Key            string       `json:"key"`
			Written        string       `json:"written"`
			EffectiveValue any          `json:"effective_value"`
			Source         store.Source `json:"effective_source"`
		}{path, set.Key, args[1], set.Value, set.Source})
	}
	if set.Source.File == path {
		o.g.infof(cmd.OutOrStdout(), "Set context.%s = %s in %s\n", set.Key, set.Text, path)
		return nil
	}
	o.g.infof(cmd.OutOrStdout(), "Set context.%s = %s in %s\n", set.Key, args[1], path)
	o.g.infof(cmd.OutOrStdout(), "Note: the effective value is %s, from %s\n", set.Text, set.Source)
	return nil
}
