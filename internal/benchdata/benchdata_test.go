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

func TestWithSecrets(t *testing.T) {
	src := []byte(`{"message":{"content":"hello"}}` + "\n" + `{"n":1}` + "\n" + `{"content":[{"type":"text","text":"hi"}]}` + "\n")
	data := bytes.Repeat(src, 4)
	out := WithSecrets(data, 2)
	if !bytes.Equal(out, WithSecrets(data, 2)) {
		t.Fatal("not deterministic")
	}
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 12", len(lines))
	}
	// Of the 8 lines with a text, every second one, the kinds in turn;
	// the others are left as they are.
	got := 0
	for i, l := range lines {
		has := bytes.Contains(l, []byte(`":"key `))
		if has {
			got++
			k := secretKinds[(got-1)%len(secretKinds)]
			if !bytes.Contains(l, []byte("key "+k.prefix)) {
				t.Errorf("line %d: %s, want a %s secret", i, l, k.prefix)
			}
		} else if !bytes.Equal(l, bytes.Split(data, []byte("\n"))[i]) {
			t.Errorf("line %d changed: %s", i, l)
		}
	}
	if got != 4 {
		t.Fatalf("%d lines with a secret, want 4", got)
	}
}
