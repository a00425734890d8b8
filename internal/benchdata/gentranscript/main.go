// Command gentranscript writes a large Claude Code transcript built from
// the shared corpus (see package benchdata) and prints its path:
//
//	go run ./internal/benchdata/gentranscript -corpus /work/shared/corpus/claude -dir /tmp/big -size 100000000
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ben10ctx/ben10/internal/benchdata"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus/claude", "directory of the corpus's Claude Code sessions")
	dir := flag.String("dir", os.TempDir(), "directory to write the transcript into")
	size := flag.Int64("size", 100_000_000, "size in bytes (cut back to a line boundary)")
	flag.Parse()
	p, err := benchdata.Transcript(*corpus, *dir, *size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentranscript:", err)
		os.Exit(1)
	}
	fmt.Println(p)
}
