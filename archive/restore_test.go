package archive_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

func TestProjectDirName(t *testing.T) {
	// Expected values computed with Claude Code's sanitizePath under
	// Node.js (replace(/[^a-zA-Z0-9]/g,'-'), djb2 hash in base 36).
	long := "/" + strings.Repeat("very-long-directory-name/", 10) + "end"
	cases := []struct{ in, want string }{
		{"/Users/me/proj", "-Users-me-proj"},
		{"/home/a_b/c d/é~x/🎉y", "-home-a-b-c-d---x---y"},
		{long, "-" + strings.Repeat("very-long-directory-name-", 8) + "gd0b3o"},
		{"/tmp/" + strings.Repeat("x", 300), "-tmp-" + strings.Repeat("x", 195) + "-uqvuhz"},
	}
	for _, c := range cases {
		if got := archive.ProjectDirName(c.in); got != c.want {
			t.Errorf("ProjectDirName(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestRestore(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	a := open(t, encode(t, st, archive.EncodeOptions{}), archive.OpenOptions{})
	cfg, proj := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	res, err := a.Restore(archive.RestoreOptions{ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	realProj, _ := filepath.EvalSymlinks(proj)
	wantDir := filepath.Join(cfg, "projects", archive.ProjectDirName(realProj))
	if res.Dir != wantDir || res.SessionID == v2 || len(res.SessionID) != 36 || res.Dangling != 0 || res.DroppedPartial {
		t.Fatalf("result %+v (want dir %s)", res, wantDir)
	}
	main := filepath.Join(wantDir, res.SessionID+".jsonl")
	sub := filepath.Join(wantDir, res.SessionID, "subagents", "agent-abc.jsonl")
	if len(res.Files) != 2 || res.Files[0] != main || res.Files[1] != sub {
		t.Fatalf("files %v", res.Files)
	}
	for i, p := range res.Files {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(got, []byte(v2)) {
			t.Errorf("%s still names the old session", p)
		}
		// Only the session id and the working directory (mapped from
		// the recorded project to the one restored into) changed.
		back := bytes.ReplaceAll(got, []byte(res.SessionID), []byte(v2))
		back = bytes.ReplaceAll(back, []byte(`"cwd":"`+realProj), []byte(`"cwd":"`+a.Meta().DirectoryPath))
		if !bytes.Equal(back, st.Raw[i].Data) {
			t.Errorf("%s: bytes other than the session id changed", p)
		}
	}
	if res.Rewritten != 24 {
		t.Errorf("rewritten %d session ids", res.Rewritten)
	}
	if res.MappedCwd == 0 {
		t.Errorf("no cwd mapped from %s to %s", a.Meta().DirectoryPath, realProj)
	}
	// Same id again: refuses to overwrite.
	if _, err := a.Restore(archive.RestoreOptions{ProjectDir: proj, SessionID: res.SessionID}); !errors.Is(err, archive.ErrExists) {
		t.Errorf("second restore: %v, want ErrExists", err)
	}
	if _, err := a.Restore(archive.RestoreOptions{ProjectDir: proj, SessionID: "../evil"}); err == nil {
		t.Errorf("path-like session id accepted")
	}
}

func TestRestoreDropsPartialLine(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, "hostile.jsonl"))
	a := open(t, encode(t, st, archive.EncodeOptions{}), archive.OpenOptions{})
	res, err := a.Restore(archive.RestoreOptions{ProjectDir: t.TempDir(), ConfigDir: t.TempDir(), SessionID: "abc-1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(res.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !res.DroppedPartial || bytes.Contains(got, []byte("trunc")) || !bytes.HasSuffix(got, []byte("\n")) {
		t.Errorf("partial line: dropped=%v, file %q", res.DroppedPartial, got)
	}
	if !bytes.Contains(got, []byte("\xff\xfe")) || !bytes.Contains(got, []byte("\r\n")) {
		t.Errorf("invalid UTF-8 or CRLF not kept")
	}
}

// RestoreFiles keeps every byte but the session id: a source without a
// final line ending is restored without one, CRLF stays CRLF.
func TestRestoreByteExact(t *testing.T) {
	const old = "11111111-2222-4333-8444-555555555555"
	l1 := `{"type":"user","sessionId":"` + old + `","uuid":"u1","message":{"role":"user","content":"hi"}}`
	l2 := `{"type":"assistant","sessionId":"` + old + `","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":"hello"}}`
	cases := []struct {
		name, src string
	}{
		{"final newline", l1 + "\n" + l2 + "\n"},
		{"no final newline", l1 + "\n" + l2},
		{"crlf, no final newline", l1 + "\r\n" + l2},
		{"one line, no newline", l1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := archive.RestoreFiles([]archive.RawFile{{Name: old + ".jsonl", Data: []byte(c.src)}}, old,
				archive.RestoreOptions{ProjectDir: t.TempDir(), ConfigDir: t.TempDir(), SessionID: "22222222-3333-4444-8555-666666666666"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(res.Files[0])
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(c.src, old, "22222222-3333-4444-8555-666666666666")
			if string(got) != want {
				t.Errorf("restored %q\nwant     %q", got, want)
			}
		})
	}
}

// TestRestoreMapsCwd is issue 14 item 7's path mapping: a session restored
// into another project (an export written "~/…", or an absolute path)
// resumes with its working directory in that project; directories outside
// the recorded project are left alone.
func TestRestoreMapsCwd(t *testing.T) {
	line := func(cwd string) string {
		return `{"type":"user","sessionId":"old-1","cwd":"` + cwd + `","message":{"role":"user","content":"hi"}}` + "\n"
	}
	tests := []struct {
		name, from string
		cwds       []string
		wantRel    []string // "" = unchanged
		wantMapped int
	}{
		{name: "export's ~ form", from: "~/src/app", cwds: []string{"~/src/app", "~/src/app/cmd/x"}, wantRel: []string{".", "cmd/x"}, wantMapped: 2},
		{name: "absolute", from: "/home/dev/app", cwds: []string{"/home/dev/app/internal", "/etc"}, wantRel: []string{"internal", ""}, wantMapped: 1},
		{name: "sibling with a common prefix", from: "/home/dev/app", cwds: []string{"/home/dev/app2"}, wantRel: []string{""}, wantMapped: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data string
			for _, c := range tc.cwds {
				data += line(c)
			}
			proj, _ := filepath.EvalSymlinks(t.TempDir())
			res, err := archive.RestoreFiles([]archive.RawFile{{Name: "old-1.jsonl", Data: []byte(data)}}, "old-1",
				archive.RestoreOptions{ProjectDir: proj, ConfigDir: t.TempDir(), SessionID: "new-1", FromDir: tc.from})
			if err != nil {
				t.Fatal(err)
			}
			if res.MappedCwd != tc.wantMapped {
				t.Errorf("mapped %d, want %d", res.MappedCwd, tc.wantMapped)
			}
			got, err := os.ReadFile(res.Files[0])
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
			for i, c := range tc.cwds {
				want := c
				if tc.wantRel[i] != "" {
					want = filepath.Join(proj, tc.wantRel[i])
				}
				if !strings.Contains(lines[i], `"cwd":"`+want+`"`) {
					t.Errorf("line %d: %s, want cwd %s", i, lines[i], want)
				}
			}
		})
	}
}
