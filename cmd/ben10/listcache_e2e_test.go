package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// TestCompactionListCache: `compaction list` prints the same bytes from
// the listing cache as from index.json, and falls back to index.json when
// the cache is missing, damaged or stale.
func TestCompactionListCache(t *testing.T) {
	p := newProject(t, 0)
	for i := 0; i < 3; i++ {
		p.run(t, "context", "compaction", "snapshot", "--force", "--session", []string{"abc123-x", "abc123-y", "def456"}[i])
	}
	var ix snapshot.Index
	p.runJSON(t, &ix, "context", "compaction", "list")
	if len(ix.Snapshots) < 2 {
		t.Fatalf("%d snapshots, want at least 2", len(ix.Snapshots))
	}
	p.run(t, "context", "compaction", "pin", ix.Snapshots[0].ID)
	cache := filepath.Join(p.dir, ".claude", "context", store.SnapshotsName, snapshot.ListCacheName)
	outputs := func() [3]string {
		return [3]string{
			p.run(t, "context", "compaction", "list").stdout,
			p.run(t, "context", "compaction", "list", "-v").stdout,
			p.run(t, "context", "compaction", "list", "--json").stdout,
		}
	}
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no listing cache after pin: %v", err)
	}
	cached := outputs()
	if !strings.Contains(cached[0], "📌") || !strings.Contains(cached[0], "Total: ") || !strings.Contains(cached[1], "Trigger") {
		t.Fatalf("list output:\n%s\n%s", cached[0], cached[1])
	}
	for name, data := range map[string][]byte{"missing": nil, "damaged": []byte(strings.Replace(string(good), "\t", " ", 2))} {
		if data == nil {
			os.Remove(cache)
		} else {
			os.WriteFile(cache, data, 0o600)
		}
		if got := outputs(); got != cached {
			t.Fatalf("%s cache: output differs from the cached one:\n%s\nwant:\n%s", name, strings.Join(got[:], "\n"), strings.Join(cached[:], "\n"))
		}
	}
	// Stale: index.json edited by hand (the pin removed) after the cache
	// was written; list shows the edit.
	os.WriteFile(cache, good, 0o600)
	idx := filepath.Join(p.dir, ".claude", "context", store.SnapshotsName, store.IndexName)
	data, _ := os.ReadFile(idx)
	edited := strings.Replace(string(data), `"pinned":true`, `"pinned":false`, 1)
	if edited == string(data) {
		t.Fatalf("index.json has no pinned entry:\n%s", data)
	}
	os.WriteFile(idx+".tmp", []byte(edited), 0o600)
	os.Rename(idx+".tmp", idx)
	if out := p.run(t, "context", "compaction", "list").stdout; strings.Contains(out, "📌") {
		t.Fatalf("stale cache shown after index.json changed:\n%s", out)
	}
}
