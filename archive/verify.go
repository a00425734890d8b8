package archive

import (
	"fmt"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// VerifyFile checks the archive at path at every level, for `doctor` and
// `archive verify --deep`: the container (ctxfmt.VerifyFile, deep: every
// checksum, authentication and decompression), then the archive itself:
// the metadata, every model segment decoded, the raw transcript files
// against their SHA-256 digests, the captured file contents and the
// recall. An archive whose container is sound but whose contents are not
// (a count that its segment cannot hold, a size it does not decode to) is
// refused here, with the same bounded memory as every other read. An
// encrypted archive without its passphrase or key gives
// ctxfmt.ErrKeyRequired once its checksums are checked.
func VerifyFile(path string, opts OpenOptions) error {
	if opts.Keys == nil && opts.Passphrase != nil {
		// Both opens derive the passphrase's key once.
		opts.Keys = ctxfmt.NewKeyCache()
		defer opts.Keys.Wipe()
	}
	if err := ctxfmt.VerifyFile(path, ctxfmt.VerifyOptions{Deep: true, Passphrase: opts.Passphrase, Key: opts.Key, MaxSegmentSize: opts.MaxSegmentSize, Keys: opts.Keys}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	a, err := OpenFile(path, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	// Load decodes every segment but the recall, which Recall decodes.
	if _, err := a.Load(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, _, err := a.Recall(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
