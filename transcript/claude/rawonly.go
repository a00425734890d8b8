package claude

import "github.com/ben10ctx/ben10/archive"

// The model of a raw-only archive (archive.EncodeRawOnly) is built by this
// importer from the stored raw files, as Save builds it from the same
// stored (redacted) lines.
func init() {
	build := func(raw []archive.RawFile, o archive.DeriveOptions) (*archive.State, error) {
		iopt := archive.ImportOptions{ProjectDir: o.Root, IncludeFileContents: o.Capture, ExcludePatterns: o.ExcludePatterns, MaxFileContent: o.MaxFileContent}
		return importFiles(raw, o.Redacted, iopt, o.Resumable, o.RedactFingerprint, o.Lazy)
	}
	// A raw-only archive's model is built when it is read, by the current
	// importer, whichever name it was written under.
	archive.RegisterModelDeriver(derivedName, importerVersion, build)
	archive.RegisterModelDeriver(legacyName, importerVersion, build)
}

// ImporterName is the name this importer registers its archive.Deriver and
// archive.ModelDeriver under (archive.RawOnlyOptions.Importer).
const ImporterName = derivedName
