package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// IOStreams are what a command reads and writes, and what they are
// connected to: the process's own streams in main (systemStreams), buffers
// or a pseudo-terminal in tests. Commands never reach for os.Stdin,
// os.Stdout or os.Stderr themselves.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTTY, OutTTY and ErrTTY: the streams are terminals. Prompts need
	// InTTY and ErrTTY; progress lines ErrTTY; colour the stream's own.
	InTTY, OutTTY, ErrTTY bool
	// NoColor: NO_COLOR is set (https://no-color.org): no colour, no
	// spinner, no escape sequences.
	NoColor bool
	// ProgressDelay: operations shorter than this show no progress line.
	// 0 draws the line at once and at every update (tests use it through
	// BEN10_PROGRESS_DELAY).
	ProgressDelay time.Duration
}

// systemStreams are the process's standard streams, with the terminal
// checks made once.
func systemStreams() *IOStreams {
	_, noColor := os.LookupEnv("NO_COLOR")
	delay := progressDelay
	if d, err := time.ParseDuration(os.Getenv("BEN10_PROGRESS_DELAY")); err == nil && d >= 0 {
		delay = d
	}
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
		NoColor: noColor, ProgressDelay: delay,
	}
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// globalOptions are the flags every command takes (--json, --quiet) and
// the streams it talks through. main makes one and hands it to every
// command's constructor; a test makes its own.
type globalOptions struct {
	io    *IOStreams
	json  bool
	quiet bool
}

// infof prints a human line on w unless --quiet or --json is set.
func (g *globalOptions) infof(w io.Writer, format string, args ...any) {
	if g.quiet || g.json {
		return
	}
	fmt.Fprintf(w, format, args...)
}

// result prints a command's result on w: v as JSON with --json, else the
// human line (format, args) unless --quiet.
func (g *globalOptions) result(w io.Writer, v any, format string, args ...any) error {
	if g.json {
		return printJSON(w, v)
	}
	g.infof(w, format, args...)
	return nil
}

// warnf prints a warning line on the error stream (also under --quiet
// and --json: it is not output).
func (g *globalOptions) warnf(format string, args ...any) {
	fmt.Fprintf(g.io.ErrOut, "ben10: warning: "+format+"\n", args...)
}

// printWarnings prints ws as warnings on cmd's error stream, unless
// --quiet.
func (g *globalOptions) printWarnings(cmd *cobra.Command, ws []string) {
	if g.quiet {
		return
	}
	for _, w := range ws {
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: warning: %s\n", w)
	}
}

// useColor reports whether coloured output is wanted on w: never with
// NO_COLOR set, never with --json, and only when w is the standard output
// or error stream and a terminal.
func (g *globalOptions) useColor(w io.Writer) bool {
	if g.io.NoColor || g.json {
		return false
	}
	return w == g.io.Out && g.io.OutTTY || w == g.io.ErrOut && g.io.ErrTTY
}

// styled wraps s in style when w takes colour (see useColor).
func (g *globalOptions) styled(w io.Writer, style, s string) string {
	if !g.useColor(w) {
		return s
	}
	return style + s + styleReset
}

// interactive: questions can be asked (stdin and stderr are terminals and
// no machine output was asked for).
func (g *globalOptions) interactive() bool {
	return !g.json && g.io.InTTY && g.io.ErrTTY
}

// confirm asks question (answered y/N) on the error stream, reading the
// answer from the input stream, when both are terminals, unless yes
// (--yes) already answered it. Without a terminal the command goes ahead:
// scripts pass no --yes, and nobody is there to answer. A "no" is an
// error that says how to go ahead.
func (g *globalOptions) confirm(yes bool, question string) error {
	if yes || !g.interactive() {
		return nil
	}
	fmt.Fprintf(g.io.ErrOut, "%s [y/N] ", question)
	line, _ := bufio.NewReader(g.io.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		return nil
	}
	return &exitError{code: 1, err: errors.New("nothing changed (answer y, or pass --yes)")}
}

// progressEnabled: the error stream is a terminal, and neither --quiet
// nor --json is set.
func (g *globalOptions) progressEnabled() bool {
	return !g.quiet && !g.json && g.io.ErrTTY
}

// newProgress starts a progress line on the error stream (nil when not
// enabled). total 0 means unknown: a spinner without percentage.
func (g *globalOptions) newProgress(label string, total int64) *progress {
	if !g.progressEnabled() {
		return nil
	}
	return startProgress(g.io.ErrOut, label, total, g.io.ProgressDelay, g.io.NoColor)
}

// newBytesProgress is newProgress counting bytes (Add and Set take
// bytes).
func (g *globalOptions) newBytesProgress(label string, total int64) *progress {
	p := g.newProgress(label, total)
	if p != nil {
		p.mu.Lock()
		p.bytes = true
		p.mu.Unlock()
	}
	return p
}
