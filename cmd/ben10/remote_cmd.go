package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/remote"
	"github.com/ben10ctx/ben10/store"
)

// remoteOpts are the flags of the remote commands and the global
// options.
type remoteOpts struct {
	g                *globalOptions
	endpoint, region string
	project, key     string
	all, force, dry  bool
	since, session   string
	sinceTime        time.Time // --since, parsed
	grace            time.Duration
	keyOut           string
}

// newRemoteCmd builds `ben10 remote` and its subcommands.
func newRemoteCmd(g *globalOptions) *cobra.Command {
	o := &remoteOpts{g: g}
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Share context with teammates through S3-compatible storage, encrypted on this machine",
		Long: `Push a project's saved contexts and compaction snapshots to an S3-compatible
bucket (Amazon S3, MinIO, R2, …) and pull a teammate's. Everything that leaves
the machine is encrypted with the team key (ben10 remote key); the bucket sees
only random-looking objects named by keyed hashes. Home directory and user
name are stripped as in a .ctxpkg export; redaction already ran at save time.

Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and
AWS_SESSION_TOKEN), else the AWS_PROFILE profile of ~/.aws/credentials; Ben10
never takes them on its command line and never stores them. See docs/REMOTE.md.`,
	}
	add := &cobra.Command{
		Use:   "add NAME s3://BUCKET[/PREFIX]",
		Short: "Add a remote (stored in ~/.claude-code/remotes.yaml, without credentials)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, cfg, err := remoteConfig()
			if err != nil {
				return err
			}
			if err := cfg.Add(remote.Remote{Name: args[0], URL: args[1], Endpoint: o.endpoint, Region: o.region}); err != nil {
				return err
			}
			if err := cfg.Save(); err != nil {
				return err
			}
			o.g.infof(cmd.OutOrStdout(), "added remote %s → %s\n", args[0], args[1])
			if _, err := remote.LoadKey(home, args[0]); errors.Is(err, remote.ErrNoKey) {
				o.g.infof(cmd.OutOrStdout(), "no team key yet: ben10 remote key create %s (first teammate) or ben10 remote key import %s FILE\n", args[0], args[0])
			}
			return nil
		},
	}
	add.Flags().StringVar(&o.endpoint, "endpoint", "", "server URL, e.g. http://127.0.0.1:9000 (default Amazon S3)")
	add.Flags().StringVar(&o.region, "region", "", "bucket region (default $AWS_REGION, then us-east-1)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the configured remotes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, cfg, err := remoteConfig()
			if err != nil {
				return err
			}
			type row struct {
				Name     string   `json:"name"`
				URL      string   `json:"url"`
				Endpoint string   `json:"endpoint,omitempty"`
				Region   string   `json:"region,omitempty"`
				Default  bool     `json:"default"`
				KeyID    string   `json:"key_id,omitempty"`
				Projects []string `json:"projects,omitempty"`
			}
			rows := []row{}
			for _, n := range cfg.Names() {
				r := cfg.Remotes[n]
				kid := ""
				if k, err := remote.LoadKey(home, n); err == nil {
					kid = k.ID()
				}
				rows = append(rows, row{n, r.URL, r.Endpoint, r.Region, n == cfg.Default, kid, r.Projects})
			}
			return o.g.table(cmd.OutOrStdout(), rows, nil, func(tw io.Writer) {
				if len(rows) == 0 {
					fmt.Fprintln(tw, "No remotes (ben10 remote add NAME s3://BUCKET/PREFIX).")
					return
				}
				fmt.Fprintln(tw, "NAME\tURL\tENDPOINT\tTEAM KEY")
				for _, r := range rows {
					name := r.Name
					if r.Default {
						name += " (default)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, r.URL, orNone(r.Endpoint), cmp.Or(r.KeyID, "none"))
				}
			})
		},
	}
	rm := &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove a remote from the configuration (the bucket and the team key are left alone)",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, cfg, err := remoteConfig()
			if err != nil {
				return err
			}
			if err := cfg.Remove(args[0]); err != nil {
				return err
			}
			if err := cfg.Save(); err != nil {
				return err
			}
			o.g.infof(cmd.OutOrStdout(), "removed remote %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(add, list, rm, newRemoteKeyCmd(o), newRemotePushCmd(o), newRemotePullCmd(o), newRemoteLsCmd(o), newRemotePruneCmd(o))
	return cmd
}

func remoteConfig() (string, *remote.Config, error) {
	home, err := store.HomeDir()
	if err != nil {
		return "", nil, err
	}
	cfg, err := remote.LoadConfig(home)
	return home, cfg, err
}

// remoteName resolves the optional NAME argument.
func remoteName(args []string) (string, *remote.Remote, *remote.Config, error) {
	home, cfg, err := remoteConfig()
	if err != nil {
		return "", nil, nil, err
	}
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	r, err := cfg.Get(name)
	return home, r, cfg, err
}

func newRemoteKeyCmd(o *remoteOpts) *cobra.Command {
	key := &cobra.Command{
		Use:   "key",
		Short: "Create, import or export a remote's team key",
		Long: `The team key encrypts everything pushed to a remote. The first teammate
creates it; the others import it. It is kept in
~/.claude-code/remote-keys/NAME.key (0600). Hand it over through a channel you
trust (a password manager, an encrypted message): whoever holds it can read
everything pushed with it.`,
	}
	create := &cobra.Command{
		Use:   "create [NAME]",
		Short: "Create a new random team key for a remote",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, r, _, err := remoteName(args)
			if err != nil {
				return err
			}
			k, err := remote.NewKey()
			if err != nil {
				return err
			}
			if err := remote.SaveKey(home, r.Name, k, o.force); err != nil {
				return err
			}
			o.g.infof(cmd.OutOrStdout(), "created team key %s for remote %s in %s\nshare it with: ben10 remote key export %s\n", k.ID(), r.Name, remote.KeyPath(home, r.Name), r.Name)
			return nil
		},
	}
	create.Flags().BoolVar(&o.force, "force", false, "replace an existing key (what was pushed with it becomes unreadable here)")
	imp := &cobra.Command{
		Use:   "import [NAME] [FILE|-]",
		Short: "Install a team key handed over by a teammate (from FILE, or standard input)",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			src := "-"
			if len(args) == 2 {
				src = args[1]
				args = args[:1]
			}
			home, r, _, err := remoteName(args)
			if err != nil {
				return err
			}
			var in io.Reader = cmd.InOrStdin()
			if src != "-" {
				f, err := os.Open(src)
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			b, err := io.ReadAll(io.LimitReader(in, 4<<10))
			if err != nil {
				return err
			}
			k, err := remote.ParseKey(string(b))
			if err != nil {
				return err
			}
			if old, err := remote.LoadKey(home, r.Name); err == nil && old.ID() == k.ID() {
				o.g.infof(cmd.OutOrStdout(), "team key %s for remote %s is already installed\n", k.ID(), r.Name)
				return nil
			}
			if err := remote.SaveKey(home, r.Name, k, o.force); err != nil {
				return err
			}
			o.g.infof(cmd.OutOrStdout(), "imported team key %s for remote %s\n", k.ID(), r.Name)
			return nil
		},
	}
	imp.Flags().BoolVar(&o.force, "force", false, "replace an existing key")
	exp := &cobra.Command{
		Use:   "export [NAME]",
		Short: "Print the team key (or write it to --output, 0600) to hand to a teammate",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, r, _, err := remoteName(args)
			if err != nil {
				return err
			}
			k, err := remote.LoadKey(home, r.Name)
			if err != nil {
				return err
			}
			if o.keyOut != "" {
				f, err := os.OpenFile(o.keyOut, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
				if err != nil {
					return err
				}
				if _, err := fmt.Fprintln(f, k.String()); err != nil {
					f.Close()
					return err
				}
				return f.Close()
			}
			fmt.Fprintln(cmd.OutOrStdout(), k.String())
			return nil
		},
	}
	exp.Flags().StringVarP(&o.keyOut, "output", "o", "", "write the key to this new file instead of standard output")
	key.AddCommand(create, imp, exp)
	return key
}

// remoteRun is the body of a command that talks to a remote: c is
// connected to r (cfg is the remotes file); an interrupt ends ctx.
type remoteRun func(ctx context.Context, cmd *cobra.Command, c *remote.Client, r *remote.Remote, cfg *remote.Config) error

// onRemote is a cobra RunE that loads the team key of the remote the
// optional NAME argument names (else the default one), connects (create:
// making the bucket if need be) and runs run.
func onRemote(create bool, run remoteRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt)
		defer cancel()
		home, r, cfg, err := remoteName(args)
		if err != nil {
			return err
		}
		k, err := remote.LoadKey(home, r.Name)
		if err != nil {
			return err
		}
		c, err := remote.Dial(ctx, *r, k, create)
		if err != nil {
			return err
		}
		return run(ctx, cmd, c, r, cfg)
	}
}

func newRemotePushCmd(o *remoteOpts) *cobra.Command {
	push := &cobra.Command{
		Use:   "push [NAME]",
		Short: "Upload a project's saved contexts and compaction snapshots the remote lacks",
		Long: `Upload the archives of a project's store (current, history, compaction
snapshots) that the remote does not hold: the redacted raw transcript, with the
home directory and user name stripped, cut into content-defined chunks, each
compressed and encrypted with the team key. Chunks the bucket already holds are
not sent again; a run that uploads nothing new writes nothing. The manifest
that lists the new entries is written after every chunk, so an interrupted push
is simply run again.`,
		Args: cobra.MaximumNArgs(1),
		PreRunE: func(*cobra.Command, []string) (err error) {
			if o.all && o.project != "" {
				return errors.New("--project and --all exclude each other")
			}
			o.sinceTime, err = parseSince(o.since, time.Now())
			return err
		},
		RunE: onRemote(true, func(ctx context.Context, cmd *cobra.Command, c *remote.Client, r *remote.Remote, cfg *remote.Config) error {
			dirs := []string{o.project}
			if o.all {
				if dirs = r.Projects; len(dirs) == 0 {
					return fmt.Errorf("--all: nothing was pushed to %s from this machine yet (push a project with --project DIR first)", r.Name)
				}
			} else if dirs[0] == "" {
				dirs[0] = "."
			}
			var results []remote.PushStats
			var failed []string
			for _, dir := range dirs {
				st, _, err := o.g.openProject(dir, false)
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", dir, err))
					continue
				}
				prog := o.g.newBytesProgress("push "+filepath.Base(st.ProjectDir()), 0)
				c.Progress = prog.Set
				stats, err := c.Push(ctx, st, remote.PushOptions{Project: o.key, Since: o.sinceTime})
				prog.Done()
				for _, w := range stats.Warnings {
					fmt.Fprintf(o.g.io.ErrOut, "ben10: warning: %s\n", w)
				}
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", st.ProjectDir(), err))
					continue
				}
				results = append(results, stats)
				if r.AddProject(st.ProjectDir()) {
					if err := cfg.Save(); err != nil {
						fmt.Fprintf(o.g.io.ErrOut, "ben10: warning: recording the project in %s: %v\n", remote.ConfigPath(st.Home()), err)
					}
				}
				o.g.infof(cmd.OutOrStdout(), "%s → %s: %d new of %d archives (%d already there), %d chunks uploaded (%s), %d reused\n",
					stats.Project, r.Name, stats.Entries, stats.Archives, stats.Present, stats.ChunksUploaded, humanBytes(stats.BytesUploaded), stats.ChunksReused)
			}
			if o.g.json {
				if err := printJSON(cmd.OutOrStdout(), nonNil(results)); err != nil {
					return err
				}
			}
			if len(failed) > 0 {
				return fmt.Errorf("push failed:\n  %s", strings.Join(failed, "\n  "))
			}
			return nil
		}),
	}
	push.Flags().StringVar(&o.project, "project", "", "project directory (default .)")
	push.Flags().BoolVar(&o.all, "all", false, "every project pushed to this remote from this machine before")
	push.Flags().StringVar(&o.since, "since", "", "only archives updated since (36h, 7d, 2026-01-31)")
	push.Flags().StringVar(&o.key, "remote-project", "", "the project's name in the remote (default: its git origin, else the directory name)")
	return push
}

func newRemotePullCmd(o *remoteOpts) *cobra.Command {
	pull := &cobra.Command{
		Use:   "pull [NAME]",
		Short: "Bring a project's entries from the remote into this machine",
		Long: `Fetch the project's entries that are not here yet, authenticate every
byte, and save them into the project's store with the local configuration:
compaction snapshots appear in "context compaction list", other contexts as
history in "context list" (restorable with "context restore --from"). An
object that fails authentication is reported by name and the other entries
are still pulled (the command then exits non-zero).

With --remote-project KEY and without --project, the entries of a project
that has no checkout here go to ~/.claude-code/remote/NAME/KEY/ as .ctx files
(open them with "ben10 archive inspect" or "context restore --from").`,
		Args: cobra.MaximumNArgs(1),
		RunE: onRemote(false, func(ctx context.Context, cmd *cobra.Command, c *remote.Client, r *remote.Remote, _ *remote.Config) error {
			prog := o.g.newBytesProgress("pull", 0)
			c.Progress = prog.Set
			var stats remote.PullStats
			var err error
			if o.key != "" && o.project == "" {
				home, herr := store.HomeDir()
				if herr != nil {
					prog.Done()
					return fmt.Errorf("remote pull: the pull area needs a home directory: %w", herr)
				}
				dir := filepath.Join(index.PullArea(home), r.Name, strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(o.key))
				stats, err = c.PullDir(ctx, dir, remote.PullOptions{Project: o.key, Session: o.session})
			} else {
				st, _, oerr := o.g.openProject(o.project, false)
				if oerr != nil {
					prog.Done()
					return oerr
				}
				stats, err = c.Pull(ctx, st, remote.PullOptions{Project: o.key, Session: o.session})
				for _, p := range stats.Pulled {
					_ = index.NotePulled(st.Home(), st.ProjectDir(), p) // indexed as team content by the next update
				}
			}
			prog.Done()
			if err != nil {
				return err
			}
			for _, w := range stats.Warnings {
				fmt.Fprintf(o.g.io.ErrOut, "ben10: warning: %s\n", w)
			}
			for _, f := range stats.Failed {
				fmt.Fprintf(o.g.io.ErrOut, "ben10: %v\n", f)
			}
			if o.g.json {
				type out struct {
					Project string   `json:"project"`
					Entries int      `json:"entries"`
					Pulled  []string `json:"pulled"`
					Skipped int      `json:"skipped"`
					Bytes   int64    `json:"bytes"`
					Failed  []string `json:"failed"`
				}
				v := out{stats.Project, stats.Entries, nonNil(stats.Pulled), stats.Skipped, stats.Bytes, []string{}}
				for _, f := range stats.Failed {
					v.Failed = append(v.Failed, f.Error())
				}
				if err := printJSON(cmd.OutOrStdout(), v); err != nil {
					return err
				}
			}
			for _, p := range stats.Pulled {
				o.g.infof(cmd.OutOrStdout(), "pulled %s\n", tildePath(p))
			}
			o.g.infof(cmd.OutOrStdout(), "%s ← %s: %d pulled, %d already here, %d failed (%s read)\n",
				stats.Project, r.Name, len(stats.Pulled), stats.Skipped, len(stats.Failed), humanBytes(stats.Bytes))
			if len(stats.Failed) > 0 {
				return fmt.Errorf("%d entries or manifests could not be pulled (see above)", len(stats.Failed))
			}
			return nil
		}),
	}
	pull.Flags().StringVar(&o.project, "project", "", "project directory whose store receives the entries (default .)")
	pull.Flags().StringVar(&o.session, "session", "", "only entries of this session (id or prefix)")
	pull.Flags().StringVar(&o.key, "remote-project", "", "the project's name in the remote (default: the local project's git origin, else its directory name)")
	return pull
}

func newRemoteLsCmd(o *remoteOpts) *cobra.Command {
	ls := &cobra.Command{
		Use:   "ls [NAME]",
		Short: "List what the remote holds for a project (--all: every project)",
		Args:  cobra.MaximumNArgs(1),
		RunE: onRemote(false, func(ctx context.Context, cmd *cobra.Command, c *remote.Client, _ *remote.Remote, _ *remote.Config) error {
			project := o.key
			if project == "" && !o.all {
				dir := cmp.Or(o.project, ".")
				abs, err := store.CanonicalDir(dir)
				if err != nil {
					return err
				}
				project = remote.ProjectKey(abs)
			}
			ps, bad, err := c.List(ctx, project)
			for _, b := range bad {
				fmt.Fprintf(o.g.io.ErrOut, "ben10: %v\n", b)
			}
			if err != nil {
				return err
			}
			if o.g.json {
				return printJSON(cmd.OutOrStdout(), nonNil(ps))
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, p := range ps {
				fmt.Fprintf(tw, "%s (%d entries)\n", p.Name, len(p.Entries))
				if len(p.Entries) > 0 {
					fmt.Fprintln(tw, "  KIND\tNAME\tSESSION\tUPDATED\tRAW\tPUSHED")
				}
				now := time.Now()
				for _, e := range p.Entries {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", e.Kind, e.Name, shortSession(e.Session), e.Updated.Local().Format("2006-01-02 15:04"), humanBytes(e.Size()), ago(e.Pushed, now))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(bad) > 0 {
				return fmt.Errorf("%d manifests could not be read (see above)", len(bad))
			}
			return nil
		}),
	}
	ls.Flags().StringVar(&o.project, "project", "", "project directory (default .)")
	ls.Flags().StringVar(&o.key, "remote-project", "", "the project's name in the remote")
	ls.Flags().BoolVar(&o.all, "all", false, "every project of the remote")
	return ls
}

func newRemotePruneCmd(o *remoteOpts) *cobra.Command {
	prune := &cobra.Command{
		Use:   "prune [NAME]",
		Short: "Delete chunks that no manifest references (never one that a manifest names)",
		Long: `Read every manifest of every project and delete the chunk objects none of
them references, once older than --grace (a push in progress uploads its chunks
before its manifest). Nothing is deleted when a manifest cannot be read.`,
		Args: cobra.MaximumNArgs(1),
		RunE: onRemote(false, func(ctx context.Context, cmd *cobra.Command, c *remote.Client, r *remote.Remote, _ *remote.Config) error {
			stats, err := c.Prune(ctx, remote.PruneOptions{Grace: o.grace, DryRun: o.dry})
			if err != nil {
				return err
			}
			verb := map[bool]string{false: "deleted", true: "would delete"}[o.dry]
			return o.g.result(cmd.OutOrStdout(), stats, "%s: %d chunks, %d referenced, %s %d (%s), %d unreferenced kept (younger than the grace period)\n",
				r.Name, stats.Chunks, stats.Referenced, verb, stats.Deleted, humanBytes(stats.BytesDeleted), stats.KeptYoung)
		}),
	}
	prune.Flags().DurationVar(&o.grace, "grace", remote.DefaultGrace, "keep unreferenced chunks younger than this")
	prune.Flags().BoolVar(&o.dry, "dry-run", false, "report without deleting")
	return prune
}
