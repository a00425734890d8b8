package snapshot

import (
	"bytes"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
)

// Stripper removes user-specific data from what goes into a portable
// export (.ctxpkg): the absolute home directory becomes "~" (also in its
// JSON-escaped form, where a Windows path's backslashes are doubled), and
// the user name, where it appears as the directory under /home/, /Users/
// or C:\Users\, becomes "user". Other text is left alone: a user name is
// often an ordinary word, so it is not replaced elsewhere.
type Stripper struct {
	home    [][]byte
	userRe  *regexp.Regexp
	Changed atomic.Int64 // lines or texts changed
}

// NewStripper builds a Stripper for home and username ("" = the current
// user's).
func NewStripper(home, username string) *Stripper {
	if username == "" {
		if u, err := user.Current(); err == nil {
			username = u.Username
			if i := strings.LastIndexAny(username, `\/`); i >= 0 {
				username = username[i+1:] // DOMAIN\name on Windows
			}
		}
	}
	s := &Stripper{}
	home = strings.TrimRight(home, `/\`)
	if home != "" && home != "." && filepath.IsAbs(home) {
		s.home = append(s.home, []byte(home))
		if strings.Contains(home, `\`) {
			s.home = append(s.home, []byte(strings.ReplaceAll(home, `\`, `\\`)))
		}
	}
	if username != "" {
		s.userRe = regexp.MustCompile(`(/home/|/Users/|(?i:[a-z]:)?(?:\\\\|\\)Users(?:\\\\|\\))` + regexp.QuoteMeta(username) + `\b`)
	}
	return s
}

// Bytes strips b; it returns b itself when nothing changed.
func (s *Stripper) Bytes(b []byte) []byte {
	out := b
	for _, h := range s.home {
		if bytes.Contains(out, h) {
			out = replaceHome(out, h)
		}
	}
	if s.userRe != nil && s.userRe.Match(out) {
		out = s.userRe.ReplaceAll(out, []byte("${1}user"))
	}
	if !bytes.Equal(out, b) {
		s.Changed.Add(1)
		return out
	}
	return b
}

// replaceHome replaces h with "~" where it is a whole path prefix (followed
// by a separator, a quote or the end), so /home/al does not match /home/alice.
func replaceHome(b, h []byte) []byte {
	var out []byte
	rest := b
	for {
		i := bytes.Index(rest, h)
		if i < 0 {
			return append(out, rest...)
		}
		j := i + len(h)
		if j == len(rest) || strings.IndexByte(`/\"' :;,)]}`+"\n\t", rest[j]) >= 0 {
			out = append(append(out, rest[:i]...), '~')
		} else {
			out = append(out, rest[:j]...)
		}
		rest = rest[j:]
	}
}

// String is Bytes for a string.
func (s *Stripper) String(t string) string {
	return string(s.Bytes([]byte(t)))
}
