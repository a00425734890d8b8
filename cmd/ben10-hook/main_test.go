package main

import (
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/e2e"
)

// TestShimLinksLight: the shim's start-up is what Claude Code waits for on
// every hook event, and a Go program initialises every package it links.
// It links the standard library, package store and internal helpers only
// (internal/recall renders a prepared recall; redact, standard library
// only and compiling a rule's expression when its keyword is first met,
// redacts a PostCompact summary: linking it adds no measurable start-up):
// none of the archive format, compressors, importers,
// search index, S3, MCP, web UI or command tree (package hook itself
// links them, which is why the take-note code lives in internal/hooknote).
func TestShimLinksLight(t *testing.T) {
	deps := e2e.Deps(t)
	const mod = "github.com/ben10ctx/ben10/"
	allowed := map[string]bool{mod + "store": true, mod + "internal/hooknote": true, mod + "internal/hookfast": true,
		mod + "internal/jscan": true, mod + "internal/hookstart": true, mod + "internal/recall": true, mod + "redact": true, mod + "cmd/ben10-hook": true}
	for _, d := range deps {
		switch {
		case strings.HasPrefix(d, mod) && !allowed[d]:
			t.Errorf("the shim links %s", d)
		case strings.Contains(strings.SplitN(d, "/", 2)[0], ".") && !strings.HasPrefix(d, mod) &&
			d != "go.yaml.in/yaml/v3" && !strings.HasPrefix(d, "golang.org/x/sys/"):
			t.Errorf("the shim links the module package %s", d)
		}
	}
}
