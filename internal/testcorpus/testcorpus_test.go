package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLocate lays out module trees in a temporary directory and checks
// where the corpus is found from a package directory inside the module.
func TestLocate(t *testing.T) {
	for _, tc := range []struct {
		name string
		dirs []string // created under the temporary root
		env  string   // "-" leaves BEN10_CORPUS unset; otherwise relative to the root, or absolute
		sub  string
		want string // relative to the root; "" means not found
	}{
		{"beside the module", []string{"shared/corpus/claude"}, "-", "claude", "shared/corpus/claude"},
		{"whole corpus", []string{"shared/corpus/claude"}, "-", "", "shared/corpus"},
		{"beside an ancestor", []string{"wt/shared/none", "shared/corpus/codex"}, "-", "codex", "shared/corpus/codex"},
		{"nearest wins", []string{"shared/corpus/claude", "wt/shared/corpus/claude"}, "-", "claude", "wt/shared/corpus/claude"},
		{"missing sub folder", []string{"shared/corpus/claude"}, "-", "kimi", ""},
		{"absent", nil, "-", "", ""},
		{"environment", []string{"elsewhere/claude", "shared/corpus/claude"}, "elsewhere", "claude", "elsewhere/claude"},
		{"environment names nothing: no fallback", []string{"shared/corpus/claude"}, "/nonexistent", "claude", ""},
		{"empty environment variable is unset", []string{"shared/corpus/claude"}, "", "claude", "shared/corpus/claude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			mod := filepath.Join(root, "wt", "ben10")
			pkg := filepath.Join(mod, "internal", "pkg")
			for _, d := range append([]string{pkg[len(root)+1:]}, tc.dirs...) {
				if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/ben10\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			// A go.mod-less "shared" beside the package must not count:
			// the walk starts at the module root.
			if err := os.MkdirAll(filepath.Join(mod, "internal", "shared", "corpus", "claude"), 0o700); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.env == "-":
				t.Setenv(EnvVar, "")
				os.Unsetenv(EnvVar)
			case tc.env == "" || filepath.IsAbs(tc.env):
				t.Setenv(EnvVar, tc.env)
			default:
				t.Setenv(EnvVar, filepath.Join(root, tc.env))
			}
			t.Chdir(pkg)
			got, err := locate(tc.sub)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("locate(%q) = %s, want not found", tc.sub, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Locate(%q): %v", tc.sub, err)
			}
			if want := filepath.Join(root, tc.want); got != want {
				t.Fatalf("Locate(%q) = %s, want %s", tc.sub, got, want)
			}
		})
	}
}

// TestLocateOutsideModule: without a go.mod above the working directory
// there is no module root to start from, and the error says so.
func TestLocateOutsideModule(t *testing.T) {
	t.Setenv(EnvVar, "")
	os.Unsetenv(EnvVar)
	t.Chdir(t.TempDir())
	if d, err := locate(""); err == nil {
		t.Fatalf("found %s outside any module", d)
	}
}

// TestShortHasNoCorpus: under -short (make test) Find and Locate find
// nothing wherever the corpus is, so the corpus tests skip; without it
// they agree with locate.
func TestShortHasNoCorpus(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvVar, root)
	d, ok := Find("claude")
	_, err := Locate("claude")
	if testing.Short() {
		if ok || err == nil {
			t.Fatalf("-short: Find = %s, %v; Locate error %v", d, ok, err)
		}
		return
	}
	if want := filepath.Join(root, "claude"); !ok || d != want || err != nil {
		t.Fatalf("Find = %s, %v (want %s); Locate error %v", d, ok, want, err)
	}
}
