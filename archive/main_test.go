package archive_test

import (
	"os"
	"testing"

	"github.com/ben10ctx/ben10/internal/hostile"
)

// TestMain removes the hostile corpus the tests share (hostile.Shared)
// once they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	hostile.RemoveShared()
	os.Exit(code)
}
