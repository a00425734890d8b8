// Package redact finds secrets in text and replaces them before anything is
// stored: API keys and tokens of cloud, code-hosting, AI and SaaS
// providers, JWTs, Authorization headers, private keys (also inside JSON
// strings with escaped newlines), passwords in URLs and connection strings,
// secret-looking assignments in code and configuration, card numbers and
// US SSNs.
//
// Default returns a Redactor with every built-in rule; New builds one from
// a Config (rules off, user rules, allowlists, replacement text, fingerprint
// salt). Bytes and String redact plain text, JSONLine redacts one JSON(L)
// line while keeping it valid JSON with the same structure, and Find only
// reports. Each call returns a Report of counts per rule and salted
// fingerprints, never the secrets. A keyword prefilter makes clean input
// cost one pass and no allocation, whatever the number of rules.
//
// DefaultExcludePatterns and Excluded name the files (.env*, *.pem, id_rsa*,
// …) whose contents must not be captured at all. The package knows nothing
// of the layers above; see docs/REDACTION.md for the rules and figures.
package redact
