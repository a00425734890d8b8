package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// The trust of an indexed archive: whose content it is. Only this user's
// authenticated archives (TrustUser) and the team archives the user pulled
// (TrustTeam) are trusted; Search and Show serve the others only when
// asked (Query.Unauthenticated, ShowAny), Sessions never, and Search and
// Sessions count what they withhold.
const (
	// TrustUser: the archive's tag verifies under this user's key
	// (archive.Archive.Authenticate).
	TrustUser = "user"
	// TrustTeam: an archive `ben10 remote pull` wrote, deliberately
	// untagged (a session start never injects a teammate's content): one
	// in the pull area (PullArea), or one pulled into a project's store
	// and noted by NotePulled.
	TrustTeam = "team"
	// TrustNoTag: no authentication tag (another program, another
	// user, or a file planted in a cloned repository's store).
	TrustNoTag = "no-tag"
	// TrustOtherKey: tagged with another user's key.
	TrustOtherKey = "other-key"
	// TrustBadTag: the tag does not verify: changed after it was saved.
	TrustBadTag = "bad-tag"
	// TrustNoKey: this user's key could not be read, so nothing could be
	// authenticated (`ben10 doctor` says why).
	TrustNoKey = "no-key"
)

// Trusted tells whether content of an archive of trust t is served
// without being asked for: this user's own, or pulled team content.
func Trusted(t string) bool { return t == TrustUser || t == TrustTeam }

// TrustReason says in words why an archive of trust t is not trusted
// ("" for a trusted one).
func TrustReason(t string) string {
	switch t {
	case TrustUser, TrustTeam:
		return ""
	case TrustNoTag:
		return "no authentication tag"
	case TrustOtherKey:
		return "tagged with another user's key"
	case TrustBadTag:
		return "authentication tag does not verify (changed after it was saved)"
	case TrustNoKey:
		return "this user's authentication key could not be read"
	}
	return "not authenticated"
}

// Withheld counts the hits (or sessions) left out because their archive is
// not trusted, by trust (TrustNoTag, TrustOtherKey, …).
type Withheld map[string]int

// Total is the number withheld.
func (w Withheld) Total() int {
	n := 0
	for _, c := range w {
		n += c
	}
	return n
}

// withheldOf counts by trust the keys of untrusted (key → its archive's
// trust) that served lacks: nil when none is left.
func withheldOf[K comparable, V any](untrusted map[K]string, served map[K]V) Withheld {
	var w Withheld
	for k, t := range untrusted {
		if _, ok := served[k]; !ok {
			if w == nil {
				w = Withheld{}
			}
			w[t]++
		}
	}
	return w
}

// Say says how many were withheld and why, naming no content; "" when
// none was. what names the things counted ("hits", "sessions").
func (w Withheld) Say(what string) string {
	if w.Total() == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(w))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %s", w[k], TrustReason(k))
	}
	return fmt.Sprintf("%d %s withheld from archives not authenticated as this user's (%s)", w.Total(), what, strings.Join(parts, "; "))
}

// TrustOf is the trust of the open archive a: TrustUser when key
// authenticates it; otherwise TrustTeam for pulled team content (team),
// else why not.
func TrustOf(a *archive.Archive, key *archive.AuthKey, team bool) string {
	if key == nil {
		if team {
			return TrustTeam
		}
		return TrustNoKey
	}
	_, err := a.Authenticate(key)
	switch {
	case err == nil:
		return TrustUser
	case team:
		return TrustTeam
	case errors.Is(err, archive.ErrNoTag):
		return TrustNoTag
	case errors.Is(err, archive.ErrOtherKey):
		return TrustOtherKey
	}
	return TrustBadTag
}

// TrustOfFile is TrustOf for the archive file at path, opened with oo (""
// when it cannot be opened).
func TrustOfFile(path string, oo archive.OpenOptions, key *archive.AuthKey) string {
	a, err := archive.OpenFile(path, oo)
	if err != nil {
		return ""
	}
	defer a.Close()
	return TrustOf(a, key, false)
}

// TrustNow is the trust of the archive a, read from the open file f,
// decided now as Update decides it: this user's key, else team content
// (in the pull area, or a file whose SHA-256 NotePulled recorded). The
// index's verdict dates from when the archive was indexed and the file
// may have been replaced since: a command that hands an archive's content
// to an assistant checks the file it opened with this, on the bytes it
// reads (f is hashed, never opened again).
func (x *Index) TrustNow(ctx context.Context, f *os.File, a *archive.Archive) (string, error) {
	key := x.authKey()
	if t := TrustOf(a, key, false); t == TrustUser {
		return t, nil
	}
	team := inPullArea(x.home, filepath.Dir(f.Name()))
	if !team {
		fi, err := f.Stat()
		if err != nil {
			return "", fmt.Errorf("index: %s: %w", f.Name(), err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
			return "", fmt.Errorf("index: %s: %w", f.Name(), err)
		}
		if team, err = x.isPulled(ctx, hex.EncodeToString(h.Sum(nil))); err != nil {
			return "", err
		}
	}
	return TrustOf(a, key, team), nil
}

// authKey is the key archives are authenticated with: Options.Key, else
// the user's (store.LoadOrCreateAuthKey); nil when it cannot be read.
func (x *Index) authKey() *archive.AuthKey {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.key != nil || x.home == "" {
		return x.key
	}
	b, err := store.LoadOrCreateAuthKey(x.home)
	if err != nil {
		return nil
	}
	k, err := archive.NewAuthKey(b)
	if err != nil {
		return nil
	}
	x.key = k
	return k
}

// checkKey makes every archive be read again when the key archives are
// authenticated with is not the one the index was built with (a new key
// file, or one that became readable): their trust depends on it.
func (x *Index) checkKey(ctx context.Context, key *archive.AuthKey) error {
	id := ""
	if key != nil {
		id = key.ID()
	}
	var old string
	err := x.db.QueryRowContext(ctx, `SELECT v FROM settings WHERE k = 'key'`).Scan(&old)
	if err == nil && old == id {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("index: authentication key: %w", err)
	}
	return x.inTx(ctx, "authentication key", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE archives SET hash = '', mtime = -1`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO settings(k, v) VALUES('key', ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`, id)
		return err
	})
}

// addPulled records the SHA-256 (hex) of archives `remote pull` wrote
// into a project's store (NotePulled), and marks those already indexed
// as team content. The record outlives Rebuild, as the projects do.
func (x *Index) addPulled(ctx context.Context, hashes []string) error {
	for _, h := range hashes {
		if _, err := x.db.ExecContext(ctx, `INSERT INTO pulled(hash) VALUES(?) ON CONFLICT(hash) DO NOTHING`, h); err != nil {
			return fmt.Errorf("index: record pulled archive %s: %w", h, err)
		}
		if _, err := x.db.ExecContext(ctx, `UPDATE archives SET trust = ? WHERE hash = ? AND trust NOT IN (?, ?, '')`, TrustTeam, h, TrustUser, TrustTeam); err != nil {
			return fmt.Errorf("index: record pulled archive %s: %w", h, err)
		}
	}
	return nil
}

// isPulled tells whether the archive of SHA-256 hash was noted as pulled.
func (x *Index) isPulled(ctx context.Context, hash string) (bool, error) {
	var ok bool
	err := x.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pulled WHERE hash = ?)`, hash).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("index: pulled archive %s: %w", hash, err)
	}
	return ok, nil
}
