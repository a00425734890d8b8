// Package recall defines the Recall, the small bounded distillate of a
// session that a digest is built from, and Digest, which renders one as
// the text a session start injects. Package archive builds recalls,
// stores them and re-exports these types and functions; this package
// links the standard library only, so that the light hook binary
// (cmd/ben10-hook) renders a recall the worker prepared
// (internal/prepared) without linking the archive format.
package recall
