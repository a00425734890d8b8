package hook

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

	"github.com/ben10ctx/ben10/store"
)

// The prompt counter is UserPromptSubmit's fast path. Each session has one
// small file in <store>/hook-prompts/: a fixed-size header holding the
// checkpoint reference time (the last checkpoint, or the session's start)
// and the prompts since that checkpoint already folded into the state
// file, followed by one byte per prompt appended since. A prompt with no
// checkpoint due is therefore one open, one read of the header, one
// appended byte and one fstat — no store lock, no state lock, no JSON, no
// fsync.
//
// Durability: the appended bytes are not fsynced. A power loss can lose a
// few prompt counts, which delays the next checkpoint by as many prompts;
// nothing the user saved depends on them. The state file itself (consumed
// recoveries, checkpoint history) keeps its fsynced atomic writes, and
// every slow-path update folds the counter into it under the state lock.
const (
	counterDirName = "hook-prompts"
	// counterHeaderLen: "<ref unix nanos, 20 digits> <base, 11 digits>\n".
	counterHeaderLen = 33
	// maxCounterBytes: a counter larger than this is damaged (or a session
	// with no checkpoint for a very long time); the slow path folds and
	// resets it.
	maxCounterBytes = 1 << 20
)

// errCounter: the counter file is missing or unusable; the slow path
// (re)creates it.
var errCounter = errors.New("hook: prompt counter unusable")

// counterName is the file name of a session's counter: the session id when
// it is a plain name, else a hash of it (hostile ids never name a path).
func counterName(sid string) string {
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

func counterPath(root, sid string) string {
	return filepath.Join(root, counterDirName, counterName(sid))
}

type counterHeader struct {
	ref  time.Time // checkpoint reference time
	base int       // prompts since that checkpoint, already in the state file
}

func (h counterHeader) encode() []byte {
	var ns int64
	if !h.ref.IsZero() {
		ns = h.ref.UnixNano()
	}
	b := fmt.Appendf(nil, "%020d %011d\n", ns, max(h.base, 0))
	return b
}

func parseCounterHeader(b []byte) (counterHeader, error) {
	if len(b) != counterHeaderLen || b[20] != ' ' || b[32] != '\n' {
		return counterHeader{}, errCounter
	}
	ns, err1 := strconv.ParseInt(string(b[:20]), 10, 64)
	base, err2 := strconv.Atoi(string(b[21:32]))
	if err1 != nil || err2 != nil || ns < 0 || base < 0 {
		return counterHeader{}, errCounter
	}
	h := counterHeader{base: base}
	if ns > 0 {
		h.ref = time.Unix(0, ns)
	}
	return h, nil
}

// appendPrompt counts one prompt in the counter at path and returns its
// header and the prompts appended since it was written (this one
// included). counted reports whether the prompt was recorded; when it is
// false the caller counts it on the slow path.
func appendPrompt(path string) (h counterHeader, n int, counted bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return h, 0, false, errCounter
	}
	defer f.Close()
	var hb [counterHeaderLen]byte
	if m, err := f.ReadAt(hb[:], 0); m != len(hb) {
		return h, 0, false, fmt.Errorf("%w: %v", errCounter, err)
	}
	if h, err = parseCounterHeader(hb[:]); err != nil {
		return h, 0, false, err
	}
	if _, err := f.Write([]byte{'.'}); err != nil {
		return h, 0, false, fmt.Errorf("%w: %v", errCounter, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return h, 0, true, fmt.Errorf("%w: %v", errCounter, err)
	}
	if fi.Size() > maxCounterBytes {
		return h, 0, true, errCounter
	}
	return h, int(fi.Size()) - counterHeaderLen, true, nil
}

// readCounter returns the prompts appended to the counter at path since
// its header was written, and when the last one was appended. A missing
// or damaged counter counts nothing.
func readCounter(path string) (n int, mod time.Time) {
	n, mod, _, _ = readCounterHeader(path)
	return n, mod
}

// readCounterHeader is readCounter with the header; ok is false for a
// missing or damaged counter.
func readCounterHeader(path string) (n int, mod time.Time, h counterHeader, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, time.Time{}, h, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < counterHeaderLen {
		return 0, time.Time{}, h, false
	}
	var hb [counterHeaderLen]byte
	if m, _ := f.ReadAt(hb[:], 0); m != len(hb) {
		return 0, time.Time{}, h, false
	}
	if h, err = parseCounterHeader(hb[:]); err != nil {
		return 0, time.Time{}, h, false
	}
	size := min(fi.Size(), maxCounterBytes)
	return int(size) - counterHeaderLen, fi.ModTime(), h, true
}

// writeCounter replaces the counter at path with a fresh header. It runs
// under the state lock (one writer), so its temporary name is fixed; it is
// not fsynced (see the durability note above).
func writeCounter(path string, h counterHeader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), store.TempPrefix+filepath.Base(path))
	if err := os.WriteFile(tmp, h.encode(), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// removeCounter deletes a forgotten session's counter.
func removeCounter(root, sid string) {
	if err := os.Remove(counterPath(root, sid)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
}

// checkpointDueAt: every interval prompts, or minutes after ref (the last
// checkpoint or the session's start), whichever comes first.
func checkpointDueAt(cfg *store.Config, since int, ref, now time.Time) bool {
	if !cfg.AutoSave {
		return false
	}
	if n := cfg.CheckpointInterval; n > 0 && since >= n {
		return true
	}
	if m := cfg.CheckpointMinutes; m > 0 && since > 0 && !ref.IsZero() {
		return now.Sub(ref) >= time.Duration(m)*time.Minute
	}
	return false
}

// fastPrompt is UserPromptSubmit when nothing is due: it opens the store
// read-only (configuration and location only), appends to the session's
// counter and decides. done means the prompt is fully handled; otherwise
// the slow path runs, told by counted whether the prompt is already
// counted.
func (h *Handler) fastPrompt(in *Input) (done, counted bool) {
	dir, err := h.projectDir(in)
	if err != nil {
		return false, false
	}
	st, err := store.Open(dir, store.Options{Home: h.home(), Session: in.SessionID, Now: h.Now, ReadOnly: true})
	if err != nil {
		return false, false
	}
	hd, n, counted, err := appendPrompt(counterPath(st.Root(), in.SessionID))
	if err != nil {
		return false, counted
	}
	if checkpointDueAt(st.Config(), hd.base+n, hd.ref, h.now()) {
		return false, true
	}
	return true, true
}
