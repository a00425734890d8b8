package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// benchIndex writes an index.json of n realistic entries.
func benchIndex(b *testing.B, n int) (string, []byte) {
	ix := &Index{Version: IndexVersion}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("pre-compact-%s-%06x", t0.Add(time.Duration(i)*time.Hour).Format("20060102-150405"), i)
		ix.Snapshots = append(ix.Snapshots, Snapshot{ID: id, File: id + ".ctx", CreatedAt: t0.Add(time.Duration(i) * time.Hour),
			SessionID: fmt.Sprintf("%06x-2222-4333-8444-555555555555", i), PreCompaction: PreCompaction{180241, 847, 23, 156},
			Trigger: "threshold", Source: "hook", ContentHash: fmt.Sprintf("%064x", i), CompressedBytes: 3 << 20, UncompressedBytes: 12 << 20,
			Level: "best", Tags: []string{}, Transcript: "/home/someone/.claude/projects/-home-someone-src-project/" + fmt.Sprintf("%06x", i) + "-2222-4333-8444-555555555555.jsonl", Harness: "claude"})
	}
	data := ix.Marshal()
	p := filepath.Join(b.TempDir(), "index.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return p, data
}

// BenchmarkParseIndex500 is what `compaction list` pays for the index;
// BenchmarkReadSummary500 what `status --brief` pays, in the same run.
func BenchmarkParseIndex500(b *testing.B) {
	_, data := benchIndex(b, 500)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseIndex(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadSummary500(b *testing.B) {
	p, _ := benchIndex(b, 500)
	for b.Loop() {
		if s, err := ReadSummary(p); err != nil || s.Count != 500 {
			b.Fatal(s, err)
		}
	}
}

// BenchmarkListFromIndex500 is what `compaction list` pays for 500
// snapshots between opening the store and printing: read and decode
// index.json, lay out the table.
func BenchmarkListFromIndex500(b *testing.B) {
	_, data := benchIndex(b, 500)
	st, err := store.Open(b.TempDir(), store.Options{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.EnsureDir(st.SnapshotDir()); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(st.IndexPath(), data, 0o600); err != nil {
		b.Fatal(err)
	}
	m := NewManager(st, nil)
	for b.Loop() {
		ix, err := m.Index()
		if err != nil {
			b.Fatal(err)
		}
		if t := NewListTable(ix, false); len(t.AppendTo(nil)) == 0 {
			b.Fatal("empty table")
		}
	}
}
