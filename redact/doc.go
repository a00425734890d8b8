// Package redact finds secrets in text and replaces them before anything is
// stored. It knows nothing of the layers above; see docs/REDACTION.md.
package redact
