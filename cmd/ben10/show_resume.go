package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/web"
)

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
func runShowResume(ctx context.Context, g *globalOptions, out, errw io.Writer, ref, dir string, unauth bool) error {
	x, err := openIndex(ctx, g, errw, false)
	if err != nil {
		return err
	}
	c, err := showRef(ctx, x, ref, 0, 0, unauth)
	x.Close()
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
	a, err := openArchive(c.Archive, "")
	if err != nil {
		return fmt.Errorf("show --resume %s: %s: %w", ref, c.Archive, err)
	}
	defer a.Close()
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
