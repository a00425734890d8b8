package hookstart

import (
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/store"
)

// ErrNotPrepared: what the event needs has no valid prepared recall or
// startup record, so the light hook hands the event to `ben10 hook`,
// which reads the archives.
var ErrNotPrepared = errors.New("nothing valid prepared")

// PreparedDir is the directory of a store root that holds prepared
// recalls.
const PreparedDir = "prepared"

// MaxPreparedBytes bounds a prepared recall file. A recall holds at most
// 64 KiB of strings (archive's caps); JSON escaping can grow that several
// times. A larger file is not read.
const MaxPreparedBytes = 1 << 20

// preparedDomain separates a prepared recall's MAC from every other use
// of the user's key.
const preparedDomain = "ben10 prepared recall v1"

// summaryDomain separates the compaction summary's MAC from every other
// use of the key.
const summaryDomain = "ben10 compact summary v1"

// AuthKey is the user's authentication key (~/.claude-code/auth.key,
// created on first use), nil when it is unusable: nothing is then
// authenticated, so nothing is injected.
func AuthKey(st *store.Store) []byte {
	k, err := store.LoadOrCreateAuthKey(st.Home())
	if err != nil {
		return nil
	}
	return k
}

// Sum is the HMAC-SHA256 of fields under key in the domain named by
// domain, every field (the domain first) prefixed by its length as 8
// little-endian bytes: the scheme of archive.AuthKey.Sum.
func Sum(key []byte, domain string, fields ...[]byte) []byte {
	return store.AuthSum(key, domain, fields...)
}

// safeID reports whether id (read from the hook state, untrusted) can name
// a file: 1 to 128 letters, digits, '.', '_' or '-', not starting with '.'.
func safeID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// preparedPath is the file of compaction snapshot id's prepared recall.
func preparedPath(root, id string) (string, error) {
	if !safeID(id) {
		return "", fmt.Errorf("%w: snapshot id %q cannot name a file", ErrNotPrepared, id)
	}
	return filepath.Join(root, PreparedDir, id+".recall"), nil
}

// preparedBody is what a prepared recall file holds after its tag line.
type preparedBody struct {
	Version int           `json:"version"`
	Created time.Time     `json:"created"`
	Recall  recall.Recall `json:"recall"`
}

// WritePrepared writes the recall r of compaction snapshot id of session
// as the store's prepared recall, for SessionStart(compact) to render
// without opening the snapshot: a 0600 file written atomically, never
// through a symbolic link, whose first line is the hexadecimal MAC under
// the user's key of the project, the session, the snapshot id and the
// rest of the file. The worker writes it after the snapshot is verified.
func WritePrepared(st *store.Store, session, id string, r recall.Recall, now time.Time) error {
	p, err := preparedPath(st.Root(), id)
	if err != nil {
		return err
	}
	body, err := json.Marshal(preparedBody{Version: 1, Created: now, Recall: r})
	if err != nil {
		return fmt.Errorf("preparing the recall of snapshot %s: %w", id, err)
	}
	return writeTagged(st, p, preparedDomain, body, []byte(session), []byte(id))
}

// ReadPrepared returns the prepared recall of compaction snapshot id for
// session. Anything but a file WritePrepared wrote for this project,
// session and snapshot under the user's key — missing, a symbolic link,
// not a regular file, oversized, truncated, with a forged tag or another
// session's or project's — is ErrNotPrepared, wrapped with the reason.
func ReadPrepared(st *store.Store, key []byte, session, id string) (recall.Recall, error) {
	var none recall.Recall
	p, err := preparedPath(st.Root(), id)
	if err != nil {
		return none, err
	}
	body, err := readTagged(st, key, p, preparedDomain, []byte(session), []byte(id))
	if err != nil {
		return none, err
	}
	var b preparedBody
	if err := json.Unmarshal(body, &b); err != nil {
		return none, fmt.Errorf("%w: %s: %w", ErrNotPrepared, p, err)
	}
	if b.Version != 1 {
		return none, fmt.Errorf("%w: %s is version %d", ErrNotPrepared, p, b.Version)
	}
	return b.Recall, nil
}

// RemovePrepared removes snapshot id's prepared recall, once injected.
func RemovePrepared(st *store.Store, id string) {
	if p, err := preparedPath(st.Root(), id); err == nil {
		_ = os.Remove(p)
	}
}

// SummaryTag authenticates the compaction summary sum PostCompact keeps
// for session in st's hook state ("" without a key).
func SummaryTag(st *store.Store, session, sum string) string {
	key := AuthKey(st)
	if key == nil || sum == "" {
		return ""
	}
	return hex.EncodeToString(Sum(key, summaryDomain, []byte(st.ProjectDir()), []byte(session), []byte(sum)))
}

// trustedSummary returns the kept summary when its tag verifies, ""
// (read the transcript instead) otherwise.
func trustedSummary(key []byte, project, session string, ss *hooknote.SessionState) string {
	if key == nil || ss.CompactSummary == "" {
		return ""
	}
	tag, err := hex.DecodeString(ss.CompactSummaryTag)
	if err != nil || !hmac.Equal(tag, Sum(key, summaryDomain, []byte(project), []byte(session), []byte(ss.CompactSummary))) {
		return ""
	}
	return ss.CompactSummary
}
