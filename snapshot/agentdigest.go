package snapshot

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// AgentDigestDir is the store directory that holds the checkpoints an
// assistant writes itself (the MCP tool session_digest).
const AgentDigestDir = "digests"

// MaxAgentDigest bounds an agent-written checkpoint's text, in
// characters.
const MaxAgentDigest = 20000

// maxAgentDigestFile bounds what is read of a digest file: the text in
// UTF-8 (at most 4 bytes a character) and the header.
const maxAgentDigestFile = 4*MaxAgentDigest + 4096

// agentDigestDomain separates the digests' MAC from every other use of
// the user's key.
const agentDigestDomain = "ben10 agent digest v1"

// AgentDigest is a checkpoint an assistant wrote for its session.
type AgentDigest struct {
	Path    string    `json:"path"`
	Session string    `json:"session,omitempty"`
	Saved   time.Time `json:"saved"`
	Text    string    `json:"text"` // redacted
}

// SaveAgentDigest stores text, the checkpoint an assistant wrote for
// session, in st's digests/ directory: redacted with the project's
// redaction settings, authenticated with k (a MAC over the project, the
// session, the time and the text, verified before a session start offers
// it), 0600, atomically. It returns the digest and the number of secrets
// replaced.
func SaveAgentDigest(st *store.Store, k *archive.AuthKey, session, text string, now time.Time) (AgentDigest, int, error) {
	if k == nil {
		return AgentDigest{}, 0, errors.New("session digest: no authentication key")
	}
	if strings.ContainsAny(session, "\n\r/\\") {
		// It is part of the header and of the file name.
		return AgentDigest{}, 0, fmt.Errorf("session digest: session id %q holds a line break or a path separator", session)
	}
	r, err := st.Config().Redactor()
	if err != nil {
		return AgentDigest{}, 0, fmt.Errorf("session digest: %w", err)
	}
	n := 0
	if r != nil {
		red, report := r.String(text)
		text, n = red, report.Total()
	}
	dir := filepath.Join(st.Root(), AgentDigestDir)
	if err := st.EnsureDir(dir); err != nil {
		return AgentDigest{}, 0, fmt.Errorf("session digest: %w", err)
	}
	now = now.UTC()
	name := "digest-" + now.Format("20060102-150405")
	if session != "" {
		name += "-" + session
	}
	d := AgentDigest{Path: filepath.Join(dir, name+".md"), Session: session, Saved: now, Text: text}
	stamp := now.Format(time.RFC3339Nano)
	tag := hex.EncodeToString(k.Sum(agentDigestDomain, []byte(st.ProjectDir()), []byte(session), []byte(stamp), []byte(text)))
	data := fmt.Sprintf("# Agent checkpoint %s\nsession: %s\nsaved: %s\ntag: %s\n\n%s\n", now.Format(time.RFC3339), session, stamp, tag, text)
	if err := store.WriteFileAtomic(d.Path, []byte(data)); err != nil {
		return AgentDigest{}, 0, fmt.Errorf("session digest: %w", err)
	}
	return d, n, nil
}

// readAgentDigest reads and authenticates the digest file p of project.
func readAgentDigest(p, project string, k *archive.AuthKey) (AgentDigest, error) {
	b, err := store.ReadFileBounded(p, maxAgentDigestFile)
	if err != nil {
		return AgentDigest{}, err
	}
	d := AgentDigest{Path: p}
	head, text, ok := strings.Cut(string(b), "\n\n")
	var stamp, tag string
	for _, line := range strings.Split(head, "\n") {
		if v, ok := strings.CutPrefix(line, "session: "); ok {
			d.Session = v
		} else if v, ok := strings.CutPrefix(line, "saved: "); ok {
			stamp = v
		} else if v, ok := strings.CutPrefix(line, "tag: "); ok {
			tag = v
		}
	}
	if tag == "" {
		return d, archive.ErrNoTag
	}
	if !ok {
		return d, fmt.Errorf("%w: no text", archive.ErrBadTag)
	}
	d.Text = strings.TrimSuffix(text, "\n")
	sum, err := hex.DecodeString(tag)
	if err != nil || !k.Verify(sum, agentDigestDomain, []byte(project), []byte(d.Session), []byte(stamp), []byte(d.Text)) {
		return d, fmt.Errorf("%w: the digest, its session, time or project changed", archive.ErrBadTag)
	}
	if d.Saved, err = time.Parse(time.RFC3339Nano, stamp); err != nil {
		return d, fmt.Errorf("%w: saved time %q", archive.ErrBadTag, stamp)
	}
	return d, nil
}

// AgentDigests returns st's agent-written checkpoints that k
// authenticates, newest first, and those it does not, each with the
// reason. Files that are not digests (links, directories, other names)
// are left out.
func AgentDigests(st *store.Store, k *archive.AuthKey) ([]AgentDigest, []Unauthenticated) {
	dir := filepath.Join(st.Root(), AgentDigestDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var good []AgentDigest
	var bad []Unauthenticated
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), "digest-") || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		d, err := readAgentDigest(p, st.ProjectDir(), k)
		if err != nil {
			bad = append(bad, Unauthenticated{Path: p, Kind: "agent digest", Reason: TrustReason(err)})
			continue
		}
		good = append(good, d)
	}
	slices.SortFunc(good, func(a, b AgentDigest) int { return b.Saved.Compare(a.Saved) })
	return good, bad
}
