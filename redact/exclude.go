package redact

import (
	"path"
	"strings"
)

// DefaultExcludePatterns are the files whose contents Ben10 never
// captures: environment files, private keys, key stores and credential
// files. The patterns use the syntax of Excluded.
func DefaultExcludePatterns() []string {
	return []string{
		".env", ".env.*", ".env*", "*.env",
		"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk", "*.asc",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
		".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd",
		".dockercfg", ".docker/config.json", ".aws/credentials", ".aws/config",
		".config/gcloud/*.json", "credentials.json", "service-account*.json", "*.tfvars", "*.tfstate",
		"secrets.yml", "secrets.yaml", "*.secret", "*.secrets",
	}
}

// Excluded reports whether path matches one of patterns. A pattern without
// '/' is matched against the base name; one with '/' against the whole
// slash-separated path and against every trailing part of it that starts
// after a '/'. Matching is path.Match (with '*' not crossing '/') and is
// case-sensitive. Malformed patterns match nothing.
func Excluded(p string, patterns []string) bool {
	p = strings.ReplaceAll(p, "\\", "/")
	base := path.Base(p)
	for _, pat := range patterns {
		if pat == "" {
			continue
		}
		if !strings.Contains(pat, "/") {
			if ok, _ := path.Match(pat, base); ok {
				return true
			}
			continue
		}
		pat = strings.TrimPrefix(pat, "/")
		rest := strings.TrimPrefix(p, "/")
		for {
			if ok, _ := path.Match(pat, rest); ok {
				return true
			}
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				break
			}
			rest = rest[i+1:]
		}
	}
	return false
}

func checkGlob(g string) error {
	_, err := path.Match(strings.TrimPrefix(g, "/"), "")
	return err
}
