package store

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// guardProject undoes what the project layer of the configuration did to
// loosen a security setting of the layers below it (the user's config
// and the defaults). A project's .claude/config.yaml comes with the
// repository, so it is untrusted: it may tighten (turn redaction or
// encryption on, add redaction rules, keep the store inside the project)
// but never loosen. base and baseProv are the configuration before the
// project layer, cfg and prov after it; each value ignored is restored
// from base and reported as a Warning naming the file, line and reason.
func guardProject(base *Config, baseProv Provenance, cfg *Config, prov Provenance) []Warning {
	var warns []Warning
	ignore := func(key, why string) {
		src := prov[key]
		warns = append(warns, Warning{File: src.File, Line: src.Line, Key: "context." + key,
			Message: "ignored: " + why + " (a project's configuration may tighten security settings, never loosen the user's or the defaults)"})
		prov[key] = baseProv[key]
	}
	fromProject := func(key string) bool { return prov[key].Layer == LayerProject }

	for _, g := range projectGuards {
		if fromProject(g.key) && g.loosens(base, cfg) {
			i := specs[g.key].index
			reflect.ValueOf(cfg).Elem().FieldByIndex(i).Set(reflect.ValueOf(base).Elem().FieldByIndex(i))
			ignore(g.key, g.why)
		}
	}
	if base.Encryption.Enabled && cfg.Encryption != base.Encryption {
		for _, k := range []string{"encryption.enabled", "encryption.key_source", "encryption.env", "encryption.passphrase_file", "encryption.key_file"} {
			if fromProject(k) {
				ignore(k, "changes the user's encryption")
			}
		}
		cfg.Encryption = base.Encryption
	}
	if fromProject("redaction.extra_rules") {
		// Rules are added to the user's, never replace them.
		for _, r := range base.Redaction.ExtraRules {
			if !slices.ContainsFunc(cfg.Redaction.ExtraRules, func(o ExtraRule) bool { return o.ID == r.ID && o.Regex == r.Regex }) {
				cfg.Redaction.ExtraRules = append(cfg.Redaction.ExtraRules, r)
			}
		}
	}
	return warns
}

// projectGuards are the security keys a project's configuration may set
// only to tighten them: what loosening one means, and whether cfg (with
// the project layer) loosens base (without it). Besides these, the
// user's encryption is the user's alone, and the user's extra redaction
// rules stay.
var projectGuards = []struct {
	key, why string
	loosens  func(base, cfg *Config) bool
}{
	{"sensitive_redaction", "turns redaction off", func(b, c *Config) bool { return b.SensitiveRedaction && !c.SensitiveRedaction }},
	{"redaction.disabled_rules", "turns redaction rules off", func(b, c *Config) bool { return !subset(c.Redaction.DisabledRules, b.Redaction.DisabledRules) }},
	{"redaction.allowlist", "exempts values from redaction", func(b, c *Config) bool { return !subset(c.Redaction.Allowlist, b.Redaction.Allowlist) }},
	{"redaction.allow_paths", "exempts files from redaction", func(b, c *Config) bool { return !subset(c.Redaction.AllowPaths, b.Redaction.AllowPaths) }},
	{"storage_location", "moves the store outside the project", func(_, c *Config) bool { return !insideProject(c.StorageLocation) }},
}

// insideProject reports whether a storage_location names a directory
// inside the project: relative, not through "..", not under ~/.
func insideProject(loc string) bool {
	if loc == "" {
		return true
	}
	if filepath.IsAbs(loc) || strings.HasPrefix(loc, "~") || filepath.VolumeName(loc) != "" {
		return false
	}
	c := filepath.Clean(filepath.FromSlash(loc))
	return c != "." && c != ".." && !strings.HasPrefix(c, ".."+string(filepath.Separator))
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
