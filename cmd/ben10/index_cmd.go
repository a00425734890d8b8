package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// newIndexCmd builds `ben10 index` and its subcommands.
func newIndexCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "index",
		Short: "The recall index behind search: status, update, rebuild, verify",
		Long: `The recall index (~/.claude-code/index.db) holds the searchable text of every
archive of every project Ben10 knows. Encrypted archives are not indexed.`,
		Example: `  ben10 index status
  ben10 index update --project ~/src/app`,
	}
	var projects []string
	for _, sub := range []struct{ use, short, example string }{
		{"update", "Index the archives saved, changed or removed since the last update", "  ben10 index update\n  ben10 index update --project ~/src/app --json"},
		{"rebuild", "Empty the index and index every archive again", "  ben10 index rebuild"},
	} {
		rebuild := sub.use == "rebuild"
		u := &cobra.Command{Use: sub.use, Short: sub.short, Example: sub.example, Args: cobra.NoArgs,
			RunE: g.onIndex(func(cmd *cobra.Command, _ []string, x *index.Index) error {
				return runIndexUpdate(cmd, g, x, projects, rebuild)
			})}
		u.Flags().StringSliceVar(&projects, "project", nil, "also scan this project directory (repeatable)")
		c.AddCommand(u)
	}
	c.AddCommand(&cobra.Command{
		Use:     "status",
		Short:   "What the index holds",
		Example: "  ben10 index status --json",
		Args:    cobra.NoArgs,
		RunE:    g.onIndex(g.runIndexStatus),
	}, &cobra.Command{
		Use:     "verify",
		Short:   "Check the database and that every indexed archive is unchanged on disk",
		Example: "  ben10 index verify",
		Args:    cobra.NoArgs,
		RunE:    g.onIndex(g.runIndexVerify),
	})
	return c
}

// onIndex is a cobra RunE that opens the recall index (see openIndex;
// without an update) and runs run on it.
func (g *globalOptions) onIndex(run func(cmd *cobra.Command, args []string, x *index.Index) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		x, err := openIndex(cmd.Context(), g, cmd.ErrOrStderr(), nil)
		if err != nil {
			return err
		}
		defer x.Close()
		return run(cmd, args, x)
	}
}

func runIndexUpdate(cmd *cobra.Command, g *globalOptions, x *index.Index, projects []string, rebuild bool) error {
	if p := currentProject(); p != "" {
		projects = append(projects, p)
	}
	ctx, out, errw := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
	opts := index.UpdateOptions{Projects: projects}
	var st index.Stats
	var err error
	if rebuild {
		st, err = x.Rebuild(ctx, opts)
	} else {
		st, err = x.Update(ctx, opts)
	}
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(out, st)
	}
	g.infof(out, "%d projects: %d archives indexed, %d unchanged, %d removed, %d encrypted (not indexed), %d unreadable (skipped); %d rows\n",
		st.Projects, st.Added, st.Unchanged, st.Removed, st.Encrypted, st.Skipped, st.Rows)
	for _, p := range st.Problems {
		fmt.Fprintf(errw, "ben10: skipped %s\n", p)
	}
	return nil
}

func (g *globalOptions) runIndexStatus(cmd *cobra.Command, _ []string, x *index.Index) error {
	out := cmd.OutOrStdout()
	s, err := x.Status(cmd.Context())
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(out, s)
	}
	fmt.Fprintf(out, "Recall index %s (%s)\n", tildePath(s.Path), humanBytes(s.Bytes))
	fmt.Fprintf(out, "  projects   %d\n  archives   %d (%d indexed, %d encrypted and not indexed, %d unreadable)\n  rows       %s (%s distinct texts)\n",
		s.Projects, s.Archives, s.Indexed, s.Encrypted, s.Skipped, commas(int64(s.Rows)), commas(int64(s.Texts)))
	if s.Pulled > 0 {
		home, _ := store.HomeDir()
		fmt.Fprintf(out, "  pulled     %d from team remotes (%s)\n", s.Pulled, tildePath(index.PullArea(home)))
	}
	if n := s.Indexed - s.Trust[index.TrustUser] - s.Trust[index.TrustTeam]; n > 0 {
		fmt.Fprintf(out, "  unauthenticated %d (not saved by you: their hits are withheld; ben10 index verify lists them)\n", n)
	}
	if n := s.Trust[index.TrustTeam]; n > 0 {
		fmt.Fprintf(out, "  team       %d (pulled from team remotes)\n", n)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Kinds)) {
		fmt.Fprintf(out, "    %-10s %s\n", k, commas(int64(s.Kinds[k])))
	}
	for _, p := range s.Problems {
		fmt.Fprintf(out, "  unreadable: %s\n", p)
	}
	return nil
}

func (g *globalOptions) runIndexVerify(cmd *cobra.Command, _ []string, x *index.Index) error {
	out := cmd.OutOrStdout()
	r, err := x.Verify(cmd.Context())
	if err != nil {
		return err
	}
	if g.json {
		if err := printJSON(out, r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "database: %s; %d archives checked\n", r.Integrity, r.Archives)
		for _, p := range r.Stale {
			fmt.Fprintf(out, "  changed since indexed: %s\n", p)
		}
		for _, p := range r.Missing {
			fmt.Fprintf(out, "  gone from disk: %s\n", p)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(out, "  problem: %s\n", p)
		}
		for _, p := range r.Unauthenticated {
			fmt.Fprintf(out, "  not authenticated as yours (hits withheld): %s\n", p)
		}
	}
	if !r.OK() {
		return &exitError{code: 1, err: fmt.Errorf("index verify: the index is out of date or damaged (ben10 index update, or rebuild)")}
	}
	return nil
}

// indexInBackground indexes project's archives for a detached background
// process; a failure goes to the hooks' error log.
func indexInBackground(ctx context.Context, project string) {
	if project == "" {
		return
	}
	home, err := store.HomeDir()
	if err == nil {
		var x *index.Index
		if x, err = index.Open(index.Options{Home: home}); err == nil {
			_, err = x.Update(ctx, index.UpdateOptions{Projects: []string{project}, Only: true})
			x.Close()
		}
	}
	if err != nil {
		_ = hookfast.AppendError(home, hookfast.ErrorEntry{Time: time.Now(), Event: "index", Project: project, Error: err.Error()})
	}
}
