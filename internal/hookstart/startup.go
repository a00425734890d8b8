package hookstart

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/store"
)

// agentDigestDir is the directory of a store root that holds the
// checkpoints assistants write themselves (snapshot.AgentDigestDir).
const agentDigestDir = "digests"

// Candidate is one saved context file of a project that
// SessionStart(startup|clear) may offer.
type Candidate struct {
	Path, Kind string // Kind: store.KindCurrent, KindCheckpoint or KindHistory
	Mod        time.Time
}

// Candidates lists st's saved context files, newest first; current.ctx
// wins a tie.
func Candidates(st *store.Store) []Candidate {
	var cs []Candidate
	if fi, err := os.Stat(st.CurrentPath()); err == nil {
		cs = append(cs, Candidate{st.CurrentPath(), store.KindCurrent, fi.ModTime()})
	}
	if cps, err := st.Checkpoints(); err == nil {
		for _, e := range cps {
			cs = append(cs, Candidate{e.Path, store.KindCheckpoint, e.ModTime})
		}
	}
	if hs, err := st.History(); err == nil {
		for _, e := range hs {
			cs = append(cs, Candidate{e.Path, store.KindHistory, e.ModTime})
		}
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Mod.After(cs[j-1].Mod); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs
}

// Startup is SessionStart(startup|clear) in the light hook: when the
// store holds nothing to offer — no saved context file, no checkpoint an
// assistant wrote — it records the event, as `ben10 hook` does; anything
// to offer is ErrNotPrepared, with the hook state unchanged, and goes to
// `ben10 hook`.
func Startup(c *hooknote.Call) (*hooknote.Output, error) {
	if !c.Cfg.AutoRestore {
		return nil, c.Touch()
	}
	if len(Candidates(c.St)) > 0 || hasEntries(filepath.Join(c.St.Root(), agentDigestDir)) {
		return nil, ErrNotPrepared
	}
	AuthKey(c.St) // created on first use, as by ben10 hook's search for an assistant's checkpoint
	return nil, c.Touch()
}

// hasEntries reports whether dir holds anything (a directory that cannot
// be read counts as holding something).
func hasEntries(dir string) bool {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) > 0 || (err != nil && !errors.Is(err, io.EOF))
}
