package benchdata

import (
	"bytes"
	"os"
	"testing"
)

func TestTranscript(t *testing.T) {
	dir := t.TempDir()
	corpus := t.TempDir()
	a := []byte(`{"uuid":"aaaaaaaa-1111-4111-8111-111111111111","n":1}` + "\n")
	if err := os.WriteFile(corpus+"/aaaaaaaa-1111-4111-8111-111111111111.jsonl", bytes.Repeat(a, 3), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Transcript(corpus, dir, int64(len(a))*7+5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 7", len(lines))
	}
	// Copies 0, 1 and 2 each carry their own id prefix.
	for i, want := range []string{"00000000", "00000000", "00000000", "00000001", "00000001", "00000001", "00000002"} {
		if !bytes.Contains(lines[i], []byte(`"uuid":"`+want+`-1111`)) {
			t.Errorf("line %d = %s", i, lines[i])
		}
	}
	if _, err := Transcript(t.TempDir(), dir, 10); err == nil {
		t.Error("empty corpus accepted")
	}
}
