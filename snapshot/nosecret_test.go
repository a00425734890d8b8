package snapshot

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// plantedSecret matches the secrets plantedTranscript writes.
var plantedSecret = regexp.MustCompile(`ghp_[A-Za-z0-9]{36}|AKIA[A-Z2-7]{16}|sk_live_[A-Za-z0-9]{99}|xoxb-[0-9]{12}-[0-9]{13}-[A-Za-z0-9]{24}`)

// TestNoSecretReachesTheStore: after a final save of a transcript whose
// lines redaction changes, a second one built on it (its reused part
// rebuilt from the earlier archive's segments, the redacted bytes written
// over the transcript read) and two compaction snapshots, no planted
// secret is in any file under the project or the home directory: not in
// a file's bytes, nor in any segment of an archive once decompressed.
func TestNoSecretReachesTheStore(t *testing.T) {
	data := plantedTranscript(240)
	secrets := plantedSecret.FindAll(data, -1)
	if len(secrets) < 100 {
		t.Fatalf("%d secrets planted", len(secrets))
	}
	e := newEnv(t, "")
	p := filepath.Join(t.TempDir(), plantedSession+".jsonl")
	half := bytes.LastIndexByte(data[:len(data)/2], '\n') + 1
	for k, cut := range []int{half, len(data)} {
		if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		res := saveAt(t, e.st, p, plantedSession, 2<<10, false)
		if k == 1 && res.Stats.CopiedSegments == 0 {
			t.Fatal("the second save copied no segment of the first: the test proves nothing about an incremental save")
		}
		if sum(res.Redactions) == 0 {
			t.Fatalf("save %d redacted nothing", k)
		}
		e.create(t, CreateOptions{TranscriptPath: p, SessionID: plantedSession, Force: true, Now: t0.Add(time.Duration(k) * time.Hour)})
	}
	archives := 0
	for _, root := range []string{e.project, e.home} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			parts := [][]byte{b}
			if strings.HasSuffix(path, ".ctx") {
				archives++
				r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for i := range r.NumSegments() {
					seg, err := r.ReadSegment(i)
					if err != nil {
						t.Fatalf("%s segment %d: %v", path, i, err)
					}
					parts = append(parts, seg)
				}
			}
			for _, s := range secrets {
				for _, part := range parts {
					if bytes.Contains(part, s) {
						t.Errorf("%s holds the planted secret %s", path, s)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if archives < 3 {
		t.Fatalf("%d archives found in the store: want current.ctx and two snapshots", archives)
	}
}
