package snapshot

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// UserAuthKey returns the authentication key of the user whose home
// directory is home (~/.claude-code/auth.key, created on first use; see
// store.LoadOrCreateAuthKey).
func UserAuthKey(home string) (*archive.AuthKey, error) {
	b, err := store.LoadOrCreateAuthKey(home)
	if err != nil {
		return nil, err
	}
	k, err := archive.NewAuthKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", store.AuthKeyPath(home), err)
	}
	return k, nil
}

// AuthKeyFor is the key every save of the user's own sessions into st
// passes as archive.EncodeOptions.Auth: the key
// of the user st was opened for. It is nil when the key cannot be read or
// created; the archive is then saved without a tag — kept, listed and
// restorable, but not injected at a session start — and `ben10 doctor`
// reports why.
func AuthKeyFor(st *store.Store) *archive.AuthKey {
	k, err := UserAuthKey(st.Home())
	if err != nil {
		return nil
	}
	return k
}

// Unauthenticated is a saved context of a store that a session start does
// not inject, because this user's key does not authenticate it.
type Unauthenticated struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"` // current, checkpoint, history, snapshot or agent digest
	Reason string `json:"reason"`
}

// AdoptHint tells how to make an unauthenticated saved context one's own:
// an explicit restore, then a session that continues it and is saved.
const AdoptHint = "to continue one, restore it explicitly (ben10 context restore FILE) and resume that session: its next save is yours"

// TrustReason says in words why err (from archive.Archive.Authenticate)
// keeps an archive from being injected.
func TrustReason(err error) string {
	switch {
	case errors.Is(err, archive.ErrNoTag):
		return "no authentication tag (saved by another user, another program, or a Ben10 before archives were tagged)"
	case errors.Is(err, archive.ErrOtherKey):
		return "tagged with another user's key " + strings.TrimPrefix(err.Error(), archive.ErrOtherKey.Error()+" ")
	case errors.Is(err, archive.ErrBadTag):
		return "its tag does not verify (changed after it was saved): " + strings.TrimPrefix(err.Error(), archive.ErrBadTag.Error()+": ")
	}
	return err.Error()
}

// UnauthenticatedArchives lists the saved contexts of st (current.ctx,
// checkpoints, history, compaction snapshots and the checkpoints
// assistants wrote, see AgentDigests) that key k does not
// authenticate, each with the reason. Archives that cannot be opened
// (damaged, or encrypted without the key at hand) are left to the
// verification checks and not listed.
func UnauthenticatedArchives(st *store.Store, cfg *store.Config, k *archive.AuthKey) []Unauthenticated {
	files, _ := Archives(st.Root())
	oo := OpenOptions(cfg)
	var out []Unauthenticated
	for _, f := range files {
		if f.Kind == store.KindNamed || f.Path == "" {
			continue
		}
		a, err := archive.OpenFile(f.Path, oo)
		if err != nil {
			continue
		}
		_, err = a.Authenticate(k)
		a.Close()
		if err != nil {
			out = append(out, Unauthenticated{Path: f.Path, Kind: f.Kind, Reason: TrustReason(err)})
		}
	}
	_, bad := AgentDigests(st, k)
	return append(out, bad...)
}
