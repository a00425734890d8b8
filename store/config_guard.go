package store

import (
	"fmt"
	"path/filepath"
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

	if fromProject("sensitive_redaction") && base.SensitiveRedaction && !cfg.SensitiveRedaction {
		cfg.SensitiveRedaction = true
		ignore("sensitive_redaction", "turns redaction off")
	}
	if base.Encryption.Enabled && cfg.Encryption != base.Encryption {
		for _, k := range []string{"encryption.enabled", "encryption.key_source", "encryption.env", "encryption.passphrase_file", "encryption.key_file"} {
			if fromProject(k) {
				ignore(k, "changes the user's encryption")
			}
		}
		cfg.Encryption = base.Encryption
	}
	if fromProject("redaction.disabled_rules") && !subset(cfg.Redaction.DisabledRules, base.Redaction.DisabledRules) {
		cfg.Redaction.DisabledRules = base.Redaction.DisabledRules
		ignore("redaction.disabled_rules", "turns redaction rules off")
	}
	if fromProject("redaction.allowlist") && !subset(cfg.Redaction.Allowlist, base.Redaction.Allowlist) {
		cfg.Redaction.Allowlist = base.Redaction.Allowlist
		ignore("redaction.allowlist", "exempts values from redaction")
	}
	if fromProject("redaction.allow_paths") && !subset(cfg.Redaction.AllowPaths, base.Redaction.AllowPaths) {
		cfg.Redaction.AllowPaths = base.Redaction.AllowPaths
		ignore("redaction.allow_paths", "exempts files from redaction")
	}
	if fromProject("redaction.extra_rules") {
		// Rules are added to the user's, never replace them.
		for _, r := range base.Redaction.ExtraRules {
			if !slices.ContainsFunc(cfg.Redaction.ExtraRules, func(o ExtraRule) bool { return o.ID == r.ID && o.Regex == r.Regex }) {
				cfg.Redaction.ExtraRules = append(cfg.Redaction.ExtraRules, r)
			}
		}
	}
	if fromProject("storage_location") && !insideProject(cfg.StorageLocation) {
		cfg.StorageLocation = base.StorageLocation
		ignore("storage_location", fmt.Sprintf("moves the store outside the project (%q)", prov[("storage_location")].File))
	}
	return warns
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
