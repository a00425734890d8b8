package web

import (
	"context"
	"errors"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// Query is one search.
type Query struct {
	Text string
	// Projects restricts the search to these project IDs; empty means all.
	Projects []string
	// Limit is the most hits wanted (> 0).
	Limit int
}

// Hit is one search result.
type Hit struct {
	Project   string `json:"project"`
	Kind      string `json:"kind"` // the Entry kind the hit is in
	Name      string `json:"name"` // the Entry name
	SessionID string `json:"session_id,omitempty"`
	Message   int    `json:"message"`          // 1-based message number, 0 = unknown
	Where     string `json:"where"`            // message | tool_input | tool_output
	Role      string `json:"role,omitempty"`   // for a message
	Tool      string `json:"tool,omitempty"`   // for a tool
	Snippet   string `json:"snippet"`          // the match with some context
	ViewURL   string `json:"view_url"`         // the server page of the session
	Source    string `json:"source,omitempty"` // which searcher found it
}

// Searcher finds text in saved sessions. The server calls it for the
// search page and /api/search; a global index can implement it.
type Searcher interface {
	Search(ctx context.Context, q Query) ([]Hit, error)
}

// StoreSearcher searches each project's compaction snapshots through the
// snapshot package's literal, case-insensitive search, one archive at a
// time (memory stays bounded by one snapshot).
type StoreSearcher struct {
	Projects []*Project
}

// Search implements Searcher.
func (s StoreSearcher) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Text == "" {
		return nil, errors.New("web: search: empty query")
	}
	want := map[string]bool{}
	for _, p := range q.Projects {
		want[p] = true
	}
	hits := []Hit{}
	for _, p := range s.Projects {
		if len(want) > 0 && !want[p.ID] {
			continue
		}
		sessions := map[string]string{}
		if snaps, err := p.Snapshots(); err == nil {
			for _, sn := range snaps {
				sessions[sn.ID] = sn.SessionID
			}
		}
		err := p.mgr.Search(q.Text, false, func(h snapshot.Hit) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			name := snapshot.ShortID(h.SnapshotID)
			hits = append(hits, Hit{Project: p.ID, Kind: KindSnapshot, Name: name, SessionID: sessions[h.SnapshotID],
				Message: h.Message, Where: h.Kind, Role: h.Role, Tool: h.Tool, Snippet: h.Snippet,
				ViewURL: ViewURL(p.ID, KindSnapshot, name), Source: "snapshots"})
			if q.Limit > 0 && len(hits) >= q.Limit {
				return snapshot.ErrStop
			}
			return nil
		})
		if err != nil {
			return hits, err
		}
		if q.Limit > 0 && len(hits) >= q.Limit {
			break
		}
	}
	return hits, nil
}

// IndexSearcher searches the recall index (package index) of every
// archive Ben10 has captured, limited to the served projects: hits in
// archives the server cannot show are left out. When the index cannot
// answer, Fallback (when set) does.
type IndexSearcher struct {
	Index    *index.Index
	Projects []*Project
	Fallback Searcher
}

// Search implements Searcher.
func (s IndexSearcher) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Text == "" {
		return nil, errors.New("web: search: empty query")
	}
	want := map[string]bool{}
	for _, p := range q.Projects {
		want[p] = true
	}
	byDir := map[string]*Project{}
	var only string
	for _, p := range s.Projects {
		if len(want) > 0 && !want[p.ID] {
			continue
		}
		dir := p.Dir
		if c, err := store.CanonicalDir(p.Dir); err == nil {
			dir = c
		}
		byDir[dir] = p
		only = dir
	}
	if len(byDir) == 0 {
		return []Hit{}, nil
	}
	iq := index.Query{Text: q.Text, Limit: max(q.Limit, 1) * 4}
	if len(byDir) == 1 {
		iq.Project = only
		iq.Limit = max(q.Limit, 1)
	}
	found, err := s.Index.Search(ctx, iq)
	if err != nil {
		if s.Fallback != nil && !errors.Is(err, index.ErrBadQuery) {
			return s.Fallback.Search(ctx, q)
		}
		return nil, err
	}
	entries := map[*Project]map[string]Entry{}
	hits := []Hit{}
	for _, h := range found.Hits { // only trusted archives: see index.Trusted
		p := byDir[h.Project]
		if p == nil {
			continue
		}
		if entries[p] == nil {
			entries[p] = map[string]Entry{}
			if es, err := p.Entries(); err == nil {
				for _, e := range es {
					entries[p][e.path] = e
				}
			}
		}
		e, ok := entries[p][h.Archive]
		if !ok {
			continue // an archive the server does not list (gone since it was indexed)
		}
		hits = append(hits, Hit{Project: p.ID, Kind: e.Kind, Name: e.Name, SessionID: h.Session,
			Where: h.Kind, Role: h.Role, Snippet: h.Snippet, ViewURL: ViewURL(p.ID, e.Kind, e.Name), Source: "index"})
		if q.Limit > 0 && len(hits) >= q.Limit {
			break
		}
	}
	return hits, nil
}
