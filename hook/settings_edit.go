package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ben10ctx/ben10/internal/jsonedit"
	"github.com/ben10ctx/ben10/store"
)

// maxSettingsSize bounds the settings file Install and Uninstall read.
const maxSettingsSize = 16 << 20

// EditOptions say how InstallFile and UninstallFile edit a settings file.
type EditOptions struct {
	// Bin is the ben10 the hooks run: an absolute path, or a bare command
	// name found on PATH ("ben10") for a settings file that is committed
	// and shared (--scope project), so it names no one's home directory.
	Bin string
	// DryRun computes the edit and writes nothing.
	DryRun bool
	// Within, when set, is a directory that a symlinked settings file
	// must resolve into (a project's own settings: a link out of the
	// project is refused). The user's own settings file may point
	// anywhere.
	Within string
}

// EditResult is what InstallFile or UninstallFile did (or, with DryRun,
// would do) to a settings file.
type EditResult struct {
	Path    string // the settings file as named
	Target  string // the file written: Path, or what its symlink points at
	Changed bool
	Before  []byte // the file's bytes before (nil when it did not exist)
	After   []byte
	Backup  string // the copy of Before kept beside Target ("" if none)
}

// BackupSuffix names the copy of a settings file kept before Ben10 edits
// it: <file>.ben10-backup, replaced on every edit.
const BackupSuffix = ".ben10-backup"

// InstallFile adds or updates Ben10's hook entries in the settings file at
// path with minimal edits: every byte outside Ben10's entries stays as it
// was (formatting, key order, other tools' hooks), an entry of Ben10's is
// updated in place, and new entries are indented like their neighbours. A
// symlinked file is edited at its target, its mode kept, and the previous
// bytes are kept in a backup. UninstallFile right after gives back the
// original bytes.
func InstallFile(path string, opts EditOptions) (EditResult, error) {
	if opts.Bin == "" {
		return EditResult{Path: path}, errors.New("hook: no binary for the hooks")
	}
	if !filepath.IsAbs(opts.Bin) && filepath.Base(opts.Bin) != opts.Bin {
		return EditResult{Path: path}, fmt.Errorf("hook binary path %q is neither absolute nor a bare command name found on PATH", opts.Bin)
	}
	return editFile(path, opts, func(doc []byte) ([]byte, error) {
		shim := ""
		if filepath.IsAbs(opts.Bin) {
			shim = ShimFor(opts.Bin)
		}
		for _, reg := range Registrations {
			command := Command(opts.Bin, reg.Event) // through the shim when there is one
			if shim != "" {
				command = ShimCommand(shim, reg.Event)
			}
			var err error
			if doc, err = installEdit(doc, reg, command); err != nil {
				return nil, err
			}
		}
		return doc, nil
	})
}

// UninstallFile removes Ben10's hook entries, and only those, from the
// settings file at path, as InstallFile edits it.
func UninstallFile(path string, opts EditOptions) (EditResult, error) {
	return editFile(path, opts, uninstallEdit)
}

// editFile applies edit to the settings file at path (see InstallFile);
// an error of edit is returned naming path.
func editFile(path string, opts EditOptions, edit func([]byte) ([]byte, error)) (EditResult, error) {
	res := EditResult{Path: path, Target: path}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return res, fmt.Errorf("%s: following its symlink: %w", path, err)
		}
		if opts.Within != "" {
			root, err := filepath.EvalSymlinks(opts.Within)
			if err != nil {
				root = opts.Within
			}
			if rel, err := filepath.Rel(root, t); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return res, fmt.Errorf("%s is a symlink to %s, outside %s: refusing to edit it", path, t, opts.Within)
			}
		}
		res.Target = t
	}
	mode := fs.FileMode(0o600)
	before, fi, err := readSettingsFile(res.Target)
	if err != nil {
		return res, err
	}
	if fi != nil {
		res.Before, mode = before, fi.Mode().Perm()
	}
	doc := res.Before
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{\n}\n")
	}
	after, err := edit(doc)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	if res.Before == nil && bytes.Equal(after, doc) {
		return res, nil // nothing to uninstall from a file that is not there
	}
	res.After = after
	res.Changed = !bytes.Equal(after, res.Before)
	if !res.Changed || opts.DryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(res.Target), 0o700); err != nil {
		return res, err
	}
	if res.Before != nil {
		res.Backup = res.Target + BackupSuffix
		if err := writeAtomic(res.Backup, res.Before, mode); err != nil {
			return res, fmt.Errorf("keeping a backup of %s: %w", res.Target, err)
		}
	}
	return res, writeAtomic(res.Target, after, mode)
}

// readSettingsFile reads the settings file at path, following a symlink:
// a regular file of at most maxSettingsSize bytes, opened without
// blocking (store.ReadFileBounded: a FIFO or /dev/zero behind a project's
// file must not block or exhaust the reader). fi is nil, and no error,
// when there is no file.
func readSettingsFile(path string) (doc []byte, fi fs.FileInfo, err error) {
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err == nil {
		doc, err = store.ReadFileBounded(target, maxSettingsSize)
	}
	if err == nil {
		fi, err = os.Stat(target)
	}
	if err != nil {
		return nil, nil, err
	}
	return doc, fi, nil
}

func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	a, err := store.CreateAtomic(path, mode)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write(data); err != nil {
		return err
	}
	return a.Commit()
}

// handlerJSON and groupJSON are the entries Install adds, in the order
// Claude Code's documentation writes them.
type handlerJSON struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type groupJSON struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []handlerJSON `json:"hooks"`
}

// ours is one of Ben10's handlers found in a parsed settings document.
type ours struct {
	event                          string
	list, group, handlers, handler *jsonedit.Node
}

// findOurs returns Ben10's handlers of event (every event when event is
// ""), in document order.
func findOurs(doc []byte, root *jsonedit.Node, event string) ([]ours, *jsonedit.Node, error) {
	hooks := root.Get("hooks")
	if hooks == nil {
		return nil, nil, nil
	}
	if hooks.Kind != jsonedit.Object {
		return nil, nil, errors.New(`"hooks" is not an object`)
	}
	var out []ours
	for _, m := range hooks.Members {
		if event != "" && m.Name != event {
			continue
		}
		if m.Value.Kind != jsonedit.Array {
			if event != "" {
				return nil, nil, fmt.Errorf("hooks.%s is not a list", m.Name)
			}
			continue
		}
		for _, g := range m.Value.Elems {
			hs := g.Get("hooks")
			if hs == nil || hs.Kind != jsonedit.Array {
				continue
			}
			for _, h := range hs.Elems {
				if _, _, ok := parseOurs(jsonedit.Str(doc, h.Get("command"))); ok {
					out = append(out, ours{event: m.Name, list: m.Value, group: g, handlers: hs, handler: h})
				}
			}
		}
	}
	return out, hooks, nil
}

// installEdit makes doc hold exactly one Ben10 handler for reg, running
// command; one edit at a time, each on a freshly parsed document.
func installEdit(doc []byte, reg Registration, command string) ([]byte, error) {
	event := string(reg.Event)
	want := handlerJSON{Type: "command", Command: command, Timeout: reg.Timeout}
	for {
		root, err := parseRoot(doc)
		if err != nil {
			return nil, err
		}
		found, hooks, err := findOurs(doc, root, event)
		if err != nil {
			return nil, err
		}
		group := groupJSON{Matcher: reg.Matcher, Hooks: []handlerJSON{want}}
		switch {
		case hooks == nil:
			return jsonedit.Set(doc, root, "hooks", map[string][]groupJSON{event: {group}})
		case hooks.Get(event) == nil:
			return jsonedit.Set(doc, hooks, event, []groupJSON{group})
		case len(found) == 0:
			return jsonedit.Append(doc, hooks.Get(event), group)
		case len(found) > 1:
			// Keep the first; remove duplicates one by one.
			if doc, err = deleteHandler(doc, found[len(found)-1], root); err != nil {
				return nil, err
			}
			continue
		}
		// One field at a time, each on a freshly parsed document.
		o := found[0]
		fields := []field{{o.handler, "type", want.Type}, {o.handler, "command", want.Command}, {o.handler, "timeout", want.Timeout}}
		if reg.Matcher != "" {
			fields = append(fields, field{o.group, "matcher", reg.Matcher})
		}
		i := 0
		for i < len(fields) && holds(doc, fields[i].obj.Get(fields[i].name), fields[i].v) {
			i++
		}
		if i == len(fields) {
			return doc, nil
		}
		if doc, err = jsonedit.Set(doc, fields[i].obj, fields[i].name, fields[i].v); err != nil {
			return nil, err
		}
	}
}

// field is a member of an object of Ben10's entry and the value it must hold.
type field struct {
	obj  *jsonedit.Node
	name string
	v    any
}

// holds tells whether n is the value v, a string or an int.
func holds(doc []byte, n *jsonedit.Node, v any) bool {
	switch v := v.(type) {
	case string:
		return n != nil && n.Kind == jsonedit.String && jsonedit.Str(doc, n) == v
	case int:
		return n != nil && string(doc[n.Start:n.End]) == strconv.Itoa(v)
	}
	return false
}

// deleteHandler removes one handler of Ben10's, and the group, event list
// and "hooks" object that it leaves empty.
func deleteHandler(doc []byte, o ours, root *jsonedit.Node) ([]byte, error) {
	hooks := root.Get("hooks")
	switch {
	case len(o.handlers.Elems) > 1:
		return jsonedit.Delete(doc, o.handlers, o.handler)
	case len(o.list.Elems) > 1:
		return jsonedit.Delete(doc, o.list, o.group)
	case len(hooks.Members) > 1:
		return jsonedit.Delete(doc, hooks, o.list)
	default:
		return jsonedit.Delete(doc, root, hooks)
	}
}

// uninstallEdit removes every handler of Ben10's from doc.
func uninstallEdit(doc []byte) ([]byte, error) {
	for {
		root, err := parseRoot(doc)
		if err != nil {
			return nil, err
		}
		found, _, err := findOurs(doc, root, "")
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return doc, nil
		}
		if doc, err = deleteHandler(doc, found[0], root); err != nil {
			return nil, err
		}
	}
}
