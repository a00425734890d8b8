// Command gentranscript writes a large Claude Code transcript built from
// the shared corpus (see package benchdata) and prints its path:
//
//	go run ./internal/benchdata/gentranscript -dir /tmp/big -size 100000000
//
// With -secrets N, one line in N that holds a text gets a made-up secret
// (benchdata.WithSecrets): a transcript whose lines redaction changes, a
// little larger than -size.
//
// -corpus defaults to the corpus's claude folder as the tests find it
// ($BEN10_CORPUS, or shared/corpus beside the module root or an ancestor).
//
// With -from FILE, the session file of any assistant (a Codex rollout, a
// Gemini CLI or Kimi session) is repeated instead (benchdata.Repeat), into
// -dir under FILE's own name.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/internal/testcorpus"
)

func main() {
	def, _ := testcorpus.Find("claude")
	corpus := flag.String("corpus", def, "directory of the corpus's Claude Code sessions")
	dir := flag.String("dir", os.TempDir(), "directory to write the transcript into")
	size := flag.Int64("size", 100_000_000, "size in bytes (cut back to a line boundary)")
	secrets := flag.Int("secrets", 0, "put a made-up secret in one text line in `N` (0: none)")
	from := flag.String("from", "", "repeat this session `file` instead of the corpus's Claude Code sessions")
	flag.Parse()
	if *from != "" {
		src, err := os.ReadFile(*from)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gentranscript:", err)
			os.Exit(1)
		}
		p := filepath.Join(*dir, filepath.Base(*from))
		if err := os.WriteFile(p, benchdata.Repeat(src, *size), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "gentranscript:", err)
			os.Exit(1)
		}
		*corpus = p // (the secrets below)
	} else if *corpus == "" {
		fmt.Fprintln(os.Stderr, "gentranscript: no corpus found; pass -corpus or set $"+testcorpus.EnvVar)
		os.Exit(1)
	}
	p := *corpus
	if *from == "" {
		var err error
		if p, err = benchdata.Transcript(*corpus, *dir, *size); err != nil {
			fmt.Fprintln(os.Stderr, "gentranscript:", err)
			os.Exit(1)
		}
	}
	if *secrets > 0 {
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(p, benchdata.WithSecrets(b, *secrets), 0o600)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gentranscript:", err)
			os.Exit(1)
		}
	}
	fmt.Println(p)
}
