package archive

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ben10ctx/ben10/internal/jscan"
)

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// ProjectDir is the directory the session is resumed in (default: the
	// archive's recorded project directory).
	ProjectDir string
	// ConfigDir is Claude Code's configuration directory (default:
	// $CLAUDE_CONFIG_DIR, else ~/.claude).
	ConfigDir string
	// SessionID is the new session id (default: a fresh random UUID).
	SessionID string
	// FromDir is the project directory the transcript's "cwd" values
	// name (Restore: the archive's recorded directory, which an export
	// writes as "~/…"). When it differs from ProjectDir, every top-level
	// "cwd" at or below it is rewritten to the same place under
	// ProjectDir, so the session resumes in the project it is restored
	// into.
	FromDir string
}

// RestoreResult tells where a restored session went.
type RestoreResult struct {
	SessionID    string   `json:"session_id"`
	OldSessionID string   `json:"old_session_id"`
	ProjectDir   string   `json:"project_dir"`
	Dir          string   `json:"transcript_dir"` // <config>/projects/<encoded>
	Files        []string `json:"files"`          // written, main transcript first
	Rewritten    int      `json:"session_ids_rewritten"`
	// DroppedPartial is set when an incomplete last line (the transcript
	// was being written when saved) was left out so the resumed file stays
	// valid JSONL.
	DroppedPartial bool `json:"dropped_partial_line"`
	// MappedCwd counts the "cwd" values rewritten from FromDir to
	// ProjectDir.
	MappedCwd int `json:"cwd_mapped,omitempty"`
	// Dangling counts conversation lines whose parentUuid names no line of
	// the file (0 for an intact chain).
	Dangling int `json:"dangling_parents"`
}

// ErrNotClaude: restore as a resumable session is defined for Claude Code
// archives only.
var ErrNotClaude = errors.New("archive: restore --resume needs a Claude Code archive")

// Restore writes the archive's raw transcript into Claude Code's projects
// folder for opts.ProjectDir under a fresh session id, so that `claude
// --resume <id>` opens the full conversation: the main file becomes
// `<config>/projects/<encoded>/<id>.jsonl`, sidechain files go to
// `<id>/subagents/` beside it, every top-level "sessionId" is rewritten to
// the new id and every other byte is kept (uuid/parentUuid chain
// included). Nothing existing is overwritten (ErrExists).
func (a *Archive) Restore(opts RestoreOptions) (*RestoreResult, error) {
	if h := a.meta.Meta.Harness; h != "" && h != HarnessClaude {
		return nil, fmt.Errorf("%w (archive is %s)", ErrNotClaude, h)
	}
	files, err := a.RawFiles()
	if err != nil {
		return nil, err
	}
	if opts.ProjectDir == "" {
		opts.ProjectDir = a.meta.Meta.DirectoryPath
	}
	if opts.FromDir == "" {
		opts.FromDir = a.meta.Meta.DirectoryPath
	}
	return restoreFiles(files, a.meta.Meta.SessionID, opts)
}

// restoreFiles is Restore over raw files in memory: files[0] is the main
// transcript, the others its sidechain files named "<session>/…".
func restoreFiles(files []RawFile, oldID string, opts RestoreOptions) (*RestoreResult, error) {
	if len(files) == 0 {
		return nil, ErrNoRaw
	}
	if opts.ProjectDir == "" {
		return nil, errors.New("archive: restore: no project directory given and none recorded")
	}
	proj, err := filepath.Abs(opts.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("archive: restore: %w", err)
	}
	if real, err := filepath.EvalSymlinks(proj); err == nil {
		proj = real
	}
	cfg := opts.ConfigDir
	if cfg == "" {
		cfg = os.Getenv("CLAUDE_CONFIG_DIR")
	}
	if cfg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("archive: restore: no home directory: %w", err)
		}
		cfg = filepath.Join(home, ".claude")
	}
	id := opts.SessionID
	if id == "" {
		if id, err = newUUID(); err != nil {
			return nil, err
		}
	} else if !validSessionID(id) {
		return nil, fmt.Errorf("archive: restore: invalid session id %q", id)
	}
	projects := filepath.Join(cfg, "projects")
	dir := filepath.Join(projects, projectDirFor(projects, proj))
	res := &RestoreResult{SessionID: id, OldSessionID: oldID, ProjectDir: proj, Dir: dir}
	out := make([]RawFile, len(files))
	for i, f := range files {
		name := id + ".jsonl"
		if i > 0 {
			rest := f.Name
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				rest = rest[j+1:]
			} else {
				rest = "subagents/" + path.Base(rest)
			}
			name = id + "/" + rest
		}
		data, n, dropped := rewriteSessionID(f.Data, id)
		res.Rewritten += n
		if from := filepath.Clean(opts.FromDir); opts.FromDir != "" && from != proj {
			var m int
			data, m = rewriteCwd(data, from, proj)
			res.MappedCwd += m
		}
		if i == 0 {
			res.DroppedPartial = dropped
			res.Dangling = danglingParents(data)
		} else if dropped {
			res.DroppedPartial = true
		}
		out[i] = RawFile{Name: name, Data: data}
	}
	paths, err := writeFiles(dir, out)
	res.Files = paths
	if err != nil {
		return res, err
	}
	return res, nil
}

func validSessionID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("archive: session id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// rewriteSessionID replaces the value of every top-level "sessionId"
// string member with id, keeping all other bytes (line endings included:
// none is added). Lines that are not JSON objects are kept as they are,
// except an incomplete last line (no line ending and not a JSON object),
// which is dropped.
func rewriteSessionID(data []byte, id string) ([]byte, int, bool) {
	quoted := []byte(strconv.Quote(id))
	return rewriteMember(data, "sessionId", true, func([]byte) ([]byte, bool) { return quoted, true })
}

// rewriteCwd replaces every top-level "cwd" string at or below from
// (a path, or a "~/…" form) by the same place under to, keeping all other
// bytes.
func rewriteCwd(data []byte, from, to string) ([]byte, int) {
	out, n, _ := rewriteMember(data, "cwd", false, func(raw []byte) ([]byte, bool) {
		cwd, ok := JSONString(raw)
		if !ok {
			return nil, false
		}
		rel, err := filepath.Rel(from, filepath.Clean(cwd))
		if err != nil || !filepath.IsLocal(rel) {
			return nil, false
		}
		q, _ := json.Marshal(filepath.Join(to, rel))
		return q, true
	})
	return out, n
}

// rewriteMember replaces, in every line of data that is a JSON object, the
// value of its top-level string member key by what with makes of it (the
// JSON text of the new value; false keeps the line), keeping all other
// bytes, and counts the lines changed. With dropPartial, an incomplete
// last line (no line ending and not a JSON object) is dropped.
func rewriteMember(data []byte, key string, dropPartial bool, with func(raw []byte) ([]byte, bool)) (out []byte, n int, dropped bool) {
	out = make([]byte, 0, len(data))
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0
		if last {
			end = len(data)
		} else {
			end += off + 1
		}
		line := data[off:end]
		off = end
		body := bytes.TrimRight(line, "\r\n")
		top, err := jscan.ParseLine(body)
		if err != nil && dropPartial && last && len(bytes.TrimSpace(body)) > 0 {
			dropped = true
			continue
		}
		var v jscan.Val
		var repl []byte
		ok := false
		if err == nil {
			if v = jscan.Field(body, top, key); v.IsString(body) {
				repl, ok = with(v.Raw(body))
			}
		}
		if !ok {
			out = append(out, line...)
			continue
		}
		out = append(append(append(out, line[:v.S]...), repl...), line[v.E:]...)
		n++
	}
	// No line ending is added: the result is the source byte for byte but
	// for the values replaced (a complete last line without one stays
	// without one).
	return out, n, dropped
}

// danglingParents counts user/assistant/system lines whose parentUuid
// names no uuid present in data.
func danglingParents(data []byte) int {
	uuids := map[string]bool{}
	var parents []string
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		body := bytes.TrimRight(line, "\r")
		top, err := jscan.ParseLine(body)
		if err != nil {
			continue
		}
		if u := jscan.Field(body, top, "uuid"); u.IsString(body) {
			s, _ := JSONString(u.Raw(body))
			uuids[s] = true
		}
		switch t, _ := JSONString(jscan.Field(body, top, "type").Raw(body)); t {
		case "user", "assistant", "system":
			if p := jscan.Field(body, top, "parentUuid"); p.IsString(body) {
				s, _ := JSONString(p.Raw(body))
				parents = append(parents, s)
			}
		}
	}
	n := 0
	for _, p := range parents {
		if !uuids[p] {
			n++
		}
	}
	return n
}

// MaxProjectDirName is the longest encoded project directory name before
// Claude Code truncates it and appends a hash.
const MaxProjectDirName = 200

// ProjectDirName encodes an absolute project path the way Claude Code
// names its folder under ~/.claude/projects: every character that is not
// an ASCII letter or digit becomes '-' (one per UTF-16 code unit, as the
// JavaScript regexp /[^a-zA-Z0-9]/g does); a result longer than 200
// characters is cut to 200 and gets '-' and a hash of the full path
// appended. The hash is the one Claude Code computes under Node.js: the
// 32-bit "djb2" string hash of its utils (h = h*31 + code unit, starting
// at 0, wrapped to int32), absolute value, in base 36. Builds running on
// Bun use Bun.hash (wyhash) instead; Restore therefore reuses an existing
// folder with the same 200-character prefix when there is one.
func ProjectDirName(abs string) string {
	var sb strings.Builder
	for _, r := range abs {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			sb.WriteRune(r)
		case r >= 0x10000:
			sb.WriteString("--")
		default:
			sb.WriteByte('-')
		}
	}
	s := sb.String()
	if len(s) <= MaxProjectDirName {
		return s
	}
	// Claude Code's djb2 over UTF-16 code units, wrapped to int32.
	var h int32
	for _, u := range utf16.Encode([]rune(abs)) {
		h = (h << 5) - h + int32(u)
	}
	return s[:MaxProjectDirName] + "-" + strconv.FormatInt(max(int64(h), -int64(h)), 36)
}

// projectDirFor picks the folder name under projects for proj: the encoded
// name, or, for a truncated name, an existing folder with the same prefix.
func projectDirFor(projects, proj string) string {
	name := ProjectDirName(proj)
	if len(name) <= MaxProjectDirName {
		return name
	}
	if _, err := os.Stat(filepath.Join(projects, name)); err == nil {
		return name
	}
	prefix := name[:MaxProjectDirName+1]
	ents, err := os.ReadDir(projects)
	if err != nil {
		return name
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			return e.Name()
		}
	}
	return name
}
