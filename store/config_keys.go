package store

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

type valueKind int

const (
	kindScalar  valueKind = iota // bool, int, duration, enum: parsed as YAML
	kindString                   // free text: taken literally from the command line
	kindList                     // sequence
	kindObjects                  // sequence of mappings
)

// keySpec is one configuration key: how to parse, validate, store and
// read it.
type keySpec struct {
	key     string
	kind    valueKind
	allowed string
	help    string
	apply   func(c *Config, n *yaml.Node) error
	get     func(c *Config) any
}

var (
	specs     = map[string]*keySpec{}
	specOrder []string
	// groups are the mapping keys that hold other keys.
	groups = map[string]bool{"compaction_snapshots": true, "encryption": true, "recovery": true, "redaction": true}
)

func register(s *keySpec) {
	specs[s.key] = s
	specOrder = append(specOrder, s.key)
}

func groupKeys(g string) []string {
	var out []string
	for _, k := range specOrder {
		if rest, ok := strings.CutPrefix(k, g+"."); ok {
			out = append(out, rest)
		}
	}
	return out
}

func scalar(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errors.New("expected a single value")
	}
	if n.Tag == "!!null" {
		return "", errors.New("value is empty")
	}
	return n.Value, nil
}

func boolKey(key, help string, f func(*Config) *bool) {
	register(&keySpec{key: key, kind: kindScalar, allowed: "true, false", help: help,
		apply: func(c *Config, n *yaml.Node) error {
			v, err := scalar(n)
			if err != nil {
				return err
			}
			if n.Tag != "!!bool" {
				return errors.New("not a boolean")
			}
			b, err := strconv.ParseBool(strings.ToLower(v))
			if err != nil {
				return errors.New("not a boolean")
			}
			*f(c) = b
			return nil
		},
		get: func(c *Config) any { return *f(c) }})
}

func intKey(key, help string, lo, hi int, f func(*Config) *int) {
	register(&keySpec{key: key, kind: kindScalar, allowed: fmt.Sprintf("an integer from %d to %d", lo, hi), help: help,
		apply: func(c *Config, n *yaml.Node) error {
			v, err := scalar(n)
			if err != nil {
				return err
			}
			i, err := strconv.Atoi(v)
			if err != nil || n.Tag != "!!int" {
				return errors.New("not an integer")
			}
			if i < lo || i > hi {
				return errors.New("out of range")
			}
			*f(c) = i
			return nil
		},
		get: func(c *Config) any { return *f(c) }})
}

func durKey(key, help string, lo, hi time.Duration, f func(*Config) *time.Duration) {
	allowed := fmt.Sprintf("a duration from %s to %s, such as 500ms, 2s, 5m, 4h", FormatDuration(lo), FormatDuration(hi))
	register(&keySpec{key: key, kind: kindString, allowed: allowed, help: help,
		apply: func(c *Config, n *yaml.Node) error {
			v, err := scalar(n)
			if err != nil {
				return err
			}
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return errors.New("not a duration (a number needs a unit)")
			}
			if d < lo || d > hi {
				return errors.New("out of range")
			}
			*f(c) = d
			return nil
		},
		get: func(c *Config) any { return *f(c) }})
}

func enumKey(key, help string, vals []string, f func(*Config) *string) {
	register(&keySpec{key: key, kind: kindString, allowed: strings.Join(vals, ", "), help: help,
		apply: func(c *Config, n *yaml.Node) error {
			v, err := scalar(n)
			if err != nil {
				return err
			}
			for _, a := range vals {
				if v == a {
					*f(c) = v
					return nil
				}
			}
			return errors.New("not one of the allowed values")
		},
		get: func(c *Config) any { return *f(c) }})
}

func strKey(key, help, allowed string, check func(string) error, f func(*Config) *string) {
	register(&keySpec{key: key, kind: kindString, allowed: allowed, help: help,
		apply: func(c *Config, n *yaml.Node) error {
			v, err := scalar(n)
			if err != nil {
				return err
			}
			if check != nil {
				if err := check(v); err != nil {
					return err
				}
			}
			*f(c) = v
			return nil
		},
		get: func(c *Config) any { return *f(c) }})
}

// listKey: a sequence of strings; null or [] is the empty list.
func listKey(key, help, allowed string, check func(string) error, f func(*Config) *[]string) {
	register(&keySpec{key: key, kind: kindList, allowed: allowed, help: help,
		apply: func(c *Config, n *yaml.Node) error {
			out, err := stringList(n, check)
			if err != nil {
				return err
			}
			*f(c) = out
			return nil
		},
		get: func(c *Config) any { return append([]string{}, *f(c)...) }})
}

// itemError is a problem with one element of a list value: it carries
// the element's line and text so the error points at the element.
type itemError struct {
	line  int
	value string
	err   error
}

func (e *itemError) Error() string { return e.err.Error() }
func (e *itemError) Unwrap() error { return e.err }

func itemErr(n *yaml.Node, format string, args ...any) error {
	return &itemError{line: n.Line, value: nodeText(n), err: fmt.Errorf(format, args...)}
}

func stringList(n *yaml.Node, check func(string) error) ([]string, error) {
	out := []string{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return out, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("expected a list")
	}
	for _, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			return nil, itemErr(e, "list items must be plain values")
		}
		if e.Value == "" {
			return nil, itemErr(e, "empty list item")
		}
		if check != nil {
			if err := check(e.Value); err != nil {
				return nil, itemErr(e, "list item %q: %w", e.Value, err)
			}
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func checkGlob(p string) error {
	if _, err := path.Match(p, ""); err != nil {
		return errors.New("malformed glob pattern")
	}
	return nil
}

func checkRegex(p string) error {
	if len(p) > 4096 {
		return errors.New("regular expression longer than 4096 bytes")
	}
	if _, err := regexp.Compile(p); err != nil {
		return err
	}
	return nil
}

var ruleIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

func checkRuleID(id string) error {
	if !ruleIDRe().MatchString(id) {
		return errors.New("rule ids are 1-64 letters, digits, '-', '_' or '.'")
	}
	return nil
}

func checkNonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

func extraRules(c *Config, n *yaml.Node) error {
	out := []ExtraRule{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		c.Redaction.ExtraRules = out
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return errors.New("expected a list of rules")
	}
	ids := map[string]bool{}
	for _, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.MappingNode {
			return itemErr(e, "each rule is a mapping with id, regex and optional keywords")
		}
		var r ExtraRule
		var regexNode *yaml.Node
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], resolve(e.Content[i+1])
			switch k.Value {
			case "id", "regex":
				s, err := scalar(v)
				if err != nil {
					return itemErr(v, "%s: %w", k.Value, err)
				}
				if k.Value == "id" {
					r.ID = s
				} else {
					r.Regex, regexNode = s, v
				}
			case "keywords":
				kw, err := stringList(v, nil)
				if err != nil {
					return err
				}
				r.Keywords = kw
			default:
				return itemErr(k, "unknown rule field %q (id, regex, keywords)", k.Value)
			}
		}
		if err := checkRuleID(r.ID); err != nil {
			return itemErr(e, "rule id %q: %w", r.ID, err)
		}
		if ids[r.ID] {
			return itemErr(e, "duplicate rule id %q", r.ID)
		}
		ids[r.ID] = true
		if r.Regex == "" {
			return itemErr(e, "rule %q has no regex", r.ID)
		}
		if err := checkRegex(r.Regex); err != nil {
			return itemErr(regexNode, "rule %q: %w", r.ID, err)
		}
		out = append(out, r)
	}
	c.Redaction.ExtraRules = out
	return nil
}

func init() {
	boolKey("auto_save", "save the context automatically", func(c *Config) *bool { return &c.AutoSave })
	boolKey("auto_restore", "offer the saved context at session start", func(c *Config) *bool { return &c.AutoRestore })
	intKey("checkpoint_interval", "messages between checkpoints", 1, 1_000_000, func(c *Config) *int { return &c.CheckpointInterval })
	strKey("storage_location", "store directory: relative to the project, absolute, or ~/…", "a directory path",
		checkNonEmpty, func(c *Config) *string { return &c.StorageLocation })
	intKey("max_storage_mb", "context storage limit (current, checkpoints, history)", 1, 1<<20, func(c *Config) *int { return &c.MaxStorageMB })
	intKey("history_retention_count", "ended sessions kept in history/", 1, 10_000, func(c *Config) *int { return &c.HistoryRetentionCount })
	intKey("checkpoint_retention_days", "checkpoints older than this are removed", 1, 36_500, func(c *Config) *int { return &c.CheckpointRetentionDays })

	boolKey("compaction_snapshots.enabled", "snapshot the context before each compaction", func(c *Config) *bool { return &c.CompactionSnapshots.Enabled })
	intKey("compaction_snapshots.retention_count", "most recent snapshots kept", 1, 100_000, func(c *Config) *int { return &c.CompactionSnapshots.RetentionCount })
	intKey("compaction_snapshots.retention_days", "snapshots older than this are pruned", 1, 36_500, func(c *Config) *int { return &c.CompactionSnapshots.RetentionDays })
	intKey("compaction_snapshots.max_storage_mb", "snapshot archive limit", 1, 1<<20, func(c *Config) *int { return &c.CompactionSnapshots.MaxStorageMB })
	intKey("compaction_snapshots.compression_level", "zstd level for snapshots", 1, 22, func(c *Config) *int { return &c.CompactionSnapshots.CompressionLevel })
	boolKey("compaction_snapshots.include_file_contents", "keep full file contents, not just references", func(c *Config) *bool { return &c.CompactionSnapshots.IncludeFileContents })
	boolKey("compaction_snapshots.notify_on_snapshot", "say when a snapshot was taken", func(c *Config) *bool { return &c.CompactionSnapshots.NotifyOnSnapshot })

	enumKey("default_restore_mode", "what restore brings back by default", []string{"full", "summary", "selective"}, func(c *Config) *string { return &c.DefaultRestoreMode })
	boolKey("reconcile_on_restore", "check tracked files for changes on restore", func(c *Config) *bool { return &c.ReconcileOnRestore })
	listKey("exclude_patterns", "files whose contents are never captured", "a list of glob patterns", checkGlob, func(c *Config) *[]string { return &c.ExcludePatterns })
	boolKey("sensitive_redaction", "redact detected secrets", func(c *Config) *bool { return &c.SensitiveRedaction })
	boolKey("compression", "compress archives", func(c *Config) *bool { return &c.Compression })
	boolKey("lazy_restore", "load context components on demand", func(c *Config) *bool { return &c.LazyRestore })

	boolKey("encryption.enabled", "encrypt archives at rest (AES-256-GCM)", func(c *Config) *bool { return &c.Encryption.Enabled })
	enumKey("encryption.key_source", "where the key comes from", []string{"env", "passphrase-file", "keyfile"}, func(c *Config) *string { return &c.Encryption.KeySource })
	strKey("encryption.env", "environment variable holding the passphrase", "an environment variable name",
		func(s string) error {
			if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(s) {
				return errors.New("not a valid environment variable name")
			}
			return nil
		}, func(c *Config) *string { return &c.Encryption.Env })
	strKey("encryption.passphrase_file", "file holding the passphrase", "a file path", nil, func(c *Config) *string { return &c.Encryption.PassphraseFile })
	strKey("encryption.key_file", "file holding a raw 32-byte key", "a file path", nil, func(c *Config) *string { return &c.Encryption.KeyFile })

	intKey("recovery.compact_digest_chars", "size of the digest injected after compaction", 500, 1_000_000, func(c *Config) *int { return &c.Recovery.CompactDigestChars })
	intKey("recovery.startup_digest_chars", "size of the digest injected at session start (0: none)", 0, 1_000_000, func(c *Config) *int { return &c.Recovery.StartupDigestChars })
	durKey("recovery.startup_max_age", "saved contexts older than this are not injected at start", 0, 365*24*time.Hour, func(c *Config) *time.Duration { return &c.Recovery.StartupMaxAge })
	durKey("snapshot_debounce", "a session's second snapshot within this replaces its first", 0, 24*time.Hour, func(c *Config) *time.Duration { return &c.SnapshotDebounce })
	durKey("lock_timeout", "how long a writer waits for the store lock", 10*time.Millisecond, 10*time.Minute, func(c *Config) *time.Duration { return &c.LockTimeout })
	intKey("checkpoint_minutes", "minutes between time-based checkpoints (0: off)", 0, 1440, func(c *Config) *int { return &c.CheckpointMinutes })

	listKey("redaction.disabled_rules", "built-in redaction rules turned off", "a list of rule ids", checkRuleID, func(c *Config) *[]string { return &c.Redaction.DisabledRules })
	register(&keySpec{key: "redaction.extra_rules", kind: kindObjects, help: "user redaction rules",
		allowed: "a list of {id, regex, keywords}", apply: extraRules,
		get: func(c *Config) any { return append([]ExtraRule{}, c.Redaction.ExtraRules...) }})
	listKey("redaction.allowlist", "values matching these regular expressions are never redacted", "a list of regular expressions", checkRegex, func(c *Config) *[]string { return &c.Redaction.Allowlist })
	listKey("redaction.allow_paths", "files matching these globs are never redacted", "a list of glob patterns", checkGlob, func(c *Config) *[]string { return &c.Redaction.AllowPaths })
	strKey("redaction.replacement", "replacement text; <rule-id> becomes the rule's id", "non-empty text", checkNonEmpty, func(c *Config) *string { return &c.Redaction.Replacement })
}
