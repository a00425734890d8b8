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
		// Only the session id changed.
		back := bytes.ReplaceAll(got, []byte(res.SessionID), []byte(v2))
		if !bytes.Equal(back, st.Raw[i].Data) {
			t.Errorf("%s: bytes other than the session id changed", p)
		}
	}
	if res.Rewritten != 24 {
		t.Errorf("rewritten %d session ids", res.Rewritten)
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
