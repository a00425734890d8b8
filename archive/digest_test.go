package archive

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var sectionTitles = []string{
	"## Task and todos",
	"## Latest requests (newest first)",
	"## Files (edited first, most recent first)",
	"## Commands (newest first, with outcome)",
	"## Errors (unresolved first)",
	"## Decisions and preferences",
}

func TestDigestGolden(t *testing.T) {
	r := BuildRecall(synthState())
	summary := "The user asked for retries. We edited uploader/upload.go and ran `go test ./uploader/... -run TestRetry`, then `git push` failed."
	for _, tc := range []struct {
		name string
		opts DigestOptions
	}{
		{"default", DigestOptions{Now: at(200)}},
		{"recovery-with-summary", DigestOptions{Budget: RecoveryDigestBudget, Summary: summary, Now: at(200)}},
		{"budget-700", DigestOptions{Budget: 700, Now: at(200)}},
		{"budget-300", DigestOptions{Budget: 300}},
		{"budget-60", DigestOptions{Budget: 60}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Digest(r, tc.opts)
			budget := tc.opts.Budget
			if budget == 0 {
				budget = DefaultDigestBudget
			}
			if n := DigestLen(got); n > budget {
				t.Fatalf("digest is %d characters, budget %d", n, budget)
			}
			golden := filepath.Join("testdata", "digest", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run `go test ./archive -run TestDigestGolden -update` to create it)", err)
			}
			if got != string(want) {
				t.Errorf("digest differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestDigestContent(t *testing.T) {
	r := BuildRecall(synthState())
	d := Digest(r, DigestOptions{Budget: DefaultDigestBudget, Now: at(200)})
	for _, want := range []string{
		"session 4d5611e5", "branch feature-x", "(1 h ago)", "1 compaction(s), latest auto at 167k tokens",
		"- [in progress] Make the uploader tests pass", "- [pending] Push the branch", "- [done] Add retry option",
		"- “Now make the tests pass and commit”", "- first request: “Add a retry option to the uploader”",
		"- uploader/upload.go (edit 3, read 2)", "- uploader/**/*.go (search 1)",
		"- `git push` → exit 128: fatal: The current branch feature-x has no upstream branch.",
		"- `git add -A && git commit -m \"$(cat <<'EOF'` (+5 lines) → ok",
		"- [unresolved] Bash `git push`: fatal:", "- [resolved later] Edit uploader/upload.go: String to replace not found",
		"- correction: Use exponential backoff, not a fixed delay", "- plan approved: Retry with backoff",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("digest lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "rm -rf /tmp/side") || strings.Contains(d, "sidechain prompt") {
		t.Errorf("digest shows sidechain work:\n%s", d)
	}
	checkSectionOrder(t, d)
}

func TestDigestSummaryLeavesOutWhatItNames(t *testing.T) {
	r := BuildRecall(synthState())
	summary := "Files: `uploader/upload.go`, /home/u/proj/uploader/retry.go and README.md.\nRan `go test ./uploader/...   -run TestRetry`; tools were fine."
	d := Digest(r, DigestOptions{Budget: RecoveryDigestBudget, Summary: summary})
	for _, gone := range []string{"- uploader/upload.go ", "- uploader/retry.go ", "- README.md ", "-run TestRetry` → ok"} {
		if strings.Contains(d, gone) {
			t.Errorf("digest repeats %q that the summary names:\n%s", gone, d)
		}
	}
	for _, kept := range []string{"- uploader/upload_test.go", "- /etc/hosts", "`git push` → exit 128", "3 files and 1 commands it already names"} {
		if !strings.Contains(d, kept) {
			t.Errorf("digest lacks %q:\n%s", kept, d)
		}
	}
	// The error on upload.go stays: errors are kept with their outcome.
	if !strings.Contains(d, "Edit uploader/upload.go: String to replace not found") {
		t.Errorf("error left out:\n%s", d)
	}
}

func TestContainsTerm(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"see `lib/a.ex`.", "lib/a.ex", true},
		{"see lib/a.exs", "lib/a.ex", false},
		{"see /x/lib/a.ex", "lib/a.ex", false},
		{"some tools", "ls", false},
		{"ran ls and git status", "ls", true},
		{"git push --set-upstream", "git push", true},
		{"lib/a.ex", "lib/a.ex", true},
		{"x", "", false},
		{"prefix-lib/a.ex", "lib/a.ex", false},
		{"lib/a.ex lib/a.ex", "lib/a.ex", true},
		{"xlib/a.ex, lib/a.ex", "lib/a.ex", true},
	} {
		if got := containsTerm(tc.text, tc.term); got != tc.want {
			t.Errorf("containsTerm(%q, %q) = %v, want %v", tc.text, tc.term, got, tc.want)
		}
	}
}

func checkSectionOrder(t *testing.T, d string) {
	t.Helper()
	last := -1
	for _, title := range sectionTitles {
		i := strings.Index(d, "\n"+title+"\n")
		if i < 0 {
			continue
		}
		if i < last {
			t.Fatalf("section %q out of order:\n%s", title, d)
		}
		last = i
	}
}

// randomRecall builds a Recall with random sizes and hostile strings.
func randomRecall(rng *rand.Rand) Recall {
	words := []string{"a", "é", "😀", "lib/x.go", "\x00", "\xff", "`", "\n", "  ", strings.Repeat("w", 300), "☃", "\u2028"}
	str := func() string {
		var b strings.Builder
		for i := rng.Intn(12); i >= 0; i-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		return b.String()
	}
	s := &State{Meta: Metadata{SessionID: str(), DirectoryPath: "/p", GitBranch: str(), Title: str()}}
	for i := rng.Intn(40); i >= 0; i-- {
		s.Messages = append(s.Messages, Message{Role: "user", Kind: "prompt", Text: str(), Timestamp: at(i)})
	}
	for i := rng.Intn(80); i >= 0; i-- {
		switch rng.Intn(4) {
		case 0:
			s.Tools = append(s.Tools, ToolExec{Name: "Bash", Command: str(), Output: "Exit code 1\n" + str(), Success: rng.Intn(2) == 0, Timestamp: at(i)})
		case 1:
			s.Tools = append(s.Tools, ToolExec{Name: "Edit", Input: input("file_path", "/p/"+str()), Success: rng.Intn(3) > 0, Output: str(), Timestamp: at(i)})
		case 2:
			s.Tools = append(s.Tools, ToolExec{Name: "Glob", Input: input("pattern", str()), Success: true, Timestamp: at(i)})
		default:
			s.Tools = append(s.Tools, ToolExec{Name: "Read", Input: "{not json" + str(), Success: true, Timestamp: at(i)})
		}
	}
	for i := rng.Intn(10); i >= 0; i-- {
		s.Tasks.Active = append(s.Tasks.Active, Task{Content: str(), Status: "in_progress"})
		s.Tasks.Completed = append(s.Tasks.Completed, Task{Content: str(), Status: "completed"})
		s.Preferences = append(s.Preferences, Preference{Kind: "correction", Text: str()})
	}
	return BuildRecall(s)
}

// TestDigestProperties: for random recalls and budgets the digest is within
// budget, valid UTF-8, deterministic, keeps the section order, and is made
// of whole lines of the unconstrained digest plus "more"/marker lines.
func TestDigestProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		r := randomRecall(rng)
		budget := rng.Intn(MaxDigestBudget+2000) - 50
		summary := ""
		if rng.Intn(2) == 0 {
			summary = "lib/x.go `a` é"
		}
		opts := DigestOptions{Budget: budget, Summary: summary}
		d := Digest(r, opts)
		limit := budget
		if limit <= 0 {
			limit = DefaultDigestBudget
		}
		if limit > MaxDigestBudget {
			limit = MaxDigestBudget
		}
		if n := DigestLen(d); n > limit {
			t.Fatalf("case %d: %d characters over budget %d", i, n, limit)
		}
		if !utf8.ValidString(d) {
			t.Fatalf("case %d: invalid UTF-8", i)
		}
		if d2 := Digest(r, opts); d2 != d {
			t.Fatalf("case %d: not deterministic", i)
		}
		checkSectionOrder(t, d)
		full := unboundedDigest(r, summary)
		fullLines := map[string]bool{}
		for _, l := range strings.Split(full, "\n") {
			fullLines[l] = true
		}
		for _, l := range denseLines(d) {
			if fullLines[l] || strings.HasPrefix(l, "- … ") || strings.HasPrefix(l, "[not shown") || l == "[… truncated]" || l == "" {
				continue
			}
			if clippedOf(l, fullLines) {
				continue // smaller budgets clip long lines shorter
			}
			t.Fatalf("case %d (budget %d): line %q is not a whole line of the full digest", i, budget, l)
		}
	}
}

// unboundedDigest renders every candidate line, with the longest line cap.
func unboundedDigest(r Recall, summary string) string {
	d := digester{r: r, summary: oneLine(summary), budget: 1 << 30, lineCap: 640}
	return d.run()
}

func clippedOf(l string, full map[string]bool) bool {
	p, ok := strings.CutSuffix(l, "…")
	if !ok {
		return false
	}
	for f := range full {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

func TestDigestBudgetClamp(t *testing.T) {
	s := hugeState(300)
	r := BuildRecall(s)
	for _, b := range []int{-1, 0, 1, 5, 14, 15, 100, 2000, 9500, 10000, 50000} {
		d := Digest(r, DigestOptions{Budget: b})
		limit := b
		if b <= 0 {
			limit = DefaultDigestBudget
		}
		if b > MaxDigestBudget {
			limit = MaxDigestBudget
		}
		if n := DigestLen(d); n > limit {
			t.Errorf("budget %d: %d characters", b, n)
		}
		if b >= 2000 && DigestLen(d) < limit*8/10 {
			t.Errorf("budget %d: only %d characters used though much was left out", b, DigestLen(d))
		}
	}
}

// TestDigestLenReference: the ASCII fast path counts as decoding every
// rune does, also for invalid UTF-8.
func TestDigestLenReference(t *testing.T) {
	ref := func(s string) int {
		n := 0
		for _, r := range s {
			n++
			if r >= 0x10000 {
				n++
			}
		}
		return n
	}
	alphabet := []string{"a", " ", "é", "😀", "\xff", "\xc3", "\x80", "\xf0\x9f", "日"}
	rng := rand.New(rand.NewSource(7))
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		if got, want := DigestLen(b.String()), ref(b.String()); got != want {
			t.Fatalf("DigestLen(%q) = %d, want %d", b.String(), got, want)
		}
	}
}

func TestDigestLen(t *testing.T) {
	if n := DigestLen("aé😀"); n != 4 {
		t.Fatalf("DigestLen = %d, want 4 (the emoji is two UTF-16 units)", n)
	}
	if got := clip("ab😀cd", 4); got != "ab…" && DigestLen(got) > 4 {
		t.Fatalf("clip = %q", got)
	}
}

func BenchmarkDigest(b *testing.B) {
	r := BuildRecall(hugeState(2000))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Digest(r, DigestOptions{Budget: RecoveryDigestBudget, Summary: "lib/x.go"})
	}
}

func BenchmarkBuildRecall(b *testing.B) {
	s := hugeState(2000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = BuildRecall(s)
	}
}

func ExampleDigest() {
	s := &State{
		Meta: Metadata{SessionID: "0f1e2d3c-aaaa", DirectoryPath: "/src/app", GitBranch: "main"},
		Messages: []Message{
			{Role: "user", Kind: "prompt", Text: "Fix the failing build"},
		},
		Tools: []ToolExec{
			{Name: "Bash", Input: `{"command":"make"}`, Output: "Exit code 2\nmain.go:3: undefined: foo", Success: false},
			{Name: "Edit", Input: `{"file_path":"/src/app/main.go"}`, Success: true},
			{Name: "Bash", Input: `{"command":"make"}`, Success: true},
		},
		Tasks: TaskState{Active: []Task{{Content: "Fix the build", Status: "in_progress"}}},
	}
	fmt.Println(Digest(BuildRecall(s), DigestOptions{Budget: DefaultDigestBudget}))
	// Output:
	// # Ben10 context · session 0f1e2d3c · branch main
	// project /src/app; 1 messages, 3 tool calls, 0 files.
	// ## Task and todos
	// - [in progress] Fix the build
	// ## Latest requests (newest first)
	// - first request: “Fix the failing build”
	// ## Files (edited first, most recent first)
	// - main.go (edit 1)
	// ## Commands (newest first, with outcome)
	// - `make` ×2 → ok (failed 1 of 2 runs)
	// ## Errors (unresolved first)
	// - [resolved later] Bash `make`: main.go:3: undefined: foo
}

func TestMoreLineCost(t *testing.T) {
	for _, hidden := range []int{1, 9, 10, 12345} {
		s := &dsection{noun: "files", items: make([]ditem, hidden+1), n: hidden + 1, taken: 1}
		s.items[0] = newItem("- x", 0)
		s.itemSum = s.items[0].n
		want := s.itemSum + DigestLen(s.moreLine()) + 1
		if got := s.cost(); got != want || s.hidden() != hidden {
			t.Errorf("hidden %d: cost %d, want %d", s.hidden(), got, want)
		}
	}
}

// denseLines returns d's lines with its dense notation (digest_dense.go)
// written out: abbreviations expanded, the legend left out, and each
// command group line replaced by the lines of its commands, as the
// digest writes them when it does not group.
func denseLines(d string) []string {
	var pairs []string
	for _, l := range strings.Split(d, "\n") {
		if legend, ok := strings.CutPrefix(l, "Path abbreviations: "); ok {
			for _, e := range strings.Split(legend, "; ") {
				if name, prefix, ok := strings.Cut(e, " = "); ok {
					pairs = append(pairs, name+"/", prefix+"/")
				}
			}
		}
	}
	if len(pairs) > 0 {
		d = strings.NewReplacer(pairs...).Replace(d)
	}
	var out []string
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "Path abbreviations: ") {
			continue
		}
		key, rest, ok := strings.Cut(strings.TrimPrefix(l, "- `"), "` ×")
		_, variants, grouped := strings.Cut(rest, " → ok: ")
		if !strings.HasPrefix(l, "- `") || !ok || !grouped {
			out = append(out, l)
			continue
		}
		for _, v := range strings.Split(variants, " · ") {
			cmd, runs, _ := strings.Cut(strings.TrimPrefix(v, "`"), "`")
			out = append(out, "- `"+key+" "+cmd+"`"+runs+" → ok")
		}
	}
	return out
}
