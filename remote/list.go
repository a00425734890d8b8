package remote

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// Project is one project in the remote with its entries.
type Project struct {
	Name    string
	Entries []Entry
}

// List returns the entries of the named project, or of every project
// when project is "". Manifests that fail authentication are returned as
// errors beside the rest.
func (c *Client) List(ctx context.Context, project string) ([]Project, []error, error) {
	if project != "" {
		es, bad, err := c.entries(ctx, project)
		if err != nil {
			return nil, bad, err
		}
		return []Project{{Name: project, Entries: es}}, bad, nil
	}
	ids, err := c.projectIDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []Project
	var bad []error
	for _, pid := range ids {
		ms, b, err := c.manifests(ctx, pid, "")
		bad = append(bad, b...)
		if err != nil {
			return out, bad, err
		}
		if len(ms) == 0 {
			continue
		}
		out = append(out, Project{Name: ms[0].Project, Entries: mergeEntries(ms)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, bad, nil
}

// DefaultGrace is how long Prune keeps a chunk no manifest references.
// A push reuses such a chunk only while it is younger than half of it.
const DefaultGrace = 24 * time.Hour

// PruneOptions control Prune.
type PruneOptions struct {
	// Grace keeps unreferenced chunks younger than this: a push in
	// progress uploads its chunks before the manifest that references
	// them. Default DefaultGrace.
	Grace time.Duration
	// DryRun reports without deleting.
	DryRun bool
}

// PruneStats says what Prune did.
type PruneStats struct {
	Chunks, Referenced, Deleted int
	BytesDeleted                int64
	KeptYoung                   int
}

// Prune deletes chunk objects that no manifest references and that are
// older than the grace period. It reads every manifest of every project
// first and refuses to delete anything when one of them cannot be read:
// a chunk is deleted only when it is known to be unreferenced.
func (c *Client) Prune(ctx context.Context, opts PruneOptions) (PruneStats, error) {
	var stats PruneStats
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	ids, err := c.projectIDs(ctx)
	if err != nil {
		return stats, err
	}
	ref := map[string]bool{}
	for _, pid := range ids {
		ms, bad, err := c.manifests(ctx, pid, "")
		if err != nil {
			return stats, err
		}
		if len(bad) > 0 {
			return stats, fmt.Errorf("remote: prune refused: %w (a manifest that cannot be read may reference any chunk)", bad[0])
		}
		for _, m := range ms {
			for _, e := range m.Entries {
				for _, f := range e.Files {
					for _, r := range f.Chunks {
						ref[r.ID] = true
					}
				}
			}
		}
	}
	objs, err := c.list(ctx, c.prefix+"chunks/")
	if err != nil {
		return stats, err
	}
	cutoff := time.Now().Add(-opts.Grace)
	for _, o := range objs {
		stats.Chunks++
		id := path.Base(o.Key)
		if ref[id] {
			stats.Referenced++
			continue
		}
		if o.Modified.After(cutoff) || !strings.HasPrefix(o.Key, c.prefix+"chunks/") {
			stats.KeptYoung++
			continue
		}
		if !opts.DryRun {
			if err := c.mc.RemoveObject(ctx, c.bucket, o.Key, minioRemove); err != nil {
				return stats, fmt.Errorf("remote: deleting %s: %w", c.where(o.Key), err)
			}
		}
		stats.Deleted++
		stats.BytesDeleted += o.Size
	}
	return stats, nil
}
