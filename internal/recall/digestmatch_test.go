package recall

import (
	"math/rand"
	"strings"
	"testing"
)

// matchPieces mixes boundary characters, letters, digits, spaces,
// punctuation, multi-byte runes and invalid bytes, so that random texts
// and terms overlap and touch at every kind of boundary.
var matchPieces = []string{"a", "b", "ab", "Z", "0", "9", "_", "/", "\\", "-", ".", "..", " ", "`", ",", ":", "(", "\"", "\n",
	"é", "中", "😀", "\xff", "\xe2\x80", "\xc3", "lib", "lib/a.ex", "a.exs", "go test", "./...", "ls"}

func randomMatchText(rng *rand.Rand, max int) string {
	var b strings.Builder
	for n := rng.Intn(max + 1); n > 0; n-- {
		b.WriteString(matchPieces[rng.Intn(len(matchPieces))])
	}
	return b.String()
}

// checkTerms compares containsTerms, in one batch, with containsTerm (the
// definition, table-tested in digest_test.go), one term at a time.
func checkTerms(t *testing.T, text string, terms []string) {
	t.Helper()
	named := make([]bool, len(terms))
	containsTerms(text, terms, named)
	for i, p := range terms {
		if want := containsTerm(text, p); named[i] != want {
			t.Fatalf("containsTerms: %q in %q = %v, want %v (batch of %d)", p, text, named[i], want, len(terms))
		}
	}
}

// containsTerms equals containsTerm's definition on random texts and
// terms: terms drawn at random, cut out of the text (so that they occur,
// often more than once and overlapping), empty, or longer than the text;
// in batches large enough to be hashed and small enough to be scanned.
func TestContainsTermsMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for iter := 0; iter < 4000; iter++ {
		text := randomMatchText(rng, 24)
		var terms []string
		for j := 0; j < 30; j++ {
			var p string
			switch j % 5 {
			case 0:
				p = randomMatchText(rng, 3)
			case 1, 2:
				if len(text) > 0 {
					a := rng.Intn(len(text))
					b := a + rng.Intn(len(text)-a+1)
					p = text[a:b]
				}
			case 3:
				p = text + randomMatchText(rng, 2)
			default:
				if len(text) > 0 {
					a := rng.Intn(len(text))
					p = text[a:] + randomMatchText(rng, 1)
				}
			}
			terms = append(terms, p)
		}
		checkTerms(t, text, terms)
		checkTerms(t, text, terms[:iter%12])
		// Duplicates and terms sharing a key, in a random order.
		dup := append(append([]string(nil), terms...), terms...)
		rng.Shuffle(len(dup), func(i, j int) { dup[i], dup[j] = dup[j], dup[i] })
		checkTerms(t, text, dup)
	}
	// Every ASCII byte on either side of a term, and terms made of it.
	for c := 0; c < 256; c++ {
		for _, f := range []string{"%cab", "ab%c", "x%cab%cy", "%c", "%c%c"} {
			text := strings.ReplaceAll(f, "%c", string([]byte{byte(c)}))
			cs := string([]byte{byte(c)})
			terms := []string{"ab", "a", "b", cs, text, "ab" + cs, cs + "ab", "", "x", "y", "xab", "aby", "a" + cs, cs + "b"}
			checkTerms(t, text, terms)
		}
	}
}

// A long text of short repeated words: many runs share a key, and most
// terms are looked up many times before they are found or not.
func TestContainsTermsLargeText(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(randomMatchText(rng, 6))
		b.WriteString(" lib/x")
		b.WriteString(string(rune('a' + rng.Intn(26))))
		b.WriteString(".go ")
	}
	text := b.String()
	checkTerms(t, text, []string{"lib/xq.go", "lib/xq", "lib/xq.g", "lib/x", "go", ".go", "go test ./...", "a.exs lib", "😀",
		"lib/xz.go.", "nothere/at/all.go", "lib/xa.go lib", "lib", "ab", "a.ex", "lib/a.ex", "go test", "ls"})
}
