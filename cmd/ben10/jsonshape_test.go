package main

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// jsonTypes are the types the commands print with --json (found by
// type-checking every printJSON call); docs/JSON.md describes them.
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
