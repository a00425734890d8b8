package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/snapshot"
)

// inProcess is what one in-process run of a command printed.
type inProcess struct {
	stdout, stderr string
	err            error
}

// runInProcess builds a command with its constructor for streams that
// read stdin and are terminals when tty is set, and runs it with args in
// this process: no binary, no os.Stdin.
func runInProcess(t *testing.T, build func(*globalOptions) *cobra.Command, stdin string, tty bool, args ...string) inProcess {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globalOptions{io: &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut,
		InTTY: tty, OutTTY: tty, ErrTTY: tty, NoColor: true, ProgressDelay: progressDelay}}
	c := build(g)
	// --json and --quiet are the root's; a lone command takes them too.
	c.PersistentFlags().BoolVar(&g.json, "json", false, "")
	c.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "")
	c.SetIn(g.io.In)
	c.SetOut(&out)
	c.SetErr(&errOut)
	c.SetArgs(args)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.Execute()
	return inProcess{out.String(), errOut.String(), err}
}

// The compaction commands parse their flags and ask their question
// in-process: the answer comes from the injected reader, the question
// goes to the injected error stream, and nothing reaches for os.Stdin.
func TestCompactionCommandsInProcess(t *testing.T) {
	p := newProject(t, 18)
	t.Setenv("HOME", p.home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	r := runInProcess(t, newCompactionCmd, "", false, "snapshot", "--dir", p.dir, "--json")
	var res snapshot.CreateResult
	if r.err != nil || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Snapshot.ID == "" {
		t.Fatalf("snapshot --json: %+v", r)
	}
	id := snapshot.ShortID(res.Snapshot.ID)
	count := func() int {
		r := runInProcess(t, newCompactionCmd, "", false, "list", "--dir", p.dir, "--json")
		var ix struct{ Snapshots []snapshot.Snapshot }
		if r.err != nil || json.Unmarshal([]byte(r.stdout), &ix) != nil {
			t.Fatalf("list --json: %+v", r)
		}
		return len(ix.Snapshots)
	}
	for _, c := range []struct {
		name    string
		stdin   string
		tty     bool
		args    []string
		wantErr string // "" = success
		stdout  string // in stdout
		stderr  string // in stderr
		left    int    // snapshots afterwards
	}{
		{"unknown flag", "", false, []string{"list", "--bogus"}, "unknown flag: --bogus", "", "", 1},
		{"two extract kinds", "", false, []string{"extract", id, "--messages", "--files", "--dir", p.dir}, "exactly one of", "", "", 1},
		{"bad --partial", "", false, []string{"restore", id, "--partial", "bogus", "--dir", p.dir}, `--partial "bogus"`, "", "", 1},
		{"answer n on a terminal", "n\n", true, []string{"delete", id, "--dir", p.dir}, "nothing changed", "", "Delete snapshot " + res.Snapshot.ID, 1},
		{"no answer on a terminal", "", true, []string{"delete", id, "--dir", p.dir}, "nothing changed", "", "[y/N]", 1},
		{"answer y on a terminal", "y\n", true, []string{"delete", id, "--dir", p.dir}, "", "deleted " + res.Snapshot.ID, "[y/N]", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runInProcess(t, newCompactionCmd, c.stdin, c.tty, c.args...)
			switch {
			case c.wantErr == "" && r.err != nil:
				t.Fatalf("error %v\nstderr: %s", r.err, r.stderr)
			case c.wantErr != "" && (r.err == nil || !strings.Contains(r.err.Error(), c.wantErr)):
				t.Fatalf("error %v, want %q", r.err, c.wantErr)
			case !strings.Contains(r.stdout, c.stdout) || !strings.Contains(r.stderr, c.stderr):
				t.Fatalf("stdout %q (want %q), stderr %q (want %q)", r.stdout, c.stdout, r.stderr, c.stderr)
			}
			if n := count(); n != c.left {
				t.Fatalf("%d snapshots left, want %d", n, c.left)
			}
		})
	}
}

// config set and config show run in-process: the value set is the one
// shown, with its file as the source; a missing argument is refused.
func TestConfigCommandsInProcess(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	if r := runInProcess(t, newConfigCmd, "", false, "set", "compaction_snapshots.retention_count", "--dir", dir); r.err == nil || !strings.Contains(r.err.Error(), "accepts 2 arg(s)") {
		t.Fatalf("set with one argument: %+v", r)
	}
	r := runInProcess(t, newConfigCmd, "", false, "set", "compaction_snapshots.retention_count", "7", "--dir", dir, "--json")
	var set struct {
		File           string `json:"file"`
		EffectiveValue any    `json:"effective_value"`
	}
	if r.err != nil || json.Unmarshal([]byte(r.stdout), &set) != nil || set.EffectiveValue != float64(7) {
		t.Fatalf("set --json: %+v", r)
	}
	if want, _ := filepath.EvalSymlinks(dir); !strings.HasPrefix(set.File, want) {
		t.Errorf("set wrote %s, not inside the project %s", set.File, want)
	}
	r = runInProcess(t, newConfigCmd, "", false, "--dir", dir)
	if r.err != nil || !strings.Contains(r.stdout, "compaction_snapshots.retention_count") || !strings.Contains(r.stdout, "7") {
		t.Fatalf("config show: %+v", r)
	}
	// -q leaves set silent.
	if r := runInProcess(t, newConfigCmd, "", false, "set", "compaction_snapshots.retention_count", "8", "--dir", dir, "-q"); r.err != nil || r.stdout != "" {
		t.Fatalf("set -q: %+v", r)
	}
}

// run executes whole command lines in-process, each with fresh options:
// exit codes, usage errors with a suggestion, shortcuts, and no flag
// carried over from one run to the next.
func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // in stdout ("" = empty when exact)
		stderr string // in stderr
		exact  bool   // stdout must equal stdout
	}{
		{[]string{"version", "--json"}, 0, `"module": "github.com/ben10ctx/ben10"`, "", false},
		{[]string{"version"}, 0, "ben10 ", "", false}, // --json of the run before is gone
		{[]string{"context", "staus"}, 2, "", "Did you mean this?\n\tstatus", false},
		{[]string{"context", "list", "--bogus"}, 2, "", "unknown flag: --bogus\nRun 'ben10 context list --help' for usage.", false},
		{[]string{"status", "--dir", dir, "-q"}, 0, "", "", true},
		{[]string{"status", "--dir", dir, "--json"}, 0, `"project"`, "", false},
		{[]string{"context", "compaction", "show", "nosuch", "--dir", dir}, 1, "", "ben10: ", false},
	} {
		var out, errOut bytes.Buffer
		g := &globalOptions{io: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, NoColor: true, ProgressDelay: progressDelay}}
		code := run(g, c.args)
		if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errOut.String(), c.stderr) || c.exact && out.String() != c.stdout {
			t.Errorf("ben10 %v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", c.args, code, c.code, out.String(), c.stdout, errOut.String(), c.stderr)
		}
	}
}
