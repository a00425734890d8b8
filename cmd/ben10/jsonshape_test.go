package main

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

var updateJSONDoc = flag.Bool("update-json-doc", false, "rewrite docs/JSON.md from the --json types")

// jsonCommands name, for docs/JSON.md, the type each command prints with
// --json (found by type-checking every printJSON call).
var jsonCommands = []struct {
	command string
	v       any
	list    bool
}{
	{"context status", statusInfo{}, false},
	{"context list", listEntry{}, true},
	{"context inspect", archive.Summary{}, false},
	{"context inspect --messages", archive.Message{}, true},
	{"context inspect --files", archive.FileRecord{}, true},
	{"context inspect --tools", archive.ToolExec{}, true},
	{"context inspect --tasks", archive.TaskState{}, false},
	{"context inspect --compactions", archive.Compaction{}, true},
	{"context restore", archive.RestoreResult{}, false},
	{"context compaction list", snapshot.Index{}, false},
	{"context compaction show", snapshot.Snapshot{}, false},
	{"context compaction diff", snapshot.DiffResult{}, false},
	{"context compaction extract, restore --partial", snapshot.ExtractResult{}, false},
	{"context compaction snapshot", snapshot.CreateResult{}, false},
	{"hooks status", hook.Installed{}, true},
	{"doctor", check{}, true},
}

// jsonTypes are the types the commands print with --json; every field
// name must be snake_case.
var jsonTypes = []any{
	archive.RestoreResult{}, snapshot.CreateResult{}, snapshot.DiffResult{},
	snapshot.ExtractResult{}, snapshot.Index{}, snapshot.Snapshot{},
	archive.Compaction{}, archive.FileRecord{}, archive.Message{}, archive.ToolExec{},
	archive.Summary{}, archive.TaskState{}, hook.Installed{}, check{}, listEntry{},
	statusInfo{}, store.Setting{}, store.Warning{}, store.Meta{},
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Every field of what --json prints has an explicit snake_case name: Go
// field names (Snapshot, CreatedAt) are not an interface.
func TestJSONFieldNamesSnakeCase(t *testing.T) {
	t.Parallel()
	seen := map[reflect.Type]bool{}
	var walk func(tp reflect.Type, path string)
	walk = func(tp reflect.Type, path string) {
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice || tp.Kind() == reflect.Array || tp.Kind() == reflect.Map {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp] || tp.PkgPath() == "time" {
			return
		}
		if _, ok := reflect.New(tp).Interface().(interface{ MarshalJSON() ([]byte, error) }); ok {
			return
		}
		seen[tp] = true
		for i := range tp.NumField() {
			f := tp.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type, path)
				continue
			}
			if !snakeCase.MatchString(name) {
				t.Errorf("%s.%s (%s): json name %q is not snake_case", tp, f.Name, path, name)
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	for _, v := range jsonTypes {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Name())
	}
}

// docs/JSON.md lists each command's --json shape; it is generated from the
// types (go test ./cmd/ben10 -run TestJSONDoc -update-json-doc) and must
// match them.
func TestJSONDoc(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# JSON output\n\n")
	b.WriteString("Every command takes `--json` and then prints one JSON document on stdout\n")
	b.WriteString("(`context compaction search --json` prints JSON Lines: one hit per line).\n")
	b.WriteString("Field names are snake_case and stable; fields may be added, never renamed.\n")
	b.WriteString("Commands not listed print small objects described in their `--help`.\n")
	b.WriteString("This file is generated from the types by\n")
	b.WriteString("`go test ./cmd/ben10 -run TestJSONDoc -update-json-doc`.\n")
	done := map[reflect.Type]bool{}
	var pending []reflect.Type
	for _, c := range jsonCommands {
		tp := reflect.TypeOf(c.v)
		shape := "`" + tp.Name() + "`"
		if c.list {
			shape = "a list of `" + tp.Name() + "`"
		}
		fmt.Fprintf(&b, "\n## ben10 %s --json\n\n%s\n", c.command, shape)
		pending = append(pending, tp)
	}
	b.WriteString("\n# Types\n")
	for len(pending) > 0 {
		tp := pending[0]
		pending = pending[1:]
		if done[tp] {
			continue
		}
		done[tp] = true
		fmt.Fprintf(&b, "\n## %s\n\n| field | type |\n|---|---|\n", tp.Name())
		for i := range tp.NumField() {
			f := tp.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			ft := f.Type
			desc := ""
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
				switch ft.Kind() {
				case reflect.Slice:
					desc += "list of "
				case reflect.Map:
					desc += "object of "
				}
				ft = ft.Elem()
			}
			switch {
			case ft.PkgPath() == "time" && ft.Name() == "Time":
				desc += "RFC 3339 time"
			case ft.PkgPath() == "time" && ft.Name() == "Duration":
				desc += "nanoseconds"
			case ft.Kind() == reflect.Struct:
				desc += "`" + ft.Name() + "`"
				pending = append(pending, ft)
			case ft.Kind() == reflect.String:
				desc += "string"
			case ft.Kind() == reflect.Bool:
				desc += "boolean"
			case ft.Kind() == reflect.Interface:
				desc += "any"
			default:
				desc += "number"
			}
			if strings.Contains(opts, "omitempty") {
				desc += " (omitted when empty)"
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", name, desc)
		}
	}
	const path = "../../docs/JSON.md"
	if *updateJSONDoc {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with -update-json-doc)", err)
	}
	if string(got) != b.String() {
		t.Fatal("docs/JSON.md does not match the --json types: go test ./cmd/ben10 -run TestJSONDoc -update-json-doc")
	}
}
