package main

import (
	"fmt"
	"strings"
)

// unifiedDiff is a unified diff (3 lines of context) of a → b, named
// name, or "" when they are equal. Lines are compared whole; it is meant
// for files of a few thousand lines at most (settings files).
func unifiedDiff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	// lcs[i][j]: length of the longest common subsequence of x[i:], y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int // line number in a (0-based) of this or the next a line
		bi   int
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i, j})
			i++
			j++
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', y[j], i, j})
			j++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (after)\n", name, name)
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after
		// the last change that is at most 2*ctx lines further.
		start := max(k-ctx, 0)
		end := k
		for e := k; e < len(ops); e++ {
			if ops[e].kind != ' ' {
				end = e
			} else if e-end > 2*ctx {
				break
			}
		}
		end = min(end+ctx+1, len(ops))
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		as, bs := ops[start].ai+1, ops[start].bi+1
		if na == 0 {
			as-- // an empty range names the line before it
		}
		if nb == 0 {
			bs--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", as, na, bs, nb)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
