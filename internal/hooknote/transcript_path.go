package hooknote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrTranscriptPath: the hook input's transcript_path is not a Claude Code
// transcript Ben10 may read — outside Claude Code's projects directory, or
// not a regular file (a link, a FIFO, a device, a directory). Hook input
// comes from Claude Code, but a hook must not archive /etc/shadow or hang
// on a FIFO because the input names one.
var ErrTranscriptPath = errors.New("hook: transcript_path refused")

// transcriptRoots are the directories Claude Code keeps transcripts in:
// $CLAUDE_CONFIG_DIR/projects when set, and ~/.claude/projects.
func (e *Env) transcriptRoots() []string {
	var roots []string
	if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		roots = append(roots, filepath.Join(d, "projects"))
	}
	if home := e.HomeDir(); home != "" {
		roots = append(roots, filepath.Join(home, ".claude", "projects"))
	}
	return roots
}

// CheckTranscriptPath accepts p when it is an absolute path inside one of
// Claude Code's projects directories (links in the directories above it
// resolved) and is either missing (Claude Code creates it with the first
// message) or a regular file that is not itself a link. It stats, never
// opens, so a FIFO cannot block it.
func (e *Env) CheckTranscriptPath(p string) error {
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%w: %q is not an absolute path", ErrTranscriptPath, p)
	}
	p = filepath.Clean(p)
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing to read yet
		}
		return fmt.Errorf("%w: %s: %w", ErrTranscriptPath, p, err)
	}
	inside := false
	roots := e.transcriptRoots()
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if rel, err := filepath.Rel(r, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			inside = true
			break
		}
	}
	if !inside {
		return fmt.Errorf("%w: %s is outside Claude Code's projects directory (%s)", ErrTranscriptPath, p, strings.Join(roots, ", "))
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTranscriptPath, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file (%s)", ErrTranscriptPath, p, fi.Mode().Type())
	}
	return nil
}
