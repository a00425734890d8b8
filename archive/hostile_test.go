package archive_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/hostile"
	_ "github.com/ben10ctx/ben10/transcript/claude" // the conversation's deriver
)

// hostileReaders are every read a Ben10 command makes of an archive; each
// opens the file afresh.
var hostileReaders = []struct {
	name string
	read func(t *testing.T, path string) error
}{
	{"open", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { return nil })
	}},
	{"summary", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { a.Summary(); a.Meta(); a.ImportReport(); return nil })
	}},
	{"messages", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Messages(); return err })
	}},
	{"tools", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Tools(); return err })
	}},
	{"files", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Files(); return err })
	}},
	{"tasks", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Tasks(); return err })
	}},
	{"compactions", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Compactions(); return err })
	}},
	{"preferences", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Preferences(); return err })
	}},
	{"digest", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error {
			r, _, err := a.Recall()
			if err == nil {
				archive.Digest(r, archive.DigestOptions{})
			}
			return err
		})
	}},
	{"raw", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.RawFiles(); return err })
	}},
	{"contents", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.FileContents(); return err })
	}},
	{"load", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Load(); return err })
	}},
	{"export", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.ExportRaw(t.TempDir()); return err })
	}},
	{"restore", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error {
			_, err := a.Restore(archive.RestoreOptions{ProjectDir: t.TempDir(), ConfigDir: t.TempDir()})
			return err
		})
	}},
	{"verify-container", func(t *testing.T, p string) error {
		return ctxfmt.VerifyFile(p, ctxfmt.VerifyOptions{Deep: true})
	}},
	{"verify", func(t *testing.T, p string) error { return archive.VerifyFile(p, archive.OpenOptions{}) }},
	{"authenticate", func(t *testing.T, p string) error {
		return withArchive(p, func(a *archive.Archive) error { _, err := a.Authenticate(authKey(t, 1)); return err })
	}},
}

func withArchive(p string, f func(a *archive.Archive) error) error {
	a, err := archive.OpenFile(p, archive.OpenOptions{})
	if err != nil {
		return err
	}
	defer a.Close()
	return f(a)
}

// hostileBudget is the allocation bound of one read: 64 MiB plus the
// largest segment the archive really decodes to.
const hostileBudget = 64 << 20

// largestReal is, per case, the largest segment an archive really decodes
// to (what a read is allowed to allocate besides hostileBudget): the
// within-caps expansion bombs.
var largestReal = map[string]uint64{"raw-zstd-bomb": 64 << 20, "raw-newlines": 32 << 20}

type hostileResult struct {
	Reader string `json:"reader"`
	Err    string `json:"err"`
	Alloc  uint64 `json:"alloc"`
}

// TestHostileArchives runs every reader over every archive of the hostile
// corpus, each case in a child process (a regression that exhausts memory
// kills the child, not the test run): no reader may panic or allocate
// more than 64 MiB plus the largest segment the archive really decodes to
// (twice that segment for restore, which writes a rewritten copy),
// counted as total bytes allocated, a bound on the peak; and the
// archive-level verify must refuse every case but the one valid archive.
// Allocation is a memory figure, not a timing one.
func TestHostileArchives(t *testing.T) {
	paths, err := hostile.Shared()
	if err != nil {
		t.Fatal(err)
	}
	family := map[string]bool{}
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			// -short: one case of each family (meta, conversation, raw,
			// sparse, …), each a child process running every reader; make
			// test-long runs all of them, make fuzz mutates them further.
			if f, _, _ := strings.Cut(c.Name, "-"); testing.Short() && family[f] {
				t.Skip("-short: another " + f + " case ran; make test-long runs this one")
			} else {
				family[f] = true
			}
			if c.Sparse {
				var st syscallStat
				if blocks, ok := st.diskBytes(paths[c.Name]); ok && blocks > 1<<20 {
					t.Logf("%s takes %d bytes on disk (no sparse files here)", c.Name, blocks)
				}
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "BEN10_HOSTILE_CHILD="+paths[c.Name], "GOMEMLIMIT=1GiB")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s\n%s", err, out, tail(stderr.String()))
			}
			bound := hostileBudget + largestReal[c.Name]
			seen := 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("{")) {
					continue
				}
				var r hostileResult
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatal(err)
				}
				seen++
				t.Logf("%-16s %7.1f MiB  %s", r.Reader, float64(r.Alloc)/(1<<20), r.Err)
				b := bound
				if r.Reader == "restore" {
					// Restore writes a rewritten copy of the transcript (session
					// ids replaced): the raw file twice.
					b += largestReal[c.Name]
				}
				if r.Alloc > b {
					t.Errorf("%s: allocated %d MiB, the bound is %d MiB", r.Reader, r.Alloc>>20, b>>20)
				}
				if r.Reader == "verify" && (r.Err == "") != (c.Name == "raw-zstd-bomb") {
					t.Errorf("verify: %q (only raw-zstd-bomb, a valid if large archive, verifies)", r.Err)
				}
				if strings.Contains(r.Err, "panic") {
					t.Errorf("%s panicked: %s", r.Reader, r.Err)
				}
			}
			if seen != len(hostileReaders) {
				t.Fatalf("child reported %d of %d readers\n%s", seen, len(hostileReaders), out)
			}
		})
	}
}

// TestHostileChild is TestHostileArchives's child: it runs every reader
// over the archive named in BEN10_HOSTILE_CHILD and prints one JSON line
// per reader with the bytes it allocated.
func TestHostileChild(t *testing.T) {
	p := os.Getenv("BEN10_HOSTILE_CHILD")
	if p == "" {
		t.Skip("run by TestHostileArchives")
	}
	debug.SetGCPercent(50)
	for _, r := range hostileReaders {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return r.read(t, p)
		}()
		runtime.ReadMemStats(&after)
		res := hostileResult{Reader: r.name, Alloc: after.TotalAlloc - before.TotalAlloc}
		if err != nil {
			res.Err = err.Error()
			if len(res.Err) > 200 {
				res.Err = res.Err[:200]
			}
		}
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// TestHostileErrorClasses: the refusals name their cause: the count bombs
// are ErrTooLarge (not a crash, not silently accepted), the size lies
// ErrTooLarge or corrupt, the encrypted file cut after its parameters
// ErrTruncated at verify.
func TestHostileErrorClasses(t *testing.T) {
	paths, err := hostile.Shared()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{
		"meta-raw-count":         archive.ErrTooLarge,
		"meta-chunk-count":       archive.ErrTooLarge,
		"meta-contents-count":    archive.ErrTooLarge,
		"meta-nil-strings":       archive.ErrTooLarge,
		"meta-map-count":         archive.ErrTooLarge,
		"conversation-nil-array": archive.ErrTooLarge,
		"raw-size-lie":           archive.ErrTooLarge,
		"raw-size-lie-3g":        ctxfmt.ErrCorrupt,
		"raw-lz4-lie":            ctxfmt.ErrCorrupt,
		"raw-newlines":           archive.ErrTooLarge,
		"sparse-index-over":      ctxfmt.ErrTooLarge,
		"sparse-segment":         ctxfmt.ErrTooLarge,
		"encrypted-cut":          ctxfmt.ErrTruncated,
	} {
		err := archive.VerifyFile(paths[name], archive.OpenOptions{Key: hostile.EncryptedCutKey})
		if name == "raw-size-lie" {
			// verify meets the undecodable segments first; reading the raw
			// file refuses the declared size before decoding anything.
			if !errors.Is(err, ctxfmt.ErrCorrupt) {
				t.Errorf("%s: verify: %v", name, err)
			}
			err = withArchive(paths[name], func(a *archive.Archive) error { _, err := a.RawFiles(); return err })
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
		if name != "raw-size-lie" && err != nil && !strings.Contains(err.Error(), filepath.Base(paths[name])) {
			t.Errorf("%s: the error does not name the file: %v", name, err)
		}
	}
}
