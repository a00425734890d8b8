package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/store"
)

// maxPreviousCandidates caps how many checkpoints previous opens.
const maxPreviousCandidates = 2

// previous opens the archive of session in m's store to be the base of an
// incremental save (archive.EncodeOptions.Previous), among the latest
// compaction snapshot of the session, the newest checkpoints and
// current.ctx when its metadata names the session. Each candidate is
// opened and checked (container header and index, metadata segment) and
// must name session in its own metadata. The newest one written under the
// redaction configuration whose fingerprint is fp wins (the save copies
// its unchanged raw segments); when none is, the newest one. It returns
// nil when no candidate qualifies; the caller must Close the one returned.
func (m *Manager) previous(session, fp string) *archive.Archive {
	if session == "" {
		return nil
	}
	st, cfg := m.st, m.cfg
	var cands []string
	if s, ok, err := m.LatestForSession(session); err == nil && ok && s.File != "" && filepath.Base(s.File) == s.File {
		cands = append(cands, m.Path(s))
	}
	if cps, err := st.Checkpoints(); err == nil {
		for i := len(cps) - 1; i >= 0 && i >= len(cps)-maxPreviousCandidates; i-- {
			cands = append(cands, cps[i].Path)
		}
	}
	if meta, err := st.ReadMeta(); err == nil && meta.SessionID == session {
		cands = append(cands, st.CurrentPath())
	}
	// Of the candidates of the session, one written under this redaction
	// configuration beats one that is not; among equals the newer wins.
	redacting := cfg.SensitiveRedaction
	var best *archive.Archive
	bestSame := false
	for _, p := range cands {
		a, err := archive.OpenFile(p, OpenOptions(cfg))
		if err != nil {
			continue
		}
		same := a.Redaction().Enabled == redacting && (!redacting || a.RedactionFingerprint() == fp)
		better := best == nil || same && !bestSame || same == bestSame && a.Meta().UpdatedAt.After(best.Meta().UpdatedAt)
		if a.Meta().SessionID != session || !better {
			a.Close()
			continue
		}
		if best != nil {
			best.Close()
		}
		best, bestSame = a, same
	}
	return best
}

// RedactionFingerprint identifies cfg's redaction configuration for
// archive.EncodeOptions.RedactFingerprint: a SHA-256 over the built-in rule
// set and every setting that changes what is redacted or how
// (sensitive_redaction, disabled rules, extra rules, allowlists,
// replacement). "" when redaction is off.
func RedactionFingerprint(cfg *store.Config) string {
	if cfg == nil || !cfg.SensitiveRedaction {
		return ""
	}
	sorted := func(xs []string) []string {
		out := append([]string(nil), xs...)
		sort.Strings(out)
		return out
	}
	v := struct {
		V           int
		Builtin     []redact.Rule
		Disabled    []string
		Allow       []string
		AllowPaths  []string
		Replacement string
		Extra       any
	}{
		V: 1, Builtin: redact.Rules(), Disabled: sorted(cfg.Redaction.DisabledRules), Allow: sorted(cfg.Redaction.Allowlist),
		AllowPaths: sorted(cfg.Redaction.AllowPaths), Replacement: cfg.Redaction.Replacement, Extra: cfg.Redaction.ExtraRules,
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
