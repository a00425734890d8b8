package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// authChecks: the user's authentication key, and the saved contexts of
// the project it does not authenticate (never injected at a session
// start), each with the reason.
func authChecks(st *store.Store, cfg *store.Config) []check {
	k, err := snapshot.UserAuthKey(st.Home())
	if err != nil {
		return []check{{"auth", "fail", fmt.Sprintf("%v: archives are saved without a tag, and nothing is injected at a session start", err)}}
	}
	out := []check{{"auth", "ok", fmt.Sprintf("key %s (%s)", k.ID(), tildePath(store.AuthKeyPath(st.Home())))}}
	un := snapshot.UnauthenticatedArchives(st, cfg, k)
	if len(un) == 0 {
		return out
	}
	var why []string
	for _, u := range un {
		rel, err := filepath.Rel(st.Root(), u.Path)
		if err != nil {
			rel = u.Path
		}
		why = append(why, rel+": "+u.Reason)
	}
	return append(out, check{"auth", "warn", fmt.Sprintf("%d saved context(s) not saved by you, never injected at a session start: %s (%s)", len(un), strings.Join(why, "; "), snapshot.AdoptHint)})
}
