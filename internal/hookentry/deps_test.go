package hookentry

import (
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/e2e"
)

// TestHookPathLinksNoDatabase: `ben10 hook` exits from this package's
// initialisation, and Go initialises a package's dependencies first and
// otherwise packages in import-path order. So what this package does not
// depend on (the index's SQLite, S3, the MCP SDK, the web UI, the command
// tree) is never initialised on a hook. Keep it that way: the save paths
// note archives through internal/indexnotes, not package index.
func TestHookPathLinksNoDatabase(t *testing.T) {
	deps := e2e.Deps(t)
	for _, d := range deps {
		for _, banned := range []string{
			"modernc.org/sqlite", "github.com/minio/", "github.com/modelcontextprotocol/", "github.com/spf13/cobra",
			"github.com/ben10ctx/ben10/index", "github.com/ben10ctx/ben10/mcp", "github.com/ben10ctx/ben10/web", "github.com/ben10ctx/ben10/remote",
		} {
			if d == banned || strings.HasPrefix(d, banned+"/") || (strings.HasSuffix(banned, "/") && strings.HasPrefix(d, banned)) {
				t.Errorf("the hook entry depends on %s", d)
			}
		}
	}
}
