package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/transcript"
)

// TestRecallCLIUnauthenticated, with the real binary: an untagged archive
// planted in the project's store (as a cloned repository can bring one)
// is indexed but its hits are withheld from `search`, which says so on
// stderr; --include-unauthenticated shows them, marked; `show` refuses
// their references unless asked; `index status` counts and `index verify`
// lists them without failing. The user's own save is served as before.
func TestRecallCLIUnauthenticated(t *testing.T) {
	p := newProject(t, 0)
	p.run(t, "context", "save", "--transcript", p.transcript)
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, "../../index/testdata/second.jsonl", "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(p.dir, ".claude", "context", "checkpoints", "cp-999.ctx")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	r := runBen10(t, nil, p.env, "search", "frobnicate_widget", "--project", p.dir)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "withheld") || !strings.Contains(r.stderr, "no authentication tag") ||
		!strings.Contains(r.stderr, "--include-unauthenticated") || strings.Contains(r.stderr, "«") {
		t.Errorf("search of planted content: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, p.env, "search", "frobnicate_widget", "--project", p.dir, "--include-unauthenticated")
	if r.code != 0 || !strings.Contains(r.stdout, "[unauthenticated: no authentication tag]") || !strings.Contains(r.stdout, "«frobnicate_widget") {
		t.Errorf("search --include-unauthenticated: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, p.env, "search", "frobnicate_widget", "--include-unauthenticated", "--json")
	var hits []index.Hit
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) == 0 || hits[0].Trust != index.TrustNoTag || hits[0].Archive != planted {
		t.Fatalf("search --include-unauthenticated --json: code %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if r := runBen10(t, nil, p.env, "show", hits[0].Ref); r.code == 0 || strings.Contains(r.stdout, "frobnicate") || !strings.Contains(r.stderr, "--include-unauthenticated") {
		t.Errorf("show of a withheld reference: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBen10(t, nil, p.env, "show", hits[0].Ref, "--include-unauthenticated"); r.code != 0 || !strings.Contains(r.stdout, "frobnicate_widget") || !strings.Contains(r.stdout, "[unauthenticated") {
		t.Errorf("show --include-unauthenticated: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The user's own save.
	r = runBen10(t, nil, p.env, "search", "go test ./pkg/calc", "--project", p.dir)
	if r.code != 0 || strings.Contains(r.stdout, "[unauthenticated") || strings.Contains(r.stderr, "withheld") {
		t.Errorf("search of own content: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var st index.Status
	if err := json.Unmarshal([]byte(runBen10(t, nil, p.env, "index", "status", "--json").stdout), &st); err != nil ||
		st.Trust[index.TrustUser] != 1 || st.Trust[index.TrustNoTag] != 1 {
		t.Errorf("index status: %+v %v", st, err)
	}
	if r := runBen10(t, nil, p.env, "index", "verify"); r.code != 0 || !strings.Contains(r.stdout, "not authenticated as yours (hits withheld): "+planted+": no authentication tag") {
		t.Errorf("index verify: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
