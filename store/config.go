package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"
)

// DefaultStorageLocation is context.storage_location's default.
const DefaultStorageLocation = ".claude/context"

// MaxConfigBytes bounds a configuration file; larger files are refused.
const MaxConfigBytes = 1 << 20

// Layers a configuration value can come from, lowest precedence first.
const (
	LayerDefault = "default"
	LayerUser    = "user"
	LayerProject = "project"
	LayerFlag    = "flag"
)

// Config is the effective configuration: every key of the PRD's
// `context:` section (FR-5.2) plus Ben10's own. A field's json tag is its
// key (nested structs are groups: "compaction_snapshots.enabled"), and
// its other tags say which values are allowed (config_keys.go): range
// (inclusive bounds of an integer or duration), enum (the allowed
// strings), check (a validation of each string) and allowed (the
// description of the accepted values an error shows).
type Config struct {
	AutoSave                bool             `json:"auto_save"`                                                    // save the context automatically
	AutoRestore             bool             `json:"auto_restore"`                                                 // offer the saved context at session start
	CheckpointInterval      int              `json:"checkpoint_interval" range:"1,1000000"`                        // messages between checkpoints
	StorageLocation         string           `json:"storage_location" check:"nonempty" allowed:"a directory path"` // store directory: relative to the project, absolute, or ~/…
	MaxStorageMB            int              `json:"max_storage_mb" range:"1,1048576"`                             // context storage limit (current, checkpoints, history)
	HistoryRetentionCount   int              `json:"history_retention_count" range:"1,10000"`                      // ended sessions kept in history/
	CheckpointRetentionDays int              `json:"checkpoint_retention_days" range:"1,36500"`                    // checkpoints older than this are removed
	CompactionSnapshots     SnapshotConfig   `json:"compaction_snapshots"`
	DefaultRestoreMode      string           `json:"default_restore_mode" enum:"full,summary,selective"`              // what restore brings back by default
	ReconcileOnRestore      bool             `json:"reconcile_on_restore"`                                            // check tracked files for changes on restore
	ExcludePatterns         []string         `json:"exclude_patterns" check:"glob" allowed:"a list of glob patterns"` // files whose contents are never captured
	SensitiveRedaction      bool             `json:"sensitive_redaction"`                                             // redact detected secrets
	Compression             bool             `json:"compression"`                                                     // compress archives
	LazyRestore             bool             `json:"lazy_restore"`                                                    // load context components on demand
	Encryption              EncryptionConfig `json:"encryption"`

	// Ben10's own keys.
	Recovery          RecoveryConfig  `json:"recovery"`
	SnapshotDebounce  time.Duration   `json:"snapshot_debounce" range:"0,24h"`   // a second snapshot of a session within this replaces the first
	LockTimeout       time.Duration   `json:"lock_timeout" range:"10ms,10m"`     // how long writers wait for the store lock
	CheckpointMinutes int             `json:"checkpoint_minutes" range:"0,1440"` // minutes between time-based checkpoints; 0 disables
	Redaction         RedactionConfig `json:"redaction"`
}

// SnapshotConfig is context.compaction_snapshots (PRD FR-7).
type SnapshotConfig struct {
	Enabled             bool `json:"enabled"`                          // snapshot the context before each compaction
	RetentionCount      int  `json:"retention_count" range:"1,100000"` // most recent snapshots kept
	RetentionDays       int  `json:"retention_days" range:"1,36500"`   // snapshots older than this are pruned
	MaxStorageMB        int  `json:"max_storage_mb" range:"1,1048576"` // snapshot archive limit
	CompressionLevel    int  `json:"compression_level" range:"1,22"`   // zstd level for snapshots
	IncludeFileContents bool `json:"include_file_contents"`            // keep full file contents, not just references
	NotifyOnSnapshot    bool `json:"notify_on_snapshot"`               // say when a snapshot was taken
}

// EncryptionConfig is context.encryption. In YAML it is either a mapping
// or, as in the PRD, a bare boolean (`encryption: true`), which sets
// Enabled.
type EncryptionConfig struct {
	Enabled bool `json:"enabled"` // encrypt archives at rest (AES-256-GCM)
	// KeySource is where the key comes from: "env" (a passphrase in the
	// environment variable named by Env), "passphrase-file" (a passphrase
	// in PassphraseFile) or "keyfile" (a raw 32-byte key in KeyFile).
	KeySource      string `json:"key_source" enum:"env,passphrase-file,keyfile"`
	Env            string `json:"env" check:"env_name" allowed:"an environment variable name"`
	PassphraseFile string `json:"passphrase_file" allowed:"a file path"`
	KeyFile        string `json:"key_file" allowed:"a file path"` // a raw 32-byte key
}

// RecoveryConfig is context.recovery: the size budgets of the recovery
// digests.
type RecoveryConfig struct {
	CompactDigestChars int           `json:"compact_digest_chars" range:"500,1000000"` // digest injected after compaction
	StartupDigestChars int           `json:"startup_digest_chars" range:"0,1000000"`   // digest injected at session start (0: none)
	StartupMaxAge      time.Duration `json:"startup_max_age" range:"0,8760h"`          // older saved contexts are not injected at start
}

// RedactionConfig is context.redaction: tuning for the secret detector.
type RedactionConfig struct {
	DisabledRules []string    `json:"disabled_rules" check:"rule_id" allowed:"a list of rule ids"`     // built-in rules turned off
	ExtraRules    []ExtraRule `json:"extra_rules" allowed:"a list of {id, regex, keywords}"`           // user redaction rules
	Allowlist     []string    `json:"allowlist" check:"regex" allowed:"a list of regular expressions"` // values never redacted
	AllowPaths    []string    `json:"allow_paths" check:"glob" allowed:"a list of glob patterns"`      // files never redacted
	Replacement   string      `json:"replacement" check:"nonempty" allowed:"non-empty text"`           // "<rule-id>" is replaced by the rule's id
}

// ExtraRule is a user-defined secret pattern.
type ExtraRule struct {
	ID       string   `json:"id" yaml:"id"`
	Regex    string   `json:"regex" yaml:"regex"`
	Keywords []string `json:"keywords,omitempty" yaml:"keywords,omitempty"`
}

// DefaultSnapshotCompressionLevel is the default of
// compaction_snapshots.compression_level: zstd level 6, the "better"
// level, which on real sessions comes out about as small as `zstd -3` of
// the raw transcript for a few tenths of a second of CPU per 3 MB. Levels
// 16–22 ("max") are opt-in: about 10 % smaller again for several times
// the CPU and memory (docs/PERFORMANCE.md).
const DefaultSnapshotCompressionLevel = 6

// DefaultConfig returns the built-in defaults (the PRD's values where it
// gives one).
func DefaultConfig() *Config {
	return &Config{
		AutoSave:                true,
		AutoRestore:             true,
		CheckpointInterval:      10,
		StorageLocation:         DefaultStorageLocation,
		MaxStorageMB:            100,
		HistoryRetentionCount:   5,
		CheckpointRetentionDays: 7,
		CompactionSnapshots: SnapshotConfig{
			Enabled:             true,
			RetentionCount:      5,
			RetentionDays:       30,
			MaxStorageMB:        500,
			CompressionLevel:    DefaultSnapshotCompressionLevel,
			IncludeFileContents: true,
			NotifyOnSnapshot:    true,
		},
		DefaultRestoreMode: "full",
		ReconcileOnRestore: true,
		ExcludePatterns:    []string{"*.log", "node_modules/**", ".env*", "*.pem", "id_rsa*", "*.key"},
		SensitiveRedaction: true,
		Compression:        true,
		LazyRestore:        false,
		Encryption:         EncryptionConfig{KeySource: "env", Env: "BEN10_PASSPHRASE"},
		Recovery: RecoveryConfig{
			CompactDigestChars: 9500,
			StartupDigestChars: 2000,
			StartupMaxAge:      4 * time.Hour,
		},
		SnapshotDebounce:  5 * time.Minute,
		LockTimeout:       DefaultLockTimeout,
		CheckpointMinutes: 15,
		Redaction: RedactionConfig{
			DisabledRules: []string{},
			ExtraRules:    []ExtraRule{},
			Allowlist:     []string{},
			AllowPaths:    []string{},
			Replacement:   "[REDACTED:<rule-id>]",
		},
	}
}

// Source says where a configuration value came from.
type Source struct {
	Layer string `json:"layer"`          // LayerDefault, LayerUser, LayerProject or LayerFlag
	File  string `json:"file,omitempty"` // the file, for user and project layers
	Line  int    `json:"line,omitempty"` // 1-based line of the key in File
}

func (s Source) String() string {
	switch {
	case s.File != "" && s.Line > 0:
		return fmt.Sprintf("%s (%s:%d)", s.Layer, s.File, s.Line)
	case s.File != "":
		return fmt.Sprintf("%s (%s)", s.Layer, s.File)
	}
	return s.Layer
}

// Provenance maps every dotted key (see Keys) to the source of its
// effective value.
type Provenance map[string]Source

// Warning is a non-fatal problem, such as an unknown configuration key.
type Warning struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	var b strings.Builder
	if w.File != "" {
		b.WriteString(w.File)
		if w.Line > 0 {
			fmt.Fprintf(&b, ":%d", w.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(w.Message)
	return b.String()
}

// UserConfigPath is ~/.claude-code/config.yaml.
func UserConfigPath(home string) string {
	return filepath.Join(home, ".claude-code", "config.yaml")
}

// ProjectConfigPath is <project>/.claude/config.yaml.
func ProjectConfigPath(project string) string {
	return filepath.Join(project, ".claude", "config.yaml")
}

// LoadConfig builds the effective configuration of projectDir with
// precedence flags > project .claude/config.yaml > user
// ~/.claude-code/config.yaml > defaults, except that the project's file
// (which comes with the repository) may only tighten security settings:
// a value that turns redaction or the user's encryption off, exempts
// values, files or rules from redaction, or moves the store outside the
// project is ignored, with a Warning saying so. Missing files are fine. A later
// layer replaces a list as a whole. flags maps dotted keys (with or
// without the "context." prefix) to values written as in YAML; an unknown
// flag key is an error (ErrUnknownKey). An unknown key in a file is a
// Warning naming the key, file and line; an invalid value is a
// *ConfigError naming the file, line and the allowed values.
func LoadConfig(projectDir, home string, flags map[string]string) (*Config, Provenance, []Warning, error) {
	cfg := DefaultConfig()
	prov := Provenance{}
	for _, k := range specOrder {
		prov[k] = Source{Layer: LayerDefault}
	}
	var warns []Warning
	layers := []struct{ layer, path string }{
		{LayerUser, UserConfigPath(home)},
	}
	if projectDir != "" {
		layers = append(layers, struct{ layer, path string }{LayerProject, ProjectConfigPath(projectDir)})
	}
	for _, l := range layers {
		var base *Config
		var baseProv Provenance
		if l.layer == LayerProject {
			b := *cfg
			base, baseProv = &b, maps.Clone(prov)
		}
		w, err := loadFile(cfg, prov, l.layer, l.path)
		warns = append(warns, w...)
		if err != nil {
			return nil, nil, warns, err
		}
		if base != nil {
			warns = append(warns, guardProject(base, baseProv, cfg, prov)...)
		}
	}
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := normKey(k)
		spec, ok := specs[key]
		if !ok {
			return nil, nil, warns, fmt.Errorf("flag %q: %w", k, ErrUnknownKey)
		}
		if _, err := applyRaw(cfg, spec, flags[k], "flag"); err != nil {
			return nil, nil, warns, err
		}
		prov[spec.key] = Source{Layer: LayerFlag}
	}
	if err := validateConfig(cfg, prov); err != nil {
		return nil, nil, warns, err
	}
	return cfg, prov, warns, nil
}

// validateConfig checks rules that span keys.
func validateConfig(cfg *Config, prov Provenance) error {
	e := cfg.Encryption
	if !e.Enabled {
		return nil
	}
	need := func(key, val, what string) error {
		if val != "" {
			return nil
		}
		src := prov["encryption.key_source"]
		if src.Layer == LayerDefault {
			src = prov["encryption.enabled"]
		}
		return &ConfigError{File: src.File, Line: src.Line, Key: key, Value: val,
			Allowed: what + " (required when encryption is enabled with key_source " + e.KeySource + ")"}
	}
	switch e.KeySource {
	case "passphrase-file":
		return need("encryption.passphrase_file", e.PassphraseFile, "a file path")
	case "keyfile":
		return need("encryption.key_file", e.KeyFile, "a file path")
	default:
		return need("encryption.env", e.Env, "an environment variable name")
	}
}

func normKey(k string) string {
	k = strings.TrimSpace(k)
	k = strings.TrimPrefix(k, "context.")
	if k == "encryption" {
		return "encryption.enabled"
	}
	return k
}

// ReadConfigFile reads a configuration file (this package's or the
// watcher's), refusing one larger than MaxConfigBytes and anything but a
// regular file, without blocking on a FIFO. A missing file returns nil,
// nil; other failures are a *ConfigError naming the file.
func ReadConfigFile(path string) ([]byte, error) {
	// Non-blocking, and only a regular file: a FIFO or a device must not
	// hold a hook (a link is followed: a user's config may be one).
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		return nil, &ConfigError{File: path, Err: err}
	}
	defer f.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, &ConfigError{File: path, Err: err}
	}
	if n > MaxConfigBytes {
		return nil, &ConfigError{File: path, Err: fmt.Errorf("file larger than %d bytes", MaxConfigBytes)}
	}
	return buf.Bytes(), nil
}

// parseDoc parses YAML into a document node; an empty file gives a
// document with an empty mapping.
func parseDoc(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ConfigError{File: path, Err: fmt.Errorf("not valid YAML: %w", err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		doc.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root = doc.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: path, Line: root.Line, Err: errors.New("the top level must be a mapping with a `context:` key")}
	}
	return &doc, nil
}

func loadFile(cfg *Config, prov Provenance, layer, path string) ([]Warning, error) {
	data, err := ReadConfigFile(path)
	if err != nil || data == nil {
		return nil, err
	}
	doc, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	var warns []Warning
	root := doc.Content[0]
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		if prev, dup := seen[k.Value]; dup {
			warns = append(warns, Warning{File: path, Line: k.Line, Key: k.Value,
				Message: fmt.Sprintf("duplicate key %q (first at line %d); the last one wins", k.Value, prev)})
		}
		seen[k.Value] = k.Line
		if k.Value != "context" {
			msg := fmt.Sprintf("unknown top-level key %q (Ben10 reads only `context:`)", k.Value)
			if _, ok := specs[normKey(k.Value)]; ok || groups[k.Value] {
				msg = fmt.Sprintf("key %q belongs under `context:`; ignored here", k.Value)
			}
			warns = append(warns, Warning{File: path, Line: k.Line, Key: k.Value, Message: msg})
			continue
		}
		switch {
		case v.Kind == yaml.MappingNode:
			w, err := applyMapping(cfg, prov, layer, path, "", v)
			warns = append(warns, w...)
			if err != nil {
				return warns, err
			}
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		default:
			return warns, &ConfigError{File: path, Line: v.Line, Key: "", Err: errors.New("`context:` must be a mapping")}
		}
	}
	return warns, nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}

func applyMapping(cfg *Config, prov Provenance, layer, path, prefix string, m *yaml.Node) ([]Warning, error) {
	var warns []Warning
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		key := prefix + k.Value
		if prev, dup := seen[key]; dup {
			warns = append(warns, Warning{File: path, Line: k.Line, Key: "context." + key,
				Message: fmt.Sprintf("duplicate key context.%s (first at line %d); the last one wins", key, prev)})
		}
		seen[key] = k.Line
		if spec, ok := specs[key]; ok {
			if err := spec.apply(cfg, v); err != nil {
				return warns, valueError(path, key, spec, v, err)
			}
			prov[key] = Source{Layer: layer, File: path, Line: k.Line}
			continue
		}
		if groups[key] {
			switch {
			case v.Kind == yaml.MappingNode:
				w, err := applyMapping(cfg, prov, layer, path, key+".", v)
				warns = append(warns, w...)
				if err != nil {
					return warns, err
				}
			case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			case key == "encryption" && v.Kind == yaml.ScalarNode:
				spec := specs["encryption.enabled"]
				if err := spec.apply(cfg, v); err != nil {
					return warns, &ConfigError{File: path, Line: v.Line, Key: key, Value: nodeText(v),
						Allowed: "true, false, or a mapping with enabled, key_source, env, passphrase_file, key_file"}
				}
				prov["encryption.enabled"] = Source{Layer: layer, File: path, Line: k.Line}
			default:
				return warns, &ConfigError{File: path, Line: v.Line, Key: key, Value: nodeText(v),
					Allowed: "a mapping of " + strings.Join(groupKeys(key), ", ")}
			}
			continue
		}
		msg := fmt.Sprintf("unknown key context.%s; ignored", key)
		if s := suggest(key); s != "" {
			msg += fmt.Sprintf(" (did you mean context.%s?)", s)
		}
		warns = append(warns, Warning{File: path, Line: k.Line, Key: "context." + key, Message: msg})
	}
	return warns, nil
}

// valueError builds the ConfigError for an invalid value, pointing at the
// offending list element when there is one.
func valueError(path, key string, spec *keySpec, v *yaml.Node, err error) *ConfigError {
	ce := &ConfigError{File: path, Line: v.Line, Key: key, Value: nodeText(v), Allowed: spec.allowed, Err: err}
	var ie *itemError
	if errors.As(err, &ie) {
		ce.Line, ce.Value, ce.Err = ie.line, ie.value, ie.err
	}
	return ce
}

// nodeText renders a value node for an error message, at most 80 bytes.
func nodeText(n *yaml.Node) string {
	s := n.Value
	if n.Kind != yaml.ScalarNode {
		out, err := yaml.Marshal(n)
		if err == nil {
			s = strings.TrimSpace(string(out))
		}
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// suggest returns the known key closest to key, or "".
func suggest(key string) string {
	best, bestD := "", 4
	for _, k := range specOrder {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
		// A leaf name given without its group.
		if i := strings.LastIndexByte(k, '.'); i >= 0 && k[i+1:] == key {
			return k
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// applyRaw parses raw, a value given on the command line (file is "flag")
// or to SetConfigValue (file ""), into cfg, and returns its YAML node; an
// invalid value is a *ConfigError.
func applyRaw(cfg *Config, spec *keySpec, raw, file string) (*yaml.Node, error) {
	n, err := valueNode(spec, raw)
	if err == nil {
		err = spec.apply(cfg, n)
	}
	if err != nil {
		ce := &ConfigError{File: file, Key: spec.key, Value: raw, Allowed: spec.allowed, Err: err}
		var ie *itemError
		if errors.As(err, &ie) {
			ce.Err = ie.err
		}
		return nil, ce
	}
	return n, nil
}

// valueNode turns a command-line value into a YAML node for spec: strings
// stay literal; a list is either YAML flow syntax ("[a, b]") or a
// comma-separated string ("a,b"); other kinds are parsed as YAML.
func valueNode(spec *keySpec, raw string) (*yaml.Node, error) {
	if spec.kind == kindString {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: raw}, nil
	}
	if spec.kind == kindList && !strings.HasPrefix(strings.TrimSpace(raw), "[") {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if strings.TrimSpace(raw) != "" {
			for _, part := range strings.Split(raw, ",") {
				seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(part)})
			}
		}
		return seq, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	if doc.Kind != 0 && len(doc.Content) > 0 {
		n = doc.Content[0]
	}
	clearStyle(n)
	return n, nil
}

// clearStyle makes flow collections block-styled for a tidy file.
func clearStyle(n *yaml.Node) {
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		n.Style = 0
	}
	for _, c := range n.Content {
		clearStyle(c)
	}
}

// Setting is one effective configuration value with its source.
type Setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Text   string `json:"text"` // Value formatted for people
	Source Source `json:"source"`
}

// Settings lists every key's effective value and source, in Keys order.
func Settings(cfg *Config, prov Provenance) []Setting {
	out := make([]Setting, 0, len(specOrder))
	for _, k := range specOrder {
		s := specs[k]
		v := s.get(cfg)
		src, ok := prov[k]
		if !ok {
			src = Source{Layer: LayerDefault}
		}
		out = append(out, Setting{Key: k, Value: jsonValue(v), Text: formatValue(v), Source: src})
	}
	return out
}

// Get returns the effective value of a dotted key.
func (c *Config) Get(key string) (any, error) {
	s, ok := specs[normKey(key)]
	if !ok {
		return nil, fmt.Errorf("%q: %w", key, ErrUnknownKey)
	}
	return s.get(c), nil
}

func jsonValue(v any) any {
	if d, ok := v.(time.Duration); ok {
		return FormatDuration(d)
	}
	return v
}

func formatValue(v any) string {
	switch x := v.(type) {
	case time.Duration:
		return FormatDuration(x)
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case []ExtraRule:
		parts := make([]string, len(x))
		for i, r := range x {
			parts[i] = r.ID + "=/" + r.Regex + "/"
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// FormatDuration prints a duration without zero units: 5m, 2s, 4h,
// 1h30m, 500ms.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// SetConfigValue sets one key in the YAML file at path (creating the file
// and its directory if needed), keeping comments, key order and every
// other key. The value is validated first, written as in YAML (lists also
// as "a,b,c"), and the file is replaced atomically; an existing file keeps
// its permissions, a new one is 0600 in a 0700 directory.
func SetConfigValue(path, key, value string) error {
	k := normKey(key)
	spec, ok := specs[k]
	if !ok {
		msg := fmt.Sprintf("%q", key)
		if s := suggest(k); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return fmt.Errorf("%s: %w", msg, ErrUnknownKey)
	}
	n, err := applyRaw(DefaultConfig(), spec, value, "")
	if err != nil {
		return err
	}
	data, err := ReadConfigFile(path)
	if err != nil {
		return err
	}
	doc, err := parseDoc(path, data)
	if err != nil {
		return err
	}
	parts := strings.Split(k, ".")
	out, ok := editInPlace(data, doc, parts, n)
	if !ok {
		m := mapChild(doc.Content[0], "context")
		for _, g := range parts[:len(parts)-1] {
			m = mapChild(m, g)
		}
		setChild(m, parts[len(parts)-1], n)
		indent := detectIndent(data)
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(indent)
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("store: encoding %s: %w", path, err)
		}
		if err := enc.Close(); err != nil {
			return fmt.Errorf("store: encoding %s: %w", path, err)
		}
		out = buf.Bytes()
		if bytes.Contains(data, []byte("\r\n")) {
			out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
		}
	}
	perm := os.FileMode(0o600)
	target := path
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("store: creating %s: %w", filepath.Dir(path), err)
	}
	return writeFileAtomicPerm(target, out, perm)
}

// editInPlace handles the common case of replacing an existing
// single-line scalar with another scalar by splicing the new value's text
// into the original bytes, so everything else (comments, blank lines,
// quoting, indentation) stays byte-for-byte the same. It reports false when
// the case does not apply; the caller then re-encodes the whole document.
func editInPlace(data []byte, doc *yaml.Node, parts []string, n *yaml.Node) ([]byte, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return nil, false
	}
	if len(parts) == 2 && parts[0] == "encryption" && parts[1] == "enabled" {
		// `encryption: true` is shorthand for encryption.enabled.
		if e := lookup(doc.Content[0], "context", "encryption"); e != nil && e.Kind == yaml.ScalarNode {
			parts = parts[:1]
		}
	}
	m := doc.Content[0]
	var old *yaml.Node
	for i, p := range append([]string{"context"}, parts...) {
		old = nil
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == p {
				old = m.Content[j+1] // the last duplicate wins, as when loading
			}
		}
		if old == nil {
			return nil, false
		}
		if i < len(parts) {
			if old.Kind != yaml.MappingNode {
				return nil, false
			}
			m = old
		}
	}
	if old.Kind != yaml.ScalarNode || old.Tag == "!!null" || old.Line < 1 || old.Column < 1 {
		return nil, false
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if old.Line > len(lines) {
		return nil, false
	}
	line := lines[old.Line-1]
	start := old.Column - 1
	if start >= len(line) {
		return nil, false
	}
	rest := line[start:]
	var tokLen int
	switch old.Style {
	case 0:
		if !bytes.HasPrefix(rest, []byte(old.Value)) {
			return nil, false
		}
		tokLen = len(old.Value)
	case yaml.SingleQuotedStyle:
		tokLen = closingQuote(rest, '\'')
	case yaml.DoubleQuotedStyle:
		tokLen = closingQuote(rest, '"')
	default:
		return nil, false
	}
	if tokLen <= 0 {
		return nil, false
	}
	enc, err := yaml.Marshal(&yaml.Node{Kind: yaml.ScalarNode, Tag: n.Tag, Value: n.Value})
	if err != nil {
		return nil, false
	}
	text := bytes.TrimSuffix(enc, []byte("\n"))
	if bytes.ContainsAny(text, "\n") {
		return nil, false
	}
	var out bytes.Buffer
	for i, l := range lines {
		if i == old.Line-1 {
			out.Write(l[:start])
			out.Write(text)
			out.Write(l[start+tokLen:])
			continue
		}
		out.Write(l)
	}
	// Trust the splice only if it parses to the same document with the
	// new value in place.
	check, err := parseDoc("", out.Bytes())
	if err != nil {
		return nil, false
	}
	got := lookup(check.Content[0], append([]string{"context"}, parts...)...)
	if got == nil || got.Kind != yaml.ScalarNode || got.Value != n.Value {
		return nil, false
	}
	return out.Bytes(), true
}

// lookup follows keys through nested mappings (the last duplicate of a key
// wins) and returns the value node, or nil.
func lookup(m *yaml.Node, keys ...string) *yaml.Node {
	var v *yaml.Node
	for _, k := range keys {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		v = nil
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == k {
				v = resolve(m.Content[j+1])
			}
		}
		if v == nil {
			return nil
		}
		m = v
	}
	return v
}

// closingQuote returns the length of the quoted token at the start of b
// (including both quotes), or 0.
func closingQuote(b []byte, q byte) int {
	if len(b) == 0 || b[0] != q {
		return 0
	}
	for i := 1; i < len(b); i++ {
		switch {
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q:
			if q == '\'' && i+1 < len(b) && b[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return 0
}

// mapChild returns the mapping under key in m, creating it (or turning a
// scalar such as `encryption: true` into {enabled: true}) as needed.
func mapChild(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		v := resolve(m.Content[i+1])
		if v.Kind == yaml.MappingNode {
			return v
		}
		nm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		// A mapping cannot carry the scalar's comments where they were;
		// put them on the key line.
		kn := m.Content[i]
		if kn.LineComment == "" {
			kn.LineComment = v.LineComment
		}
		if kn.HeadComment == "" {
			kn.HeadComment = v.HeadComment
		}
		if kn.FootComment == "" {
			kn.FootComment = v.FootComment
		}
		if key == "encryption" && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			nm.Content = append(nm.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "enabled"},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: v.Tag, Value: v.Value})
		}
		m.Content[i+1] = nm
		return nm
	}
	nm := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, nm)
	return nm
}

// setChild replaces (keeping its comments) or appends key's value in m.
func setChild(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key {
			continue
		}
		old := m.Content[i+1]
		v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
		m.Content[i+1] = v
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// detectIndent returns the indentation of the first indented line (2 to
// 8 spaces), or 2.
func detectIndent(data []byte) int {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "-") {
			continue
		}
		if n := len(line) - len(trimmed); n > 0 {
			if n >= 2 && n <= 8 {
				return n
			}
			return 2
		}
	}
	return 2
}
