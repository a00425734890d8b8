package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// archiveOptions are the flags of the commands below (one process runs one of
// them) and the global options.
type archiveOptions struct {
	g                                *globalOptions
	out, codec, level, passFile, dir string
	encrypt, deep                    bool
}

// newArchiveCmd builds `ben10 archive`.
func newArchiveCmd(g *globalOptions) *cobra.Command {
	o := &archiveOptions{g: g}
	// archiveCmd groups the low-level commands on .ctx container files.
	archiveCmd := &cobra.Command{
		Use:   "archive",
		Short: "Pack, unpack, inspect and verify .ctx container files",
		Long: `Low-level commands on the .ctx container (docs/FORMAT.md): pack files into
segments, unpack them again, list a file's header and segments, and verify
its checksums (and with --deep, every segment's decoding and authentication).

A passphrase is read from --passphrase-file or from the BEN10_PASSPHRASE
environment variable, never from the command line.`,
	}
	pack := &cobra.Command{
		Use:   "pack --out FILE [--codec none|lz4|zstd] [--level fastest|default|better|best|max] [--encrypt] TYPE=PATH...",
		Short: "Pack files into a .ctx archive, one segment per TYPE=PATH",
		Long: `Pack files into a new .ctx archive, one segment per TYPE=PATH argument, in
order. TYPE is a segment type name (` + strings.Join(typeNames(), ", ") + `)
or a number (extension types 0x8000–0xFFFF). The archive is written
atomically with mode 0600.`,
		Args: cobra.MinimumNArgs(1),
		RunE: o.runPack,
	}
	pack.Flags().StringVar(&o.out, "out", "", "archive to write (required)")
	pack.Flags().StringVar(&o.codec, "codec", "zstd", "compression: none, lz4 or zstd")
	pack.Flags().StringVar(&o.level, "level", "default", "compression level: fastest, default, better, best, max (or a zstd level 1–22)")
	pack.Flags().BoolVar(&o.encrypt, "encrypt", false, "encrypt with AES-256-GCM (passphrase from --passphrase-file or BEN10_PASSPHRASE)")
	pack.Flags().StringVar(&o.passFile, "passphrase-file", "", "read the passphrase from this file (first line)")
	_ = pack.MarkFlagRequired("out")

	unpack := &cobra.Command{
		Use:   "unpack FILE --dir D",
		Short: "Write each segment of an archive to its own file in D",
		Long: `Write each segment of an archive to its own file in directory D (created
with mode 0700 if missing), named NNN-TYPE.bin after its position and type.
Existing files are never overwritten. The crypto-params segment of an
encrypted archive is not written: it holds no user data.`,
		Args: cobra.ExactArgs(1),
		RunE: o.runUnpack,
	}
	unpack.Flags().StringVar(&o.dir, "dir", "", "directory to write into (required)")
	unpack.Flags().StringVar(&o.passFile, "passphrase-file", "", "read the passphrase from this file (first line)")
	_ = unpack.MarkFlagRequired("dir")

	inspect := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show an archive's header and one row per segment",
		Long: `Show an archive's header and one row per segment: type, codec, flags, stored
and uncompressed sizes and checksum. Reads only the header and index; works
on encrypted archives without the passphrase.`,
		Args: cobra.ExactArgs(1),
		RunE: o.runInspect,
	}

	verify := &cobra.Command{
		Use:   "verify FILE [--deep]",
		Short: "Check an archive's integrity; exit non-zero naming the damaged region",
		Long: `Check an archive: header, index, layout and the footer checksum over every
byte; with --deep also every segment's checksum, decryption and decoding.
With --deep a Ben10 context archive is also checked at its own level: the
metadata, every model segment decoded, the raw transcript against its
SHA-256, within bounded memory whatever the file declares.
Exits 0 on a sound archive; otherwise prints one line naming the damaged
region and exits 2 (1 for other errors, such as a missing file).`,
		Args: cobra.ExactArgs(1),
		RunE: o.runVerify,
	}
	verify.Flags().BoolVar(&o.deep, "deep", false, "also decode and authenticate every segment")
	verify.Flags().StringVar(&o.passFile, "passphrase-file", "", "read the passphrase from this file (first line)")

	archiveCmd.AddCommand(pack, unpack, inspect, verify)
	return archiveCmd
}

func typeNames() []string {
	var out []string
	for _, t := range ctxfmt.Types() {
		if t != ctxfmt.TypeCryptoParams {
			out = append(out, t.String())
		}
	}
	return out
}

// passphrase returns the passphrase from --passphrase-file or
// BEN10_PASSPHRASE, or nil if neither is set.
func (o *archiveOptions) passphrase() ([]byte, error) {
	if v, ok := os.LookupEnv("BEN10_PASSPHRASE"); ok && v == "" && o.passFile == "" {
		return nil, errors.New("BEN10_PASSPHRASE is set but empty")
	}
	return passphrase(o.passFile)
}

func (o *archiveOptions) runPack(cmd *cobra.Command, args []string) error {
	codec, err := ctxfmt.ParseCodec(o.codec)
	if err != nil {
		return err
	}
	level, err := ctxfmt.ParseLevel(o.level)
	if err != nil {
		return err
	}
	opts := ctxfmt.WriterOptions{Codec: codec, Level: level}
	if o.encrypt {
		pass, err := o.passphrase()
		if err != nil {
			return err
		}
		if pass == nil {
			return errors.New("--encrypt needs a passphrase: use --passphrase-file or BEN10_PASSPHRASE")
		}
		opts.Encryption = &ctxfmt.Encryption{Passphrase: pass}
	} else if o.passFile != "" {
		return errors.New("--passphrase-file given without --encrypt")
	}
	type input struct {
		t    ctxfmt.SegmentType
		data []byte
	}
	var inputs []input
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("argument %q: want TYPE=PATH", a)
		}
		t, err := ctxfmt.ParseSegmentType(name)
		if err != nil {
			return fmt.Errorf("argument %q: %w", a, err)
		}
		if t == ctxfmt.TypeCryptoParams {
			return fmt.Errorf("argument %q: crypto-params is written by --encrypt, not packed", a)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		inputs = append(inputs, input{t, data})
	}
	var total int64
	size, err := writeAtomic(o.out, func(f io.Writer) error {
		w, err := ctxfmt.NewWriter(f, opts)
		if err != nil {
			return err
		}
		for _, in := range inputs {
			if err := w.Add(in.t, in.data); err != nil {
				return err
			}
			total += int64(len(in.data))
		}
		return w.Close()
	})
	if err != nil {
		return err
	}
	return o.g.result(cmd.OutOrStdout(), map[string]any{"file": o.out, "segments": len(inputs), "raw_bytes": total, "file_bytes": size, "encrypted": opts.Encryption != nil}, "packed %d segments (%d bytes) into %s (%d bytes)\n", len(inputs), total, o.out, size)
}

func (o *archiveOptions) runUnpack(cmd *cobra.Command, args []string) error {
	pass, err := o.passphrase()
	if err != nil {
		return err
	}
	rc, err := ctxfmt.OpenFile(args[0], ctxfmt.ReaderOptions{Passphrase: pass})
	if err != nil {
		return err
	}
	defer rc.Close()
	if rc.Encrypted() && pass == nil {
		return fmt.Errorf("%s is encrypted: give the passphrase with --passphrase-file or BEN10_PASSPHRASE", args[0])
	}
	var segs []ctxfmt.SegmentInfo
	var paths []string
	for _, s := range rc.Segments() {
		if s.Type == ctxfmt.TypeCryptoParams {
			continue
		}
		path := filepath.Join(o.dir, fmt.Sprintf("%03d-%s.bin", s.Index, s.Type))
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s exists; not overwriting", path)
		}
		segs, paths = append(segs, s), append(paths, path)
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	var total int64
	for _, s := range segs {
		total += s.RawLen
	}
	prog := o.g.newBytesProgress("Unpacking", total)
	defer prog.Done()
	var written []string
	for i, s := range segs {
		data, err := rc.ReadSegment(s.Index)
		if err != nil {
			return err
		}
		path := paths[i]
		if err := store.WriteFileAtomic(path, data); err != nil {
			return err
		}
		prog.Add(int64(len(data)))
		written = append(written, path)
	}
	prog.Done()
	return o.g.result(cmd.OutOrStdout(), map[string]any{"dir": o.dir, "files": written}, "unpacked %d segments into %s\n", len(written), o.dir)
}

type segmentRow struct {
	Index     int    `json:"index"`
	Type      string `json:"type"`
	TypeID    uint16 `json:"type_id"`
	Codec     string `json:"codec"`
	Flags     string `json:"flags"`
	Offset    int64  `json:"offset"`
	StoredLen int64  `json:"stored_bytes"`
	RawLen    int64  `json:"raw_bytes"`
	Checksum  string `json:"checksum"`
}

func (o *archiveOptions) runInspect(cmd *cobra.Command, args []string) error {
	rc, err := ctxfmt.OpenFile(args[0], ctxfmt.ReaderOptions{})
	if err != nil {
		return err
	}
	defer rc.Close()
	h := rc.Header()
	rows := make([]segmentRow, 0, rc.NumSegments())
	for _, s := range rc.Segments() {
		rows = append(rows, segmentRow{s.Index, s.Type.String(), uint16(s.Type), s.Codec.String(), s.Flags.String(), s.Offset, s.StoredLen, s.RawLen, fmt.Sprintf("%016x", s.Checksum)})
	}
	ci, encrypted := rc.CryptoInfo()
	if o.g.json {
		out := map[string]any{
			"file": args[0], "version": h.Version, "flags": h.Flags, "encrypted": encrypted,
			"segment_count": h.SegmentCount, "total_size": h.TotalSize,
			"header_checksum": fmt.Sprintf("%016x", h.Checksum), "segments": rows,
		}
		if encrypted {
			out["crypto"] = map[string]any{"kdf": ci.KDF, "aead": ci.AEAD, "argon2_time": ci.Argon2.Time, "argon2_memory_kib": ci.Argon2.MemoryKiB, "argon2_threads": ci.Argon2.Threads}
		}
		return printJSON(cmd.OutOrStdout(), out)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "file:      %s\n", args[0])
	fmt.Fprintf(w, "version:   %d\n", h.Version)
	fmt.Fprintf(w, "size:      %d bytes\n", h.TotalSize)
	fmt.Fprintf(w, "segments:  %d\n", h.SegmentCount)
	if encrypted {
		fmt.Fprintf(w, "encrypted: %s, %s", ci.AEAD, ci.KDF)
		if ci.KDF == "argon2id" {
			fmt.Fprintf(w, " (t=%d, m=%d KiB, p=%d)", ci.Argon2.Time, ci.Argon2.MemoryKiB, ci.Argon2.Threads)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "encrypted: no")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\ttype\tcodec\tflags\tstored\traw\tchecksum")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Index, r.Type, r.Codec, r.Flags, r.StoredLen, r.RawLen, r.Checksum)
	}
	return tw.Flush()
}

func (o *archiveOptions) runVerify(cmd *cobra.Command, args []string) error {
	pass, err := o.passphrase()
	if err != nil {
		return err
	}
	if o.deep {
		// A Ben10 archive is checked at its own level too (what the
		// metadata declares against what the segments hold); a container
		// that is no archive at all, at the container level only.
		err = archive.VerifyFile(args[0], archive.OpenOptions{Passphrase: pass})
		if errors.Is(err, archive.ErrNotArchive) {
			err = nil
		}
	} else {
		err = ctxfmt.VerifyFile(args[0], ctxfmt.VerifyOptions{Passphrase: pass})
	}
	var fe *ctxfmt.FormatError
	switch {
	case errors.Is(err, ctxfmt.ErrKeyRequired):
		return fmt.Errorf("%w (give it with --passphrase-file or BEN10_PASSPHRASE)", namePath(args[0], err))
	case errors.Is(err, ctxfmt.ErrWrongKey):
		return namePath(args[0], err)
	case errors.As(err, &fe):
		return &exitError{code: 2, err: namePath(args[0], err)}
	case errors.Is(err, archive.ErrCorrupt), errors.Is(err, archive.ErrTooLarge), errors.Is(err, archive.ErrSchema):
		return &exitError{code: 2, err: err}
	}
	if err != nil {
		return err
	}
	what := "header, index and footer checksum"
	if o.deep {
		what = "every segment decoded and checked"
	}
	return o.g.result(cmd.OutOrStdout(), map[string]any{"file": args[0], "ok": true, "deep": o.deep}, "%s: ok (%s)\n", args[0], what)
}

// namePath is err naming the file p once: archive.VerifyFile's errors
// already start with it, ctxfmt's do not.
func namePath(p string, err error) error {
	if strings.HasPrefix(err.Error(), p+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", p, err)
}
