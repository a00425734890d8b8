package archive_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// exportBudget caps the identifiers package archive exports (see
// exported): a small public API, the rest unexported or in
// archive/internal.
const exportBudget = 150

// exported lists the exported identifiers declared in the non-test Go
// files of the package in dir: package-level constants, variables, types
// and functions, and the methods of exported types (struct fields and
// interface methods are part of their type and not counted).
func exported(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					continue
				}
				rt := d.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok && id.IsExported() {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestExportBudget: package archive exports at most exportBudget
// identifiers (go test ./archive -run TestExportBudget -v lists them).
func TestExportBudget(t *testing.T) {
	names := exported(t, ".")
	if testing.Verbose() {
		t.Logf("%d exported identifiers: %s", len(names), strings.Join(names, " "))
	}
	if len(names) > exportBudget {
		t.Errorf("package archive exports %d identifiers, over the budget of %d", len(names), exportBudget)
	}
}
