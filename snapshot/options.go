package snapshot

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/store"
)

// ErrNoKey: encryption is enabled (or the archive is encrypted) but the
// configured key source gave no key.
var ErrNoKey = errors.New("snapshot: encryption key not available")

// Redactions counts what the redaction hooks of one encode changed, per
// rule: the lines this encode redacted, not those an incremental save
// copied from the archive it built on (the archive's totals are in its
// archive.RedactionReport.Rules). It is safe for concurrent use (the encoder may call the hooks from
// several goroutines).
type Redactions struct {
	mu     sync.Mutex
	report redact.Report
}

func (r *Redactions) add(rep redact.Report) {
	if rep.Total() == 0 {
		return
	}
	r.mu.Lock()
	r.report.Merge(rep)
	r.mu.Unlock()
}

// Counts returns the number of redactions per rule id.
func (r *Redactions) Counts() map[string]int {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.report.Counts))
	maps.Copy(out, r.report.Counts)
	return out
}

// Total is the number of secrets replaced.
func (r *Redactions) Total() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.report.Total()
}

// ExcludePatterns are the patterns whose file contents are never captured:
// context.exclude_patterns plus redact.DefaultExcludePatterns (secrets files
// are kept out even when the user's list forgets them).
func ExcludePatterns(cfg *store.Config) []string {
	var own []string
	if cfg != nil {
		own = cfg.ExcludePatterns
	}
	return union(own, redact.DefaultExcludePatterns())
}

// union is a followed by the elements of b it lacks, without duplicates,
// in order (nil when both are empty).
func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range slices.Concat(a, b) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Key returns the encryption secret configured in context.encryption:
// a passphrase (env or passphrase-file) or a raw key (keyfile). ok is false
// when encryption is disabled; an enabled configuration whose key cannot be
// read is an error wrapping ErrNoKey.
func Key(cfg *store.Config) (enc *ctxfmt.Encryption, ok bool, err error) {
	if cfg == nil || !cfg.Encryption.Enabled {
		return nil, false, nil
	}
	e := cfg.Encryption
	switch e.KeySource {
	case "", "env":
		name := cmp.Or(e.Env, "BEN10_PASSPHRASE")
		v := os.Getenv(name)
		if v == "" {
			return nil, false, fmt.Errorf("%w: context.encryption.key_source is env but $%s is empty", ErrNoKey, name)
		}
		return &ctxfmt.Encryption{Passphrase: []byte(v)}, true, nil
	case "passphrase-file":
		b, err := os.ReadFile(e.PassphraseFile)
		if err != nil {
			return nil, false, fmt.Errorf("%w: context.encryption.passphrase_file: %w", ErrNoKey, err)
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(b) == 0 {
			return nil, false, fmt.Errorf("%w: %s: empty first line", ErrNoKey, e.PassphraseFile)
		}
		return &ctxfmt.Encryption{Passphrase: b}, true, nil
	case "keyfile":
		b, err := os.ReadFile(e.KeyFile)
		if err != nil {
			return nil, false, fmt.Errorf("%w: context.encryption.key_file: %w", ErrNoKey, err)
		}
		if len(b) != 32 {
			return nil, false, fmt.Errorf("%w: %s holds %d bytes, a raw key is 32", ErrNoKey, e.KeyFile, len(b))
		}
		return &ctxfmt.Encryption{Key: b}, true, nil
	}
	return nil, false, fmt.Errorf("%w: unknown context.encryption.key_source %q", ErrNoKey, e.KeySource)
}

// OpenOptions are the archive.OpenOptions that read archives written with
// cfg's encryption (empty when encryption is off or its key is missing:
// plain archives open either way). With encryption on and its key at
// hand, a plaintext archive is refused (archive.ErrPlaintext): the user's
// own archives are encrypted, so one in clear came from elsewhere.
func OpenOptions(cfg *store.Config) archive.OpenOptions {
	enc, ok, err := Key(cfg)
	if !ok || err != nil {
		if p := os.Getenv("BEN10_PASSPHRASE"); p != "" {
			return archive.OpenOptions{Passphrase: []byte(p)}
		}
		return archive.OpenOptions{}
	}
	return archive.OpenOptions{Passphrase: enc.Passphrase, Key: enc.Key, RequireEncryption: true}
}

// EncodeOptions builds the archive encoder options from the configuration:
// zstd at level, redaction hooks (counted in the returned Redactions) when
// sensitive_redaction is on, and encryption when enabled. A nil cfg means
// the defaults.
func EncodeOptions(cfg *store.Config, level ctxfmt.Level) (archive.EncodeOptions, *Redactions, error) {
	if cfg == nil {
		cfg = store.DefaultConfig()
	}
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: level}
	if !cfg.Compression {
		opts.Codec = ctxfmt.CodecNone
	}
	enc, ok, err := Key(cfg)
	if err != nil {
		return opts, nil, err
	}
	if ok {
		opts.Encryption = enc
	}
	counts := &Redactions{}
	r, err := cfg.Redactor()
	if err != nil {
		return opts, nil, err
	}
	if r != nil {
		opts.RedactFingerprint = RedactionFingerprint(cfg)
		opts.RedactLine = func(line []byte) []byte {
			out, rep := r.JSONLine(line)
			counts.add(rep)
			return out
		}
		opts.RedactCount = func(line []byte) map[string]int {
			_, rep := r.JSONLine(line)
			return rep.Counts
		}
		if len(cfg.Redaction.AllowPaths) > 0 {
			opts.KeepContents = r.PathAllowed
		}
		opts.RedactText = func(s string) string {
			// Every inline text comes from a raw line whose secrets
			// were already counted there.
			out, _ := r.String(s)
			return out
		}
	}
	return opts, counts, nil
}
