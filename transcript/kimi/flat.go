package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ben10ctx/ben10/archive"
)

// The older flat layout (Kimi CLI before its per-session directories):
//
//	<share>/sessions/<md5(workdir)>/<session-id>.jsonl          the context
//	<share>/sessions/<md5(workdir)>/<session-id>_read_N.jsonl   a subagent's context
//
// Each file holds context.jsonl lines. The raw files keep their own names
// ("<session-id>.jsonl", "<session-id>_read_1.jsonl").

var flatRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9A-Za-z][0-9A-Za-z-]{7,63})(?:_read_([0-9]{1,6}))?\.jsonl$`)
})

// flatName splits a flat-layout file name into the session id and the
// subagent number ("" for the session's own context).
func flatName(base string) (id, n string, ok bool) {
	if base == "context.jsonl" || base == "wire.jsonl" || strings.HasPrefix(base, "context_") {
		return "", "", false
	}
	m := flatRe().FindStringSubmatch(base)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// flatSession reports whether path is a file of the flat layout: a
// "<id>.jsonl" or "<id>_read_N.jsonl" directly in a sessions/<md5> folder.
func flatSession(path string) (id, dir string, ok bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", "", false
	}
	id, _, ok = flatName(filepath.Base(path))
	if !ok || !hashRe().MatchString(filepath.Base(filepath.Dir(path))) {
		return "", "", false
	}
	return id, filepath.Dir(path), true
}

// importFlat reads the flat-layout session id of folder dir.
func importFlat(ctx context.Context, dir, id string, opt archive.ImportOptions) (*archive.State, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	srcs := []source{{filepath.Join(abs, id+".jsonl"), id + ".jsonl"}}
	if !opt.NoSubagents {
		m, _ := filepath.Glob(filepath.Join(abs, id+"_read_*.jsonl"))
		sort.Slice(m, func(i, j int) bool { return readNumber(m[i]) < readNumber(m[j]) })
		for _, p := range m {
			if len(srcs) >= MaxSessionFiles {
				break
			}
			if _, n, ok := flatName(filepath.Base(p)); ok && n != "" {
				srcs = append(srcs, source{p, filepath.Base(p)})
			}
		}
	}
	files, err := readFiles(ctx, srcs)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 || files[0].Name != srcs[0].name {
		return nil, fmt.Errorf("kimi: %s: %w", srcs[0].path, ErrNoContext)
	}
	return finishImport(ctx, files, filepath.Join(abs, id), opt)
}

// readNumber is N of "<id>_read_N.jsonl" (for ordering).
func readNumber(p string) int {
	_, n, _ := flatName(filepath.Base(p))
	v, _ := strconv.Atoi(n)
	return v
}

// FlatFile reports whether path is a session of the flat layout (its
// "<id>.jsonl", or a subagent's "<id>_read_N.jsonl") and its session id.
func FlatFile(path string) (id string, ok bool) {
	id, _, ok = flatSession(path)
	return id, ok
}
