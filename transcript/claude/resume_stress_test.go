package claude_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// Random sessions of four subagent files with lines that depend on each
// other and on the main file (results for other files' and the main
// file's tools, repeated responses), files absent in some steps, growing
// at random byte cuts: every incremental save equals a full one, redaction
// off and on; and with every subagent file cut anew at each step (files
// that shrink as well as grow).
func TestSubagentResumeStress(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{NoSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	for r := range 25 {
		rng := rand.New(rand.NewPCG(uint64(r), 99))
		agents := []string{"p1", "p2", "p3", "p4"}
		subs := map[string][]string{}
		for _, ag := range agents {
			lines := subLines(rng, ag, 10+rng.IntN(30))
			// Cross-file dependencies sometimes.
			if rng.IntN(3) == 0 {
				other := agents[rng.IntN(len(agents))]
				lines = append(lines, sideReadResult(ag, fmt.Sprintf("toolu_%s_%d", other, 1+rng.IntN(5)), "/home/dev/proj/main.go", "zz"))
			}
			if rng.IntN(4) == 0 {
				other := agents[rng.IntN(len(agents))]
				lines = append(lines, sideUse(ag, "toolu_x_"+ag, fmt.Sprintf("msg_%s_%d", other, 1+rng.IntN(5)), "Grep", `{"pattern":"q"}`))
			}
			if rng.IntN(5) == 0 {
				lines = append(lines, sideReadResult(ag, fmt.Sprintf("toolu_%d", 1+rng.IntN(6)), "/home/dev/proj/main.go", "mm"))
			}
			rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			subs[subName(ag)] = lines
		}
		var steps, shrink [][]archive.RawFile
		mc := len(cutAfterLines(main, 3))
		cuts := map[string]int{}
		for k := range 4 {
			mc = mc + rng.IntN(len(main)-mc+1)
			if k == 3 {
				mc = len(main)
			}
			m := map[string][]byte{}
			for _, ag := range agents {
				n, l := subName(ag), subs[subName(ag)]
				if rng.IntN(6) == 0 {
					continue // absent in this step
				}
				d := joinLines(l)
				c := cuts[n] + rng.IntN(len(d)-cuts[n]+1)
				if k == 3 {
					c = len(d)
				}
				cuts[n] = c
				m[n] = d[:c]
			}
			s := subSession(t, 0, m)
			s[0].Data = main[:mc]
			steps = append(steps, s)
			m2 := map[string][]byte{}
			for n, d := range m {
				m2[n] = d[:rng.IntN(len(d)+1)]
			}
			s2 := subSession(t, 0, m2)
			s2[0].Data = main[:mc]
			shrink = append(shrink, s2)
		}
		checkResume(t, fmt.Sprintf("shrink %d", r), shrink, false)
		runSubSteps(t, fmt.Sprintf("stress %d", r), steps)
	}
	if claude.SubReplays() == 0 {
		t.Fatal("no subagent file resumed from its record")
	}
}
