#!/usr/bin/env bash
# Checks that two revisions write byte-identical archives: every Claude
# Code corpus session saved with claude.Save (the `ben10 context save`
# path) at fastest, default, best and max, with and without redaction, in full
# and incrementally (the session without its last 20 lines, then whole on
# top of that archive), with a fixed clock. Used for performance work that
# must not change a byte (docs/PERFORMANCE.md).
#
#   scripts/same-bytes.sh main HEAD        # two git revisions
#   scripts/same-bytes.sh main .           # "." is the working tree
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 REV-A REV-B (a git revision or . for the working tree)" >&2; exit 2; }
corpus=${BEN10_CORPUS:-/work/shared/corpus}/claude
[ -d "$corpus" ] || { echo "no corpus at $corpus (set BEN10_CORPUS)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/main.go" <<'EOF'
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

func main() {
	corpus, out := os.Args[1], os.Args[2]
	ms, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o600); err != nil {
			panic(err)
		}
	}
	for _, p := range ms {
		base := filepath.Base(p)
		for _, lvl := range []string{"fastest", "default", "best", "max"} {
			for _, red := range []bool{false, true} {
				l, _ := ctxfmt.ParseLevel(lvl)
				opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: l, Now: func() time.Time { return fixed }}
				if red {
					r := redact.Default()
					opts.RedactLine = func(line []byte) []byte { o, _ := r.JSONLine(line); return o }
					opts.RedactText = func(s string) string { o, _ := r.String(s); return o }
					opts.RedactFingerprint = snapshot.RedactionFingerprint(&store.Config{SensitiveRedaction: true})
				}
				name := fmt.Sprintf("%s-%s-redact=%v", base, lvl, red)
				var full bytes.Buffer
				if _, _, err := claude.Save(&full, p, archive.ImportOptions{}, opts); err != nil {
					fmt.Println(name, "error:", err)
					continue
				}
				write(name+".ctx", full.Bytes())
				files, err := claude.ReadFiles(p, archive.ImportOptions{})
				if err != nil {
					fmt.Println(name, "error:", err)
					continue
				}
				lines := bytes.SplitAfter(files[0].Data, []byte("\n"))
				if len(lines) < 40 {
					continue
				}
				files0 := append([]archive.RawFile{{Name: files[0].Name, Data: bytes.Join(lines[:len(lines)-21], nil)}}, files[1:]...)
				var b0, b1 bytes.Buffer
				if _, _, err := claude.SaveFiles(&b0, files0, archive.ImportOptions{}, opts); err != nil {
					fmt.Println(name, "prefix error:", err)
					continue
				}
				prev, err := archive.Open(bytes.NewReader(b0.Bytes()), int64(b0.Len()), archive.OpenOptions{})
				if err != nil {
					fmt.Println(name, "open error:", err)
					continue
				}
				o2 := opts
				o2.Previous = prev
				_, st, err := claude.SaveFiles(&b1, files, archive.ImportOptions{}, o2)
				if err != nil {
					fmt.Println(name, "incremental error:", err)
					continue
				}
				write(name+"-prefix.ctx", b0.Bytes())
				write(name+"-incremental.ctx", b1.Bytes())
				fmt.Println(name, "incremental: copied segments", st.CopiedSegments)
			}
		}
	}
}
EOF

build() { # build REV DIR
	mkdir -p "$2/src" "$2/out"
	if [ "$1" = . ]; then
		cp -r . "$2/src/" 2>/dev/null || true
		rm -rf "$2/src/bin"
	else
		git archive "$1" | tar -x -C "$2/src"
	fi
	mkdir -p "$2/src/cmd/zzsamebytes" && cp "$work/main.go" "$2/src/cmd/zzsamebytes/"
	(cd "$2/src" && go build -o "$2/run" ./cmd/zzsamebytes)
	"$2/run" "$corpus" "$2/out" >"$2/log"
}
build "$1" "$work/a"
build "$2" "$work/b"
diff "$work/a/log" "$work/b/log"
n=0 bad=0
for f in "$work"/a/out/*.ctx; do
	n=$((n + 1))
	if ! cmp -s "$f" "$work/b/out/$(basename "$f")"; then
		bad=$((bad + 1))
		echo "differs: $(basename "$f")"
	fi
done
[ "$(ls "$work/b/out" | wc -l)" -eq "$n" ] || { echo "different numbers of archives" >&2; exit 1; }
echo "$n archives compared ($1 vs $2): $bad differ"
[ "$bad" -eq 0 ]
