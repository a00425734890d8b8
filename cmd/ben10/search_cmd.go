package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/store"
	"github.com/spf13/cobra"
)

// searchOptions are `ben10 search`'s flags.
type searchOptions struct {
	g         *globalOptions
	project   string
	all       bool
	assistant string
	since     string
	session   string
	kinds     []string
	limit     int
	noUpdate  bool
	unauth    bool
}

// newSearchCmd builds `ben10 search`.
func newSearchCmd(g *globalOptions) *cobra.Command {
	o := searchOptions{g: g}
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search everything captured, across projects and assistants",
		Long: `Search the recall index: the user and assistant messages, commands,
tool outputs, errors, paths, todos and compaction summaries of every archive
of every project Ben10 knows (all projects unless --project is given).

Every term of QUERY must occur, as a substring, case-insensitively (paths,
identifiers and flags match in part: "calc/add", "--count", "handleReq");
"quoted words" must occur together; terms need three characters or more.
Hits are ranked with bm25. Each hit has a reference for ` + "`ben10 show REF`" + `.

Only archives this user's Ben10 saved (their authentication tag verifies
under your key) and team archives you pulled (` + "`ben10 remote pull`" + `, marked
[team]) are searched. Hits from any other archive — one without a tag, with
another user's, or changed since it was saved, such as an archive that came
with a cloned repository — are withheld and counted on stderr;
--include-unauthenticated shows them, each marked with why it is not yours.

Before it answers, search indexes what was saved since the last update
(--no-update skips that).`,
		Example: `  ben10 search "go test ./pkg/calc"            # every project
  ben10 search handleReq --project . --since 7d
  ben10 search migrations --kind path,command --assistant codex --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSearch(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.project, "project", "", "search only this project directory")
	f.BoolVar(&o.all, "all", false, "search every project (the default)")
	f.StringVar(&o.assistant, "assistant", "", "only this assistant's sessions: claude, codex, gemini, kimi")
	f.StringVar(&o.since, "since", "", "only what happened since: a duration (36h, 7d) or a date (2026-01-02)")
	f.StringVar(&o.session, "session", "", "only sessions whose id starts with this")
	f.StringSliceVar(&o.kinds, "kind", nil, "only these kinds: user, assistant, command, output, path, error, todo, summary")
	f.IntVar(&o.limit, "limit", 10, "number of hits")
	f.BoolVar(&o.noUpdate, "no-update", false, "search the index as it is, without indexing new archives first")
	f.BoolVar(&o.unauth, "include-unauthenticated", false, "also show hits from archives not authenticated as yours, marked")
	return c
}

// openIndex opens the user's recall index. With update non-nil it first
// indexes what changed (by default every known project and the fallback
// stores, and update's projects); a failed update is a warning on errw,
// the index is searched as it is.
func openIndex(ctx context.Context, g *globalOptions, errw io.Writer, update *index.UpdateOptions) (*index.Index, error) {
	home, err := store.HomeDir()
	if err != nil {
		return nil, err
	}
	x, err := index.Open(index.Options{Home: home})
	if err != nil {
		return nil, err
	}
	if x.Rebuilt != "" && !g.quiet {
		fmt.Fprintf(errw, "ben10: the recall index was damaged; it was moved to %s and is built again\n", x.Rebuilt)
	}
	if update != nil {
		if _, err := x.Update(ctx, *update); err != nil && !g.quiet {
			fmt.Fprintf(errw, "ben10: warning: updating the recall index: %v\n", err)
		}
	}
	return x, nil
}

// currentProject is the working directory, canonical (see
// store.CanonicalDir), or "" when it cannot be resolved.
func currentProject() string {
	c, _ := store.CanonicalDir(".")
	return c
}

func runSearch(ctx context.Context, out, errw io.Writer, o searchOptions, text string) error {
	if o.all && o.project != "" {
		return fmt.Errorf("search: --all and --project exclude each other")
	}
	q := index.Query{Text: text, Assistant: o.assistant, Session: o.session, Kinds: o.kinds, Limit: o.limit, Unauthenticated: o.unauth}
	if o.limit <= 0 {
		return fmt.Errorf("search: --limit must be positive, not %d", o.limit)
	}
	for _, k := range o.kinds {
		if !slices.Contains(searchKinds, k) {
			return fmt.Errorf("search: unknown --kind %q (%s)", k, strings.Join(searchKinds, ", "))
		}
	}
	if o.since != "" {
		t, err := parseSince(o.since, time.Now())
		if err != nil {
			return fmt.Errorf("search: --since: %w", err)
		}
		q.Since = t
	}
	var scan []string
	if o.project != "" {
		p, err := store.CanonicalDir(o.project)
		if err != nil {
			return fmt.Errorf("search: --project %s: %w", o.project, err)
		}
		q.Project = p
		scan = append(scan, p)
	} else if p := currentProject(); p != "" {
		scan = append(scan, p)
	}
	var update *index.UpdateOptions
	if !o.noUpdate {
		update = &index.UpdateOptions{Projects: scan}
	}
	x, err := openIndex(ctx, o.g, errw, update)
	if err != nil {
		return err
	}
	defer x.Close()
	res, err := x.Search(ctx, q)
	if err != nil {
		return err
	}
	hits := res.Hits
	if w := res.Withheld.Say("hits"); w != "" && !o.g.quiet {
		fmt.Fprintf(errw, "ben10: %s; --include-unauthenticated shows them\n", w)
	}
	if o.g.json {
		return printJSON(out, nonNil(hits))
	}
	if len(hits) == 0 {
		fmt.Fprintf(errw, "no match for %q\n", text)
		return &exitError{code: 1, err: fmt.Errorf("no match")}
	}
	writeHits(out, hits)
	return nil
}

// writeHits prints hits for a terminal: a header line per hit and its
// snippet on one line.
func writeHits(out io.Writer, hits []index.Hit) {
	for i, h := range hits {
		when := "-"
		if !h.Time.IsZero() {
			when = h.Time.Local().Format("2006-01-02 15:04")
		}
		proj := tildePath(h.Project)
		if h.Source != "" {
			proj = h.Source // a teammate's archive, pulled
		}
		fmt.Fprintf(out, "%d. %s  %s  %s  %s/%s  %s%s\n", i+1, proj, orNone(shortSession(h.Session)), when, h.Assistant, h.Kind, h.Ref, trustLabel(h.Trust))
		fmt.Fprintf(out, "   %s\n", oneLine(h.Snippet, 200))
	}
}

// trustLabel marks a hit or shown archive that is not this user's own:
// " [team]" for pulled team content, " [unauthenticated: why]" for an
// archive that is not trusted.
func trustLabel(trust string) string {
	switch {
	case trust == index.TrustUser:
		return ""
	case trust == index.TrustTeam:
		return " [team]"
	}
	return " [unauthenticated: " + index.TrustReason(trust) + "]"
}

// searchKinds are the row kinds --kind takes.
var searchKinds = []string{index.KindUser, index.KindAssistant, index.KindCommand, index.KindOutput, index.KindPath, index.KindError, index.KindTodo, index.KindSummary}

// parseSince reads --since (search, remote push): a duration (Go's, plus
// "d" for days and "w" for weeks) before now, or a date (2006-01-02) or
// RFC 3339 time; "" is the zero time (no limit).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.ParseFloat(s[:n-1], 64)
		if err == nil && v >= 0 {
			day := 24 * time.Hour
			if s[n-1] == 'w' {
				day *= 7
			}
			return now.Add(-time.Duration(v * float64(day))), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither a duration (36h, 7d, 2w) nor a date (2006-01-02)", s)
	}
	return now.Add(-d), nil
}

// runCompIndexSearch is `context compaction search QUERY` without --regex:
// the recall index, limited to the project's snapshots.
func runCompIndexSearch(cmd *cobra.Command, g *globalOptions, st *store.Store, text string, limit int) error {
	ctx := cmd.Context()
	x, err := openIndex(ctx, g, cmd.ErrOrStderr(), &index.UpdateOptions{Projects: []string{st.ProjectDir()}, Only: true})
	if err != nil {
		return err
	}
	defer x.Close()
	if limit <= 0 {
		limit = 1000
	}
	res, err := x.Search(ctx, index.Query{Text: text, Project: st.ProjectDir(), ArchiveKinds: []string{index.ArchiveSnapshot}, Limit: limit})
	if err != nil {
		return err
	}
	hits := res.Hits
	if w := res.Withheld.Say("hits"); w != "" && !g.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "ben10: %s (ben10 search --include-unauthenticated shows them)\n", w)
	}
	out := cmd.OutOrStdout()
	for _, h := range hits {
		id := strings.TrimSuffix(filepath.Base(h.Archive), ".ctx")
		if g.json {
			if err := printJSONLine(out, struct {
				SnapshotID string `json:"snapshot_id"`
				index.Hit
			}{id, h}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(out, "%s  %s %s: %s\n", lastPart(id), h.Kind, h.Ref, oneLine(h.Snippet, 200))
	}
	if len(hits) == 0 && !g.json {
		fmt.Fprintf(cmd.ErrOrStderr(), "no match for %q\n", text)
		return &exitError{code: 1, err: fmt.Errorf("no match")}
	}
	return nil
}
