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

// maxPreviousCandidates caps how many checkpoints Previous opens.
const maxPreviousCandidates = 2

// Previous opens the archive of session in m's store to be the base of an
// incremental save (archive.EncodeOptions.Previous), among the latest
// compaction snapshot of the session, the newest checkpoints and
// current.ctx when its metadata names the session. Each candidate is
// opened and checked (container header and index, metadata segment) and
// must name session in its own metadata. The newest one that carries an
// importer resume state written under the current redaction
// configuration wins; when none does, the newest one. An archive written
// at the max level (a snapshot recompressed after the PreCompact hook, a
// watcher snapshot) has no resume state: building on it imports the whole
// transcript again, while an older checkpoint's resume state lets the
// importer read only what was added since (the save checks that the
// transcript still starts with what that archive holds, and imports in
// full otherwise). It returns nil when no candidate qualifies; the caller
// must Close the one returned.
func (m *Manager) Previous(session string) *archive.Archive {
	return m.previous(session, RedactionFingerprint(m.cfg))
}

// previous is Previous with the configuration's redaction fingerprint fp
// already computed.
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
	oo := OpenOptions(cfg)
	redacting := cfg.SensitiveRedaction
	// newest: the newest candidate; resumable: the newest with a resume
	// state for this configuration.
	var newest, resumable *archive.Archive
	newer := func(a, than *archive.Archive) bool {
		return than == nil || a.Meta().UpdatedAt.After(than.Meta().UpdatedAt)
	}
	for _, p := range cands {
		if p == "" {
			continue
		}
		a, err := archive.OpenFile(p, oo)
		if err != nil {
			continue
		}
		if a.Meta().SessionID != session {
			a.Close()
			continue
		}
		kept := false
		if hasResumeState(a, redacting, fp) && newer(a, resumable) {
			if resumable != nil && resumable != newest {
				resumable.Close()
			}
			resumable, kept = a, true
		}
		if newer(a, newest) {
			if newest != nil && newest != resumable {
				newest.Close()
			}
			newest, kept = a, true
		}
		if !kept {
			a.Close()
		}
	}
	if resumable != nil {
		if newest != resumable {
			newest.Close()
		}
		return resumable
	}
	return newest
}

// hasResumeState reports whether a carries an importer resume state that a
// save under the current redaction configuration (redacting, with
// fingerprint fp) can resume from. Only the container index and the
// metadata are looked at.
func hasResumeState(a *archive.Archive, redacting bool, fp string) bool {
	if _, ok := a.Source(); !ok || len(a.Container().Find(archive.TypeResumeState)) == 0 {
		return false
	}
	if a.Redaction().Enabled != redacting {
		return false
	}
	return !redacting || a.RedactionFingerprint() == fp
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
