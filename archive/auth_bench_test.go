package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// BenchmarkStartupAuthenticate is what authentication adds to a session
// start: "digest" opens the archive and builds the startup digest from
// its recall (what SessionStart did before tags); "authenticate+digest"
// checks the tag first; "authenticate-only" is the check on an open
// archive. Compare them in one run:
//
//	go test ./archive -run '^$' -bench BenchmarkStartupAuthenticate -benchtime 20x
func BenchmarkStartupAuthenticate(b *testing.B) {
	corpus := archiveCorpusDir(b, "claude")
	k := authKey(b, 1)
	for _, size := range []struct {
		name string
		n    int64
	}{{"10MB", 10 << 20}, {"100MB", 100 << 20}} {
		dir := b.TempDir()
		tp, err := benchdata.Transcript(corpus, dir, size.n)
		if err != nil {
			b.Fatal(err)
		}
		ap := filepath.Join(dir, "a.ctx")
		f, err := os.Create(ap)
		if err != nil {
			b.Fatal(err)
		}
		o := zstdOpts()
		o.Auth = k
		if _, _, err := claude.Save(context.Background(), f, tp, archive.ImportOptions{}, o); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		os.Remove(tp)
		b.Run(size.name+"/authenticate-only", func(b *testing.B) {
			a, err := archive.OpenFile(ap, archive.OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			for b.Loop() {
				if _, err := a.Authenticate(k); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, auth := range []bool{false, true} {
			name := size.name + "/digest"
			if auth {
				name = size.name + "/authenticate+digest"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					a, err := archive.OpenFile(ap, archive.OpenOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if auth {
						if _, err := a.Authenticate(k); err != nil {
							b.Fatal(err)
						}
					}
					r, ok, err := a.Recall()
					if err != nil || !ok {
						b.Fatal(ok, err)
					}
					if archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget}) == "" {
						b.Fatal("empty digest")
					}
					a.Close()
				}
			})
		}
	}
}
