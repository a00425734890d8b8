package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// PushOptions control Push.
type PushOptions struct {
	// Project is the project's key in the bucket; "" means
	// ProjectKey(st.ProjectDir()).
	Project string
	// Since skips archives last updated before it (zero: all).
	Since time.Time
}

// PushStats says what a push did.
type PushStats struct {
	Project        string
	Archives       int   // archives of the store considered
	Entries        int   // new entries written to the manifest
	Present        int   // archives whose entry the remote already had
	RawBytes       int64 // raw transcript bytes of the new entries
	ChunksUploaded int
	BytesUploaded  int64 // object bytes sent (compressed, encrypted)
	ChunksReused   int   // chunks the remote already had
	Manifest       string
	Warnings       []string
}

// localArchive is an archive of the store to push.
type localArchive struct {
	path, kind, name, trigger string
	created                   time.Time // a snapshot's time in the index
}

// Push uploads the archives of st's store (current, history, compaction
// snapshots) that the remote does not hold yet: each archive's redacted
// raw transcript, with the user's home directory and name stripped as in
// a .ctxpkg export, cut into content-defined chunks, each compressed,
// encrypted and stored under its keyed hash. Chunks already in the bucket
// are not sent again; a file that grew from one the remote holds reuses
// the old file's chunks for its unchanged prefix. The manifest that makes
// the new entries visible is written last, after every chunk it names, so
// an interrupted push leaves at most unreferenced chunks, which the next
// push reuses.
func (c *Client) Push(ctx context.Context, st *store.Store, opts PushOptions) (PushStats, error) {
	project := opts.Project
	if project == "" {
		project = ProjectKey(st.ProjectDir())
	}
	stats := PushStats{Project: project}
	locals, warns := localArchives(st)
	stats.Warnings = append(stats.Warnings, warns...)
	stats.Archives = len(locals)
	existing, bad, err := c.entries(ctx, project)
	if err != nil {
		return stats, err
	}
	for _, b := range bad {
		stats.Warnings = append(stats.Warnings, "ignoring "+b.Error())
	}
	have := map[string]bool{}
	referenced := map[string]bool{}
	prior := map[string][][]ChunkRef{}
	for _, e := range existing {
		have[e.ID] = true
		for _, f := range e.Files {
			prior[f.Name] = append(prior[f.Name], f.Chunks)
			for _, r := range f.Chunks {
				referenced[r.ID] = true
			}
		}
	}
	present, err := c.chunkSet(ctx)
	if err != nil {
		return stats, err
	}
	// A chunk no manifest references is reused only while it is young:
	// Prune deletes such chunks once older than its grace period
	// (DefaultGrace), and this push must write its manifest before then.
	// Older ones are uploaded again, which refreshes their time.
	young := time.Now().Add(-DefaultGrace / 2)
	for id, t := range present {
		if !referenced[id] && t.Before(young) {
			delete(present, id)
		}
	}

	oo := snapshot.OpenOptions(st.Config())
	strip := snapshot.NewStripper(st.Home(), "")
	// Total for progress: the raw bytes of the archives to look at.
	var total int64
	for i := range locals {
		if a, err := archive.OpenFile(locals[i].path, oo); err == nil {
			for _, fi := range a.RawFileInfos() {
				total += fi.Size
			}
			a.Close()
		}
	}
	var done atomic.Int64
	report := func(n int64) {
		if c.Progress != nil {
			c.Progress(done.Add(n), total)
		}
	}

	up := c.newUploader(ctx, present)
	var added []Entry
	var mine []string
	for _, la := range locals {
		e, rawSize, err := c.prepare(la, oo, strip, project, opts.Since, prior, up, report)
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			stats.Warnings = append(stats.Warnings, err.Error())
			continue
		}
		mine = append(mine, e.ID)
		if have[e.ID] {
			stats.Present++
			continue
		}
		have[e.ID] = true
		for _, f := range e.Files {
			prior[f.Name] = append(prior[f.Name], f.Chunks)
		}
		stats.RawBytes += rawSize
		added = append(added, *e)
	}
	if err := up.wait(); err != nil {
		return stats, err
	}
	stats.ChunksUploaded, stats.BytesUploaded, stats.ChunksReused = up.count, up.bytes.Load(), up.reused
	if len(added) == 0 {
		recordPushed(st, mine, &stats)
		return stats, nil
	}
	now := time.Now().UTC()
	for i := range added {
		added[i].Pushed = now
	}
	where, err := c.writeManifest(ctx, project, added)
	if err != nil {
		return stats, err
	}
	stats.Entries, stats.Manifest = len(added), where
	recordPushed(st, mine, &stats)
	return stats, nil
}

// recordPushed notes the entries of st's archives in its state file, so
// that a pull into the same store skips them; a failure is a warning.
func recordPushed(st *store.Store, ids []string, stats *PushStats) {
	if st.ReadOnly() || len(ids) == 0 {
		return
	}
	state := readState(st.Root())
	changed := false
	for _, id := range ids {
		if _, ok := state.Entries[id]; !ok {
			state.Entries[id] = "pushed"
			changed = true
		}
	}
	if !changed {
		return
	}
	if err := writeState(st.Root(), state); err != nil {
		stats.Warnings = append(stats.Warnings, fmt.Sprintf("recording pushed entries in %s: %v", st.Root(), err))
	}
}

var errSkip = errors.New("skip")

// prepare opens one archive, strips and chunks its raw files (queueing
// chunks the bucket lacks on up) and returns its entry.
func (c *Client) prepare(la localArchive, oo archive.OpenOptions, strip *snapshot.Stripper, project string, since time.Time,
	prior map[string][][]ChunkRef, up *uploader, report func(int64)) (*Entry, int64, error) {
	a, err := archive.OpenFile(la.path, oo)
	if err != nil {
		return nil, 0, fmt.Errorf("skipping %s: %w", la.path, err)
	}
	defer a.Close()
	m := a.Meta()
	if !since.IsZero() && m.UpdatedAt.Before(since) {
		return nil, 0, errSkip
	}
	files, err := a.RawFiles()
	if err != nil {
		return nil, 0, fmt.Errorf("skipping %s: %w", la.path, err)
	}
	fi, _ := os.Stat(la.path)
	e := &Entry{Project: project, Kind: la.kind, Name: la.name, Session: m.SessionID, Harness: string(m.Harness),
		Created: m.CreatedAt, Updated: m.UpdatedAt, Trigger: la.trigger}
	if fi != nil {
		e.ArchiveBytes = fi.Size()
	}
	if !la.created.IsZero() {
		e.Created = la.created
	}
	var raw int64
	for _, f := range files {
		data := strip.Bytes(f.Data)
		sum := sha256.Sum256(data)
		refs := c.key.chunkFile(data, prior[f.Name], up.add, up.reuse)
		e.Files = append(e.Files, File{Name: f.Name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Chunks: refs})
		raw += int64(len(data))
		report(int64(len(f.Data)))
	}
	sort.Slice(e.Files, func(i, j int) bool { return e.Files[i].Name < e.Files[j].Name })
	e.ID = c.key.entryID(e)
	return e, raw, nil
}

// chunkFile cuts data into chunks: the longest prefix that one of the
// prior chunk lists of the same file covers keeps that list's chunks (a
// transcript grows by appending), and the rest is cut by the
// content-defined chunker. reuse is called with each prior chunk kept,
// add with each new one.
func (k *Key) chunkFile(data []byte, prior [][]ChunkRef, add func(id string, p []byte), reuse func(id string)) []ChunkRef {
	var refs []ChunkRef
	off := 0
	for _, list := range prior {
		n, o := 0, 0
		for _, r := range list {
			if o+r.Size > len(data) || k.ChunkID(data[o:o+r.Size]) != r.ID {
				break
			}
			n, o = n+1, o+r.Size
		}
		if o > off {
			refs, off = append(refs[:0], list[:n]...), o
		}
	}
	reused := len(refs) > 0
	for _, r := range refs {
		reuse(r.ID)
	}
	for off < len(data) {
		n := k.chunker.Cut(data[off:])
		if rest := len(data) - off; reused && rest <= MaxChunk {
			// Appended bytes that fit one chunk stay whole: they compress
			// better together, and no other file shares them yet.
			n = rest
		}
		p := data[off : off+n]
		id := k.ChunkID(p)
		refs = append(refs, ChunkRef{ID: id, Size: n})
		add(id, p)
		off += n
	}
	return refs
}

// uploader puts the chunks the bucket lacks, c.Workers at a time.
type uploader struct {
	c       *Client
	ctx     context.Context // the push's
	g       *errgroup.Group
	gctx    context.Context // ends at the first failed upload too
	present map[string]time.Time
	queued  map[string]bool
	count   int
	reused  int
	bytes   atomic.Int64
	stored  atomic.Int64
}

func (c *Client) newUploader(ctx context.Context, present map[string]time.Time) *uploader {
	g, gctx := errgroup.WithContext(ctx)
	w := c.Workers
	if w <= 0 {
		w = 4
	}
	g.SetLimit(w)
	return &uploader{c: c, ctx: ctx, g: g, gctx: gctx, present: present, queued: map[string]bool{}}
}

func (u *uploader) reuse(id string) {
	if !u.queued[id] {
		u.queued[id] = true
		u.reused++
	}
}

// add uploads chunk p named id unless it is queued or in the bucket
// already; it waits while every worker is busy.
func (u *uploader) add(id string, p []byte) {
	if u.queued[id] {
		return
	}
	u.queued[id] = true
	if _, ok := u.present[id]; ok {
		u.reused++
		return
	}
	u.count++
	u.g.Go(func() error {
		if u.gctx.Err() != nil {
			return nil // failed or interrupted: wait says which
		}
		obj, err := u.c.key.SealChunk(id, p)
		if err == nil {
			err = u.c.put(u.gctx, u.c.chunkKey(id), obj)
		}
		if err != nil {
			return err
		}
		u.bytes.Add(int64(len(obj)))
		u.stored.Add(1)
		if u.c.afterPut != nil {
			u.c.afterPut()
		}
		return nil
	})
}

func (u *uploader) wait() error {
	err := u.g.Wait()
	if cerr := u.ctx.Err(); cerr != nil {
		return fmt.Errorf("remote: push interrupted after %d chunks (run it again to resume): %w", u.stored.Load(), cerr)
	}
	return err
}

// localArchives lists what Push sends: current.ctx, history/*.ctx and the
// compaction snapshots (snapshot.Archives; a snapshot with no usable file
// is a warning).
func localArchives(st *store.Store) ([]localArchive, []string) {
	var out []localArchive
	var warns []string
	all, err := snapshot.Archives(st.Root())
	if err != nil {
		warns = append(warns, fmt.Sprintf("archives of %s: %v", st.Root(), err))
	}
	for _, a := range all {
		switch {
		case a.Kind == snapshot.KindSnapshot && a.Err != nil:
			warns = append(warns, fmt.Sprintf("compaction snapshot %s of %s: %v", a.Name, st.Root(), a.Err))
		case a.Kind == snapshot.KindSnapshot:
			out = append(out, localArchive{path: a.Path, kind: KindSnapshot, name: a.Name, trigger: a.Snapshot.Trigger, created: a.Snapshot.CreatedAt})
		case a.Kind == store.KindCurrent || a.Kind == store.KindHistory:
			out = append(out, localArchive{path: a.Path, kind: a.Kind, name: a.Name})
		}
	}
	return out, warns
}
