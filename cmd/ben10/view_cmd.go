package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/web"
	"github.com/spf13/cobra"
)

// viewOptions are the command's flags and the global options.
type viewOptions struct {
	g                  *globalOptions
	out, dir, passFile string
	open, noRedact     bool
}

func newViewCmd(g *globalOptions) *cobra.Command {
	o := viewOptions{g: g}
	c := &cobra.Command{
		Use:   "view [SESSION | SNAPSHOT | FILE]",
		Short: "Write a session as one self-contained HTML page",
		Long: `View writes one saved session as a single HTML file that works offline:
messages by role with timestamps, tool calls folded with their input and
output, compaction boundaries and summaries, todos, files touched,
commands with their outcome, images, sub-agent runs, and a filter.

The argument is a .ctx file, an assistant's transcript file (Claude Code,
Codex, Gemini CLI; for Kimi its session directory), a snapshot id or
prefix, a session id or prefix, or KIND/NAME as "ben10 context list" shows
it (checkpoint/2, history/session-…, named/NAME). Without one, the
project's current context. A transcript read directly is redacted before
it is written unless --no-redact.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := ""
			if len(args) == 1 {
				ref = args[0]
			}
			return runView(cmd, ref, o)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.out, "out", "o", "", "the HTML file to write (default <session>.html in the current directory; - for stdout)")
	f.BoolVar(&o.open, "open", false, "open the page in the default browser")
	f.StringVar(&o.dir, "dir", "", "the project directory (default: the current directory)")
	f.StringVar(&o.passFile, "passphrase-file", "", "passphrase of an encrypted .ctx file given as argument")
	f.BoolVar(&o.noRedact, "no-redact", false, "do not redact secrets from a transcript read directly")
	return c
}

// viewSource loads the session ref names (see the command's help), with
// the page's Source and, for a saved context of a store this user's key
// does not authenticate, its Unauthenticated mark (a file named is the
// user's choice, shown as it is).
func viewSource(ctx context.Context, ref string, o viewOptions) (*archive.State, web.ViewOptions, error) {
	if ref != "" {
		if fi, err := os.Stat(ref); err == nil {
			if !fi.IsDir() && strings.HasSuffix(ref, ".ctx") {
				pass, err := readPassphrase(o.passFile)
				if err != nil {
					return nil, web.ViewOptions{}, err
				}
				oo := archive.OpenOptions{Passphrase: pass}
				if pass == nil {
					oo = snapshot.OpenOptions(nil)
				}
				st, err := web.LoadArchive(ref, oo)
				return st, web.ViewOptions{Source: ref}, err
			}
			st, err := transcript.Import(ctx, ref, "", archive.ImportOptions{})
			if err != nil {
				return nil, web.ViewOptions{}, fmt.Errorf("%s: %w", ref, err)
			}
			if !o.noRedact {
				web.RedactState(st, func(s string) string { out, _ := redact.Default().String(s); return out })
			}
			return st, web.ViewOptions{Source: "transcript " + ref}, nil
		}
	}
	dir := cmp.Or(o.dir, ".")
	p, err := web.OpenProject(dir, "")
	if err != nil {
		return nil, web.ViewOptions{}, err
	}
	e, err := p.Find(ref)
	if err != nil {
		if ref != "" && errors.Is(err, web.ErrNotFound) {
			return nil, web.ViewOptions{}, fmt.Errorf("%q is not a file, and %w", ref, err)
		}
		return nil, web.ViewOptions{}, err
	}
	st, trust, err := p.Load(e)
	if err != nil {
		return nil, web.ViewOptions{}, err
	}
	opts := web.ViewOptions{Source: fmt.Sprintf("%s %s of %s", e.Kind, e.Name, tildePath(p.Dir))}
	if !index.Trusted(trust) {
		opts.Unauthenticated = index.TrustReason(trust)
	}
	return st, opts, nil
}

func runView(cmd *cobra.Command, ref string, o viewOptions) error {
	start := time.Now()
	st, opts, err := viewSource(cmd.Context(), ref, o)
	if err != nil {
		return err
	}
	var cmds []string
	if st.Meta.Harness == archive.HarnessClaude && st.Meta.SessionID != "" {
		cmds = append(cmds, "claude --resume "+web.ShellQuote(st.Meta.SessionID))
	}
	opts.Commands = cmds
	if o.out == "-" {
		return web.Render(cmd.OutOrStdout(), st, opts)
	}
	out := o.out
	if out == "" {
		name := cmp.Or(st.Meta.SessionID, "session")
		out = "ben10-" + sanitizeName(name) + ".html"
	}
	// A temporary file renamed over out: never a half-written page, and
	// never a write through a symlink planted at out.
	n, err := writeAtomic(out, func(w io.Writer) error { return web.Render(w, st, opts) })
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	abs, _ := filepath.Abs(out)
	if err := o.g.result(cmd.OutOrStdout(), map[string]any{"path": abs, "bytes": n, "messages": len(st.Messages), "tools": len(st.Tools), "seconds": elapsed.Seconds()},
		"Wrote %s (%s, %s messages, %s tool calls) in %.2fs\n", tildePath(abs), humanBytes(n), commas(int64(len(st.Messages))), commas(int64(len(st.Tools))), elapsed.Seconds()); err != nil {
		return err
	}
	if o.open {
		return openInBrowser(abs)
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// sanitizeName keeps letters, digits, '-' and '_' of s (at most 64).
func sanitizeName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s) && len(b) < 64; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "session"
	}
	return string(b)
}

// openInBrowser starts the platform's opener on target without waiting.
func openInBrowser(target string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", target)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	default:
		c = exec.Command("xdg-open", target)
	}
	if err := c.Start(); err != nil {
		return fmt.Errorf("opening %s: %w", target, err)
	}
	go c.Wait()
	return nil
}
