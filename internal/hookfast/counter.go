package hookfast

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The prompt counter is UserPromptSubmit's fast path. Each session has one
// small file in <store>/hook-prompts/: a fixed-size header holding the
// checkpoint reference time (the last checkpoint, or the session's start)
// and the prompts since that checkpoint already folded into the hook state
// file, followed by one byte per prompt appended since. A prompt with no
// checkpoint due is therefore one open, one read of the header, one
// appended byte and one fstat — no store lock, no state lock, no JSON, no
// fsync.
//
// Durability: the appended bytes are not fsynced. A power loss can lose a
// few prompt counts, which delays the next checkpoint by as many prompts;
// nothing the user saved depends on them. The state file itself (consumed
// recoveries, checkpoint history) keeps its atomic writes, and every
// slow-path update of package hook folds the counter into it under the
// state lock.
const (
	// CounterDirName is the counters' directory in a store.
	CounterDirName = "hook-prompts"
	// HeaderLen: "<ref unix nanos, 20 digits> <base, 11 digits>\n".
	HeaderLen = 33
	// MaxCounterBytes: a counter larger than this is damaged (or a session
	// with no checkpoint for a very long time); the slow path folds and
	// resets it.
	MaxCounterBytes = 1 << 20
	// TempPrefix starts the name of a temporary file; it is the store's
	// (store.TempPrefix), so the store's sweep of crashed writers' files
	// removes a counter's.
	TempPrefix = ".ben10-tmp-"
)

// ErrCounter: the counter file is missing or unusable; the slow path
// (re)creates it.
var ErrCounter = errors.New("hook: prompt counter unusable")

// ErrNoProject: the hook input has no cwd and $CLAUDE_PROJECT_DIR is not
// set.
var ErrNoProject = errors.New("no cwd in the hook input and $CLAUDE_PROJECT_DIR is not set")

// CounterName is the file name of a session's counter: the session id
// when it is a plain name, else a hash of it (hostile ids never name a
// path).
func CounterName(sid string) string {
	ok := len(sid) > 0 && len(sid) <= 128
	for i := 0; ok && i < len(sid); i++ {
		c := sid[i]
		ok = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if ok {
		return sid
	}
	h := sha256.Sum256([]byte(sid))
	return "h-" + hex.EncodeToString(h[:16])
}

// CounterPath is session sid's counter in the store directory root.
func CounterPath(root, sid string) string {
	return filepath.Join(root, CounterDirName, CounterName(sid))
}

// Header is a counter's fixed-size header.
type Header struct {
	Ref  time.Time // checkpoint reference time
	Base int       // prompts since that checkpoint, already in the state file
}

// Encode returns the header's HeaderLen bytes.
func (h Header) Encode() []byte {
	var ns int64
	if !h.Ref.IsZero() {
		ns = h.Ref.UnixNano()
	}
	return fmt.Appendf(nil, "%020d %011d\n", ns, max(h.Base, 0))
}

// ParseHeader parses a counter header; a damaged one is ErrCounter.
func ParseHeader(b []byte) (Header, error) {
	if len(b) != HeaderLen || b[20] != ' ' || b[32] != '\n' {
		return Header{}, ErrCounter
	}
	ns, err1 := strconv.ParseInt(string(b[:20]), 10, 64)
	base, err2 := strconv.Atoi(string(b[21:32]))
	if err1 != nil || err2 != nil || ns < 0 || base < 0 {
		return Header{}, ErrCounter
	}
	h := Header{Base: base}
	if ns > 0 {
		h.Ref = time.Unix(0, ns)
	}
	return h, nil
}

// AppendPrompt counts one prompt in the counter at path and returns its
// header and the prompts appended since it was written (this one
// included). counted reports whether the prompt was recorded; when it is
// false the caller counts it on the slow path.
func AppendPrompt(path string) (h Header, n int, counted bool, err error) {
	f, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return h, 0, false, ErrCounter
	}
	defer f.Close()
	var hb [HeaderLen]byte
	if m, err := f.ReadAt(hb[:], 0); m != len(hb) {
		return h, 0, false, fmt.Errorf("%w: %w", ErrCounter, err)
	}
	if h, err = ParseHeader(hb[:]); err != nil {
		return h, 0, false, err
	}
	if _, err := f.Write([]byte{'.'}); err != nil {
		return h, 0, false, fmt.Errorf("%w: %w", ErrCounter, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return h, 0, true, fmt.Errorf("%w: %w", ErrCounter, err)
	}
	if fi.Size() > MaxCounterBytes {
		return h, 0, true, ErrCounter
	}
	return h, int(fi.Size()) - HeaderLen, true, nil
}

// ReadCounter returns the prompts appended to the counter at path since
// its header was written, and when the last one was appended. A missing
// or damaged counter counts nothing.
func ReadCounter(path string) (n int, mod time.Time) {
	n, mod, _, _ = ReadCounterHeader(path)
	return n, mod
}

// ReadCounterHeader is ReadCounter with the header; ok is false for a
// missing or damaged counter.
func ReadCounterHeader(path string) (n int, mod time.Time, h Header, ok bool) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return 0, time.Time{}, h, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < HeaderLen {
		return 0, time.Time{}, h, false
	}
	var hb [HeaderLen]byte
	if m, _ := f.ReadAt(hb[:], 0); m != len(hb) {
		return 0, time.Time{}, h, false
	}
	if h, err = ParseHeader(hb[:]); err != nil {
		return 0, time.Time{}, h, false
	}
	size := min(fi.Size(), MaxCounterBytes)
	return int(size) - HeaderLen, fi.ModTime(), h, true
}

// WriteCounter replaces the counter at path with a fresh header. Package
// hook runs it under the state lock (one writer), so its temporary name is
// fixed; it is not fsynced (see the durability note above).
func WriteCounter(path string, h Header) error {
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (a symbolic link is not followed)", ErrCounter, dir)
	}
	// The temporary name is fixed: whatever is there (a leftover, or a
	// link planted in the repository) is removed, never written through.
	tmp := filepath.Join(dir, TempPrefix+filepath.Base(path))
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(h.Encode())
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(tmp)
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// RemoveCounter deletes a forgotten session's counter.
func RemoveCounter(root, sid string) {
	_ = os.Remove(CounterPath(root, sid))
}

// Pacing is the part of a project's configuration that decides when a
// prompt checkpoints (context.auto_save, checkpoint_interval,
// checkpoint_minutes).
type Pacing struct {
	AutoSave bool `json:"auto_save"`
	Interval int  `json:"checkpoint_interval"`
	Minutes  int  `json:"checkpoint_minutes"`
}

// DueAt: a checkpoint is due every Interval prompts, or Minutes after ref
// (the last checkpoint or the session's start), whichever comes first;
// never when AutoSave is off. since counts the prompts since ref.
func (p Pacing) DueAt(since int, ref, now time.Time) bool {
	if !p.AutoSave {
		return false
	}
	if p.Interval > 0 && since >= p.Interval {
		return true
	}
	if p.Minutes > 0 && since > 0 && !ref.IsZero() {
		return now.Sub(ref) >= time.Duration(p.Minutes)*time.Minute
	}
	return false
}

// CountPrompt is UserPromptSubmit's fast path in the store directory root:
// it appends to session sid's counter and decides. done means the prompt
// is fully handled (counted, nothing due); otherwise the slow path runs,
// told by counted whether the prompt is already counted.
func CountPrompt(root, sid string, p Pacing, now time.Time) (done, counted bool) {
	hd, n, counted, err := AppendPrompt(CounterPath(root, sid))
	if err != nil {
		return false, counted
	}
	if p.DueAt(hd.Base+n, hd.Ref, now) {
		return false, true
	}
	return true, true
}

// openRegular opens path with flag, without following a symbolic link and
// without blocking, and returns it only when it is a regular file.
func openRegular(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCounter, path)
	}
	return f, nil
}
