package web

import (
	"context"
	"errors"
	"log"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

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
	Source    string `json:"source,omitempty"` // which search found it: "index" or "snapshots"
}

// search finds text in the saved sessions of ps, at most limit hits:
// through the recall index x when the server has one, else (and when the
// index cannot answer, said on lg) through each project's compaction
// snapshots. Both serve only this user's archives, as the MCP server
// does: the index its trusted ones (see index.Trusted), the snapshot
// search the snapshots this user's key authenticates.
func search(ctx context.Context, x *index.Index, lg *log.Logger, ps []*Project, text string, limit int) ([]Hit, error) {
	if x != nil {
		hits, err := indexSearch(ctx, x, ps, text, limit)
		if err == nil {
			return hits, nil
		}
		if errors.Is(err, index.ErrBadQuery) {
			return nil, err
		}
		if lg != nil {
			lg.Printf("search: the recall index: %v; searching the snapshots", err)
		}
	}
	return snapshotSearch(ctx, ps, text, limit)
}

// indexSearch searches the recall index (package index) of every archive
// Ben10 has captured, limited to ps: hits in archives the server does not
// list are left out.
func indexSearch(ctx context.Context, x *index.Index, ps []*Project, text string, limit int) ([]Hit, error) {
	byDir := map[string]*Project{}
	iq := index.Query{Text: text, Limit: limit * 4}
	for _, p := range ps {
		dir := p.Dir
		if c, err := store.CanonicalDir(p.Dir); err == nil {
			dir = c
		}
		byDir[dir] = p
		iq.Project = dir
	}
	if len(byDir) != 1 {
		iq.Project = ""
	} else {
		iq.Limit = limit
	}
	found, err := x.Search(ctx, iq)
	if err != nil {
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
		if len(hits) >= limit {
			break
		}
	}
	return hits, nil
}

// snapshotSearch searches the compaction snapshots of ps through the
// snapshot package's literal, case-insensitive search, one archive at a
// time (memory stays bounded by one snapshot). Only the snapshots this
// user's key authenticates are served: a snapshot planted in a cloned
// repository's store is not.
func snapshotSearch(ctx context.Context, ps []*Project, text string, limit int) ([]Hit, error) {
	hits := []Hit{}
	for _, p := range ps {
		es, err := p.Entries()
		if err != nil {
			return hits, err
		}
		trusted := map[string]Entry{}
		for _, e := range es {
			if e.Kind == KindSnapshot && e.Trust == index.TrustUser {
				trusted[e.Name] = e
			}
		}
		err = p.mgr.Search(text, false, func(h snapshot.Hit) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			e, ok := trusted[snapshot.ShortID(h.SnapshotID)]
			if !ok {
				return nil
			}
			hits = append(hits, Hit{Project: p.ID, Kind: KindSnapshot, Name: e.Name, SessionID: e.SessionID,
				Message: h.Message, Where: h.Kind, Role: h.Role, Tool: h.Tool, Snippet: h.Snippet,
				ViewURL: ViewURL(p.ID, KindSnapshot, e.Name), Source: "snapshots"})
			if len(hits) >= limit {
				return snapshot.ErrStop
			}
			return nil
		})
		if err != nil || len(hits) >= limit {
			return hits, err
		}
	}
	return hits, nil
}
