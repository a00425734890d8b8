package main

import (
	"cmp"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// flagValues are the fixed values shell completion offers for flags, by
// flag name, wherever the flag appears.
var flagValues = map[string][]string{
	"format":     {"jsonl", "cusf", "markdown", "json"},
	"harness":    {"claude", "codex", "gemini", "kimi"},
	"llm":        {"claude", "codex", "gemini", "kimi"},
	"mode":       {"full", "summary", "selective", "fresh"},
	"level":      {"fastest", "default", "better", "best", "max"},
	"codec":      {"none", "lz4", "zstd"},
	"scope":      {"user", "project", "local"},
	"trigger":    {"auto", "manual"},
	"on-corrupt": {"checkpoint", "history", "fresh", "export"},
	"components": {"messages", "files", "tasks"},
	"platform":   {"linux", "darwin"},
}

// snapshotIDCommands take a snapshot id as their first argument.
var snapshotIDCommands = map[string]bool{
	"show": true, "diff": true, "restore": true, "extract": true, "pin": true,
	"unpin": true, "delete": true, "export": true,
}

// archiveFileCommands take a .ctx archive (or .ctxpkg export) path as
// their first argument.
var archiveFileCommands = map[string]bool{
	"ben10 archive inspect": true, "ben10 archive unpack": true, "ben10 archive verify": true,
	"ben10 context inspect": true, "ben10 context export": true,
}

// addCompletions registers shell completion of flag values, snapshot ids,
// named saves, checkpoints and archive paths on the whole tree.
func addCompletions(c *cobra.Command) {
	for name, vals := range flagValues {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	path := c.CommandPath()
	switch {
	case c.HasParent() && c.Parent().Name() == "compaction" && snapshotIDCommands[c.Name()]:
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveDefault // export's PATH
			}
			return snapshotCompletions(ctxFlagsDir(cmd), prefix), cobra.ShellCompDirectiveNoFileComp
		}
	case archiveFileCommands[path]:
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"ctx", "ctxpkg"}, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	if path == "ben10 context restore" || path == "ben10 restore" {
		_ = c.RegisterFlagCompletionFunc("name", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return namedSaves(ctxFlagsDir(c)), cobra.ShellCompDirectiveNoFileComp
		})
		_ = c.RegisterFlagCompletionFunc("checkpoint", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return checkpointNumbers(ctxFlagsDir(c)), cobra.ShellCompDirectiveNoFileComp
		})
		_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"ctx", "ctxpkg"}, cobra.ShellCompDirectiveFilterFileExt))
	}
	for _, sub := range c.Commands() {
		addCompletions(sub)
	}
}

func ctxFlagsDir(c *cobra.Command) string {
	if f := c.Flags().Lookup("dir"); f != nil {
		return f.Value.String()
	}
	return ""
}

// readOnlyStore opens the store of dir ("" = the current directory)
// read-only and quietly (no warnings: completion, a look-up before the
// command's own open), or returns nil.
func readOnlyStore(dir string) *store.Store {
	st, err := store.Open(cmp.Or(dir, "."), store.Options{ReadOnly: true})
	if err != nil {
		return nil
	}
	return st
}

// snapshotCompletions lists the project's snapshot ids (and their short
// forms) that start with prefix, each with its trigger and time as the
// description.
func snapshotCompletions(dir, prefix string) []string {
	st := readOnlyStore(dir)
	if st == nil {
		return nil
	}
	ix, err := snapshot.NewManager(st, nil).Index()
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range ix.Snapshots {
		desc := s.CreatedAt.Local().Format("2006-01-02 15:04") + " " + s.Trigger
		for _, id := range []string{s.ID, snapshot.ShortID(s.ID)} {
			if strings.HasPrefix(id, prefix) {
				out = append(out, id+"\t"+desc)
				break
			}
		}
	}
	return out
}

func namedSaves(dir string) []string {
	st := readOnlyStore(dir)
	if st == nil {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(st.Root(), namedDir, "*.ctx"))
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".ctx"))
	}
	return out
}

func checkpointNumbers(dir string) []string {
	st := readOnlyStore(dir)
	if st == nil {
		return nil
	}
	cps, _ := st.Checkpoints()
	var out []string
	for _, c := range cps {
		out = append(out, strconv.Itoa(c.N))
	}
	return out
}
