package archive_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

// pending makes tool t look as if its result had not arrived yet.
func pending(t *archive.ToolExec) {
	t.Success, t.Output, t.OutputSpans, t.ResultRef = false, "", nil, archive.RawRef{}
}

// prevOf is a State as an earlier save saw st: its first n tools, the
// last few of them still waiting for their result, and another file
// registry (the fold must not depend on it).
func prevOf(st *archive.State, n int, rng *rand.Rand) *archive.State {
	p := *st
	p.Tools = slices.Clone(st.Tools[:n])
	for k := rng.IntN(4); k > 0 && n > 0; k-- {
		pending(&p.Tools[n-1-rng.IntN(min(n, 6))])
	}
	if len(st.Files) > 0 {
		p.Files = slices.Clone(st.Files[:rng.IntN(len(st.Files)+1)])
	}
	return &p
}

// checkFold checks that the recall of s going on from prev's fold is the
// recall built from scratch, and returns whether the fold applied.
func checkFold(t *testing.T, what string, prev, s *archive.State) bool {
	t.Helper()
	got, applied, _ := archive.RecallFromFold(prev, s)
	want := archive.BuildRecall(s)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: recall from the fold differs\n got %+v\nwant %+v", what, got, want)
	}
	return applied
}

// TestRecallFoldMatchesFromScratch: for random earlier views of every
// corpus session (fewer tools, results still missing, another file
// registry), the recall of the whole session going on from the earlier
// view's fold equals the one built from scratch; the fold applies when the
// tools it covers are unchanged and is refused when one of them changed.
func TestRecallFoldMatchesFromScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	applied := 0
	for _, p := range corpusFiles(t) {
		st := importFile(t, p)
		name := filepath.Base(p)
		for k := range 8 {
			n := rng.IntN(len(st.Tools) + 1)
			if k == 0 {
				n = len(st.Tools)
			}
			prev := prevOf(st, n, rng)
			at := archive.RecallFoldPoint(prev.Tools)
			ok := checkFold(t, fmt.Sprintf("%s cut %d", name, n), prev, st)
			if unchanged := reflect.DeepEqual(prev.Tools[:at], st.Tools[:at]); ok != unchanged {
				t.Fatalf("%s cut %d: fold applied %v, its %d tools unchanged %v", name, n, ok, at, unchanged)
			}
			if ok && at > 0 {
				applied++
			}
			// A tool the fold covers changed since: the fold must not apply.
			if at == 0 {
				continue
			}
			for _, m := range toolMutations {
				s2 := *st
				s2.Tools = slices.Clone(st.Tools)
				j := rng.IntN(at)
				for s2.Tools[j].Sidechain && j > 0 {
					j--
				}
				if s2.Tools[j].Sidechain {
					continue
				}
				m.f(&s2.Tools[j])
				if checkFold(t, fmt.Sprintf("%s cut %d, tool %d %s", name, n, j, m.name), prev, &s2) {
					t.Fatalf("%s cut %d: fold applied although tool %d changed (%s)", name, n, j, m.name)
				}
			}
		}
	}
	if applied == 0 {
		t.Fatal("the fold never applied")
	}
}

// toolMutations change a field the recall's tool pass reads.
var toolMutations = []struct {
	name string
	f    func(t *archive.ToolExec)
}{
	{"success", func(t *archive.ToolExec) { t.Success = !t.Success }},
	{"output", func(t *archive.ToolExec) { t.Output += "\nError: changed"; t.Success = false }},
	{"input", func(t *archive.ToolExec) { t.Input = `{"file_path":"changed.go"}` }},
	{"name", func(t *archive.ToolExec) { t.Name += "x" }},
	{"command", func(t *archive.ToolExec) { t.Command += " --changed" }},
	{"timestamp", func(t *archive.ToolExec) { t.Timestamp = t.Timestamp.Add(time.Millisecond) }},
	{"related files", func(t *archive.ToolExec) { t.RelatedFiles = append(slices.Clone(t.RelatedFiles), "changed.go") }},
	{"sidechain", func(t *archive.ToolExec) { t.Sidechain = true }},
	{"result", func(t *archive.ToolExec) { pending(t) }},
}

// genState is a random State whose tools collide often (few paths,
// commands and messages), with every kind of tool the fold tells apart.
func genState(rng *rand.Rand, dir string) *archive.State {
	st := &archive.State{Meta: archive.Metadata{DirectoryPath: dir}}
	paths := []string{dir + "/a.go", "b.go", "./c/d.go", "/elsewhere/e.go", dir, "src", "*.go", ""}
	cmds := []string{"go test ./...", "go   test ./...", "make\nmake install", "ls", "git status", ""}
	outs := []string{"", "ok", "Error: boom", "exit code 2\nfailed", "Sibling tool call errored", "Exit code 1"}
	names := []string{"Read", "Edit", "Write", "Bash", "Grep", "Glob", "MultiEdit", "Task", "ExitPlanMode", "shell"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 + rng.IntN(60) {
		name := names[rng.IntN(len(names))]
		path, cmd := paths[rng.IntN(len(paths))], cmds[rng.IntN(len(cmds))]
		t := archive.ToolExec{
			ID: fmt.Sprintf("t%d", i), Name: name, Timestamp: base.Add(time.Duration(rng.IntN(100)) * time.Second),
			Input:   fmt.Sprintf(`{"file_path":%q,"path":%q,"pattern":%q,"command":%q}`, path, paths[rng.IntN(len(paths))], path, cmd),
			Success: rng.IntN(3) > 0, Output: outs[rng.IntN(len(outs))], Sidechain: rng.IntN(8) == 0,
		}
		if rng.IntN(3) == 0 {
			t.Command = cmd
		}
		if rng.IntN(4) == 0 {
			t.RelatedFiles = []string{paths[rng.IntN(len(paths))], paths[rng.IntN(len(paths))]}
		}
		if rng.IntN(10) == 0 {
			t.Input = `{"file_path": 5, "broken"`
		}
		st.Tools = append(st.Tools, t)
	}
	for i := range rng.IntN(4) {
		st.Files = append(st.Files, archive.FileRecord{Path: paths[i], Reads: rng.IntN(3), Edits: rng.IntN(2), LastAccess: base.Add(time.Duration(rng.IntN(200)) * time.Second)})
	}
	return st
}

// TestRecallFoldGenerated is TestRecallFoldMatchesFromScratch on generated
// tool histories, including another session directory (the fold must not
// apply).
func TestRecallFoldGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	applied := 0
	for i := range 300 {
		st := genState(rng, "/home/u/proj")
		prev := prevOf(st, rng.IntN(len(st.Tools)+1), rng)
		if checkFold(t, fmt.Sprintf("state %d", i), prev, st) && archive.RecallFoldPoint(prev.Tools) > 0 {
			applied++
		}
		moved := *st
		moved.Meta.DirectoryPath = "/home/u/other"
		if checkFold(t, fmt.Sprintf("state %d, other directory", i), prev, &moved) {
			t.Fatalf("state %d: fold applied to another session directory", i)
		}
	}
	if applied < 100 {
		t.Fatalf("the fold applied %d times in 300", applied)
	}
}

// Truncated or altered checkpoints are refused, never a panic.
func TestRecallFoldDecodeHostile(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	st := genState(rng, "/p")
	var ck []byte
	if _, _, n := archive.RecallFromFold(st, st); n == 0 {
		t.Fatal("no checkpoint")
	}
	ck = archive.RecallFoldBytes(st)
	if !archive.DecodeRecallFold(ck) {
		t.Fatal("a checkpoint does not decode")
	}
	for i := range len(ck) {
		if archive.DecodeRecallFold(ck[:i]) {
			t.Fatalf("a checkpoint cut at %d of %d decodes", i, len(ck))
		}
	}
	for range 2000 {
		b := slices.Clone(ck)
		for k := rng.IntN(4) + 1; k > 0; k-- {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		archive.DecodeRecallFold(b)
	}
}

// A chain of saves, each going on from the previous one's checkpoint,
// gives the recall and the checkpoint (byte for byte) a save from scratch
// gives.
func TestRecallFoldChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	check := func(name string, st *archive.State, mustReuse bool) {
		var prev []byte
		reused := 0
		for _, n := range []int{len(st.Tools) / 3, len(st.Tools) / 2, len(st.Tools) - 5, len(st.Tools) - 1, len(st.Tools)} {
			n = max(n, 0)
			cur := prevOf(st, n, rng)
			if n == len(st.Tools) {
				cur = st
			}
			got, ck, k, err := archive.RecallPayloadFold(cur, prev)
			if err != nil {
				t.Fatal(err)
			}
			want, wantCk, _, _ := archive.RecallPayloadFold(cur, nil)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s at %d tools: recall differs from the one built from scratch", name, n)
			}
			if !slices.Equal(ck, wantCk) {
				t.Fatalf("%s at %d tools: checkpoint differs from the one built from scratch", name, n)
			}
			reused += k
			prev = ck
		}
		if reused == 0 && mustReuse {
			t.Errorf("%s: no save of the chain went on from a checkpoint", name)
		}
	}
	for _, p := range corpusFiles(t) {
		st := importFile(t, p)
		check(filepath.Base(p), st, len(st.Tools) > 100)
	}
	for i := range 50 {
		check(fmt.Sprintf("state %d", i), genState(rng, "/home/u/proj"), false)
	}
}

// elide is s with the texts of its first n tools left out, as a resumed
// importer vouching for them restores it (ModelSource.FoldedTexts).
func elide(s *archive.State, n int) *archive.State {
	e := *s
	e.Tools = slices.Clone(s.Tools)
	for i := range n {
		t := &e.Tools[i]
		if t.Name == "ExitPlanMode" {
			continue
		}
		if len(t.InputSpans) > 0 {
			t.Input = ""
		}
		if len(t.OutputSpans) > 0 {
			t.Output = ""
		}
	}
	e.Source.FoldedTexts = n
	return &e
}

// A State whose first tools' texts are elided gets the recall of the
// whole State from the previous checkpoint covering exactly those tools;
// any change to one of their skeletons, or a checkpoint covering other
// tools, is ErrFoldMismatch, never a wrong recall.
func TestRecallFoldElidedTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	used := 0
	for _, p := range corpusFiles(t) {
		st := importFile(t, p)
		name := filepath.Base(p)
		for range 6 {
			prev := prevOf(st, rng.IntN(len(st.Tools)+1), rng)
			ck := archive.RecallFoldBytes(prev)
			n := archive.RecallFoldPoint(prev.Tools)
			if n == 0 {
				continue
			}
			want, _, _, err := archive.RecallPayloadFold(st, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _, _, err := archive.RecallPayloadFold(elide(st, n), ck)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: recall from elided texts differs", name)
			}
			used++
			// elide(st, 0) elides nothing: a State with all its texts
			// simply does not use a fold that does not apply (no error).
			if _, _, _, err := archive.RecallPayloadFold(elide(st, n-1), ck); n > 1 && !errors.Is(err, archive.ErrFoldMismatch) {
				t.Fatalf("%s: a checkpoint covering other tools: %v", name, err)
			}
			for _, m := range skeletonMutations {
				s2 := *st
				s2.Tools = slices.Clone(st.Tools)
				m.f(&s2.Tools[rng.IntN(n)])
				if _, _, _, err := archive.RecallPayloadFold(elide(&s2, n), ck); !errors.Is(err, archive.ErrFoldMismatch) {
					t.Fatalf("%s: %s changed: %v", name, m.name, err)
				}
			}
		}
	}
	if used == 0 {
		t.Fatal("no elided State tested")
	}
}

// skeletonMutations change a tool in ways its skeleton shows.
var skeletonMutations = []struct {
	name string
	f    func(t *archive.ToolExec)
}{
	{"success", func(t *archive.ToolExec) { t.Success = !t.Success }},
	{"result line", func(t *archive.ToolExec) { t.ResultRef.Line++ }},
	{"output spans", func(t *archive.ToolExec) {
		t.OutputSpans = append(slices.Clone(t.OutputSpans), archive.Span{Off: 1, Len: 1})
	}},
	{"input spans", func(t *archive.ToolExec) {
		t.InputSpans = append(slices.Clone(t.InputSpans), archive.Span{Off: 1, Len: 1})
	}},
	{"line", func(t *archive.ToolExec) { t.Ref.Line++ }},
	{"file", func(t *archive.ToolExec) { t.Ref.File++ }},
	{"name", func(t *archive.ToolExec) { t.Name += "x" }},
	{"id", func(t *archive.ToolExec) { t.ID += "x" }},
	{"timestamp", func(t *archive.ToolExec) { t.Timestamp = t.Timestamp.Add(time.Millisecond) }},
	{"related files", func(t *archive.ToolExec) { t.RelatedFiles = append(slices.Clone(t.RelatedFiles), "x") }},
	{"sidechain", func(t *archive.ToolExec) { t.Sidechain = !t.Sidechain }},
	{"duration", func(t *archive.ToolExec) { t.DurationMS++ }},
}
