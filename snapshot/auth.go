package snapshot

import (
	"fmt"

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
// passes as archive.EncodeOptions.Auth (and ReencodeOptions.Auth): the key
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
