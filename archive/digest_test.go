package archive

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
