// Package ctxfmt reads and writes the segmented .ctx container: a
// checksummed header, a segment index, independently compressed (and
// optionally encrypted) segments and a footer. It knows nothing of what the
// segments hold; see docs/FORMAT.md.
package ctxfmt
