package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// RefusedName is the file in which a store records the saves it refused
// for lack of room, so that status and doctor can report them after the
// process that tried has gone.
const RefusedName = "refused.json"

// Refusal is one save a store refused because it would have gone over a
// storage limit even after retention made what room it could.
type Refusal struct {
	Time       time.Time `json:"time"`
	Area       string    `json:"area"`           // as StorageLimitError.Area
	Path       string    `json:"path,omitempty"` // the file that was not written
	Session    string    `json:"session,omitempty"`
	UsedBytes  int64     `json:"used_bytes"`
	AddBytes   int64     `json:"add_bytes"`
	LimitBytes int64     `json:"limit_bytes"`
}

// String describes the refusal in one line.
func (r Refusal) String() string {
	what := "a save"
	if r.Path != "" {
		what = "the save of " + filepath.Base(r.Path)
	}
	return fmt.Sprintf("%s refused %s: %s storage limit %s reached (%s in use, %s more); run `ben10 context prune` or raise context.max_storage_mb",
		r.Time.Local().Format("2006-01-02 15:04"), what, r.Area, FormatBytes(r.LimitBytes), FormatBytes(r.UsedBytes), FormatBytes(r.AddBytes))
}

// Refusals returns the refused saves recorded since the last successful
// save of the same area (at most one per area), none when there are none.
func (s *Store) Refusals() ([]Refusal, error) {
	var rs []Refusal
	if err := readSmallJSON(filepath.Join(s.root, RefusedName), &rs); err != nil {
		return nil, err
	}
	return rs, nil
}

// readSmallJSON decodes the small JSON file p (read bounded, never
// through a link) into v; a missing file leaves v as it is.
func readSmallJSON(p string, v any) error {
	data, err := ReadFileBounded(p, MaxSmallFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: reading %s: %w", p, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("store: %s: %w", p, err)
	}
	return nil
}

// recordRefusal adds (or replaces) the refusal of le's area, by the
// save of session (default: the store's session). A failure to
// record is kept as a warning: the refusal itself is what the caller
// reports.
func (s *Store) recordRefusal(le *StorageLimitError, path, session string) {
	if session == "" {
		session = s.session
	}
	rs, _ := s.Refusals()
	s.writeRefusals(append([]Refusal{{Time: s.now().UTC(), Area: le.Area, Path: path, Session: session,
		UsedBytes: le.UsedBytes, AddBytes: le.AddBytes, LimitBytes: le.LimitBytes}}, otherAreas(rs, le.Area)...))
}

// otherAreas is rs without the refusals of area.
func otherAreas(rs []Refusal, area string) []Refusal {
	return slices.DeleteFunc(slices.Clone(rs), func(r Refusal) bool { return r.Area == area })
}

// clearRefusal forgets the refusal of area after a save of that area
// succeeded.
func (s *Store) clearRefusal(area string) {
	rs, err := s.Refusals()
	if out := otherAreas(rs, area); err == nil && len(out) != len(rs) {
		s.writeRefusals(out)
	}
}

func (s *Store) writeRefusals(rs []Refusal) {
	p := filepath.Join(s.root, RefusedName)
	if len(rs) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.addWarning(Warning{File: p, Message: err.Error()})
		}
		return
	}
	data, err := json.MarshalIndent(rs, "", "  ")
	if err == nil {
		err = WriteFileAtomic(p, append(data, '\n'))
	}
	if err != nil {
		s.addWarning(Warning{File: p, Message: "recording a refused save: " + err.Error()})
	}
}

// makeRoom brings the context area under limit for a write of add more
// bytes by removing the oldest history files (with their meta), then the
// oldest checkpoints except the newest, until used+add fits. It returns
// the new usage figure and the files removed; used stays above limit-add
// when everything removable is gone.
func (s *Store) makeRoom(used, add, limit int64) (int64, []string, error) {
	if used+add <= limit {
		return used, nil, nil
	}
	hs, err := s.History()
	if err != nil {
		return used, nil, err
	}
	cps, err := s.Checkpoints()
	if err != nil {
		return used, nil, err
	}
	if len(cps) > 0 {
		cps = cps[:len(cps)-1] // the newest checkpoint stays
	}
	var removed []string
	for _, e := range append(hs, cps...) {
		if used+add <= limit {
			break
		}
		if err := os.Remove(e.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return used, removed, fmt.Errorf("store: making room: removing %s: %w", e.Path, err)
		}
		used -= e.Size
		if fi, err := os.Lstat(e.Path + ".meta"); err == nil && fi.Mode().IsRegular() {
			if os.Remove(e.Path+".meta") == nil {
				used -= fi.Size()
			}
		}
		removed = append(removed, e.Path)
	}
	return used, removed, nil
}
