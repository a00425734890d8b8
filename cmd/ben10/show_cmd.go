package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/web"
	"github.com/spf13/cobra"
)

// newShowCmd builds `ben10 show`.
func newShowCmd(g *globalOptions) *cobra.Command {
	var before, after int
	var resume, unauth bool
	var projectDir string
	c := &cobra.Command{
		Use:   "show REF",
		Short: "Print the messages, commands and outputs around a search hit",
		Long: `Print what surrounds a search hit: REF is the reference ` + "`ben10 search`" + ` prints
(archive hash prefix and position). --before and --after set how many rows of
the same archive are shown around it.

--resume restores the session that holds the hit as a resumable Claude Code
session (as ` + "`ben10 context restore FILE --resume`" + ` does with its archive), in
the hit's project directory unless --project-dir names another, and prints
the command that resumes it and where the hit is in it.

A reference into an archive not authenticated as yours (see ` + "`ben10 search`" + `)
is refused unless --include-unauthenticated is given. --resume checks the
archive file again when it restores it (it may have been replaced since it
was indexed) and refuses one not authenticated now the same way.`,
		Example: `  ben10 show 49314c099ed8425f:577
  ben10 show 49314c099ed8425f:577 --before 10 --after 2 --json
  ben10 show 49314c099ed8425f:577 --resume`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(*cobra.Command, []string) error {
			if !resume && projectDir != "" {
				return fmt.Errorf("show: --project-dir is for --resume")
			}
			if !resume && (before < 0 || after < 0) {
				return fmt.Errorf("show: --before and --after must not be negative")
			}
			return nil
		},
		RunE: g.onIndex(func(cmd *cobra.Command, args []string, x *index.Index) error {
			if resume {
				return runShowResume(cmd.Context(), g, cmd.OutOrStdout(), x, args[0], projectDir, unauth)
			}
			return runShow(cmd.Context(), g, cmd.OutOrStdout(), x, args[0], before, after, unauth)
		}),
	}
	c.Flags().IntVar(&before, "before", 3, "rows before the hit")
	c.Flags().IntVar(&after, "after", 3, "rows after the hit")
	c.Flags().BoolVar(&resume, "resume", false, "restore the hit's session as a resumable Claude Code session")
	c.Flags().BoolVar(&unauth, "include-unauthenticated", false, "show the hit even when its archive is not authenticated as yours")
	c.Flags().StringVar(&projectDir, "project-dir", "", "with --resume: the directory to resume in (default: the hit's project)")
	return c
}

func runShow(ctx context.Context, g *globalOptions, out io.Writer, x *index.Index, ref string, before, after int, unauth bool) error {
	c, err := showRef(ctx, x, ref, before, after, unauth)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(out, c)
	}
	writeShow(out, c)
	return nil
}

// showRef is Index.Show, or ShowAny when the user asked for
// unauthenticated archives; a refusal says how to ask.
func showRef(ctx context.Context, x *index.Index, ref string, before, after int, unauth bool) (index.Context, error) {
	if unauth {
		return x.ShowAny(ctx, ref, before, after)
	}
	c, err := x.Show(ctx, ref, before, after)
	if errors.Is(err, index.ErrUnauthenticated) {
		return c, fmt.Errorf("show: %w; --include-unauthenticated shows it", err)
	}
	return c, err
}

// writeShow prints a Context: its header, then each row with its kind and
// time, the hit marked.
func writeShow(out io.Writer, c index.Context) {
	fmt.Fprintf(out, "%s  session %s (%s)\n", tildePath(c.Project), c.Session, c.Assistant)
	if c.Title != "" {
		fmt.Fprintf(out, "%s\n", c.Title)
	}
	fmt.Fprintf(out, "archive %s%s\n\n", tildePath(c.Archive), trustLabel(c.Trust))
	for _, r := range c.Rows {
		mark := " "
		if r.Hit {
			mark = ">"
		}
		when := ""
		if !r.Time.IsZero() {
			when = r.Time.Local().Format("2006-01-02 15:04:05") + "  "
		}
		fmt.Fprintf(out, "%s %s%s [%s]  %s\n", mark, when, r.Kind, r.Role, r.Ref)
		for _, l := range strings.Split(strings.TrimRight(r.Text, "\n"), "\n") {
			fmt.Fprintf(out, "    %s\n", l)
		}
		fmt.Fprintln(out)
	}
}

// showResumeResult is what `show --resume --json` prints.
type showResumeResult struct {
	*archive.RestoreResult
	Ref     string        `json:"ref"`
	Archive string        `json:"archive"`
	Hit     index.ShowRow `json:"hit"`
}

// runShowResume restores the session holding ref as a resumable Claude
// Code session: the archive the index names for ref, restored like
// `context restore FILE --resume`, in the hit's project directory (or dir).
func runShowResume(ctx context.Context, g *globalOptions, out io.Writer, x *index.Index, ref, dir string, unauth bool) error {
	c, err := showRef(ctx, x, ref, 0, 0, unauth)
	if err != nil {
		return err
	}
	if dir == "" {
		dir = c.Project
		if c.Source != "" { // pulled from a remote: the pull area is no project
			if dir, err = os.Getwd(); err != nil {
				return err
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("show --resume: the hit's project %s is not a directory here (give --project-dir)", dir)
	}
	a, f, err := openIndexed(ctx, g, x, c.Archive, ref, unauth)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := requireConversation(a, c.Archive); err != nil {
		return err
	}
	res, err := a.Restore(archive.RestoreOptions{ProjectDir: dir})
	if errors.Is(err, archive.ErrNotClaude) {
		return fmt.Errorf("show --resume %s: the session is a %s session: %w (ben10 show %s prints it)", ref, c.Assistant, err, ref)
	}
	if err != nil {
		return fmt.Errorf("show --resume %s: %w", ref, err)
	}
	hit := c.Rows[0]
	if g.json {
		return printJSON(out, showResumeResult{RestoreResult: res, Ref: ref, Archive: c.Archive, Hit: hit})
	}
	fmt.Fprintf(out, "restored session %s (was %s) into %s\n", res.SessionID, res.OldSessionID, res.Dir)
	when := ""
	if !hit.Time.IsZero() {
		when = " of " + hit.Time.Local().Format("2006-01-02 15:04:05")
	}
	fmt.Fprintf(out, "the hit is the %s%s: %s\n", hit.Kind, when, oneLine(hit.Text, 120))
	fmt.Fprintf(out, "resume with: cd %s && claude --resume %s\n", web.ShellQuote(res.ProjectDir), res.SessionID)
	return nil
}

// openIndexed opens the archive file path that the index names for ref
// and checks its trust now, on the open file the archive is read from
// (x.TrustNow): the index's verdict dates from indexing, and the file may
// have been replaced since. An archive not authenticated now is refused
// unless unauth (--include-unauthenticated), as allowResume says. The
// caller closes the returned file after its last use of the archive.
func openIndexed(ctx context.Context, g *globalOptions, x *index.Index, path, ref string, unauth bool) (*archive.Archive, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("show --resume %s: %w", ref, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	var a *archive.Archive
	if err == nil {
		a, err = archive.Open(f, fi.Size(), archive.OpenOptions{}) // the index holds no encrypted archive
	}
	trust := ""
	if err == nil {
		trust, err = x.TrustNow(ctx, f, a)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("show --resume %s: %s: %w", ref, path, err)
	}
	if err := g.allowResume("show --resume "+ref+": "+path, trust, unauth); err != nil {
		f.Close()
		return nil, nil, err
	}
	return a, f, nil
}
