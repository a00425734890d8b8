#!/bin/sh
# Times `ben10 context compaction list` on a store with 500 snapshots and
# `ben10 context status --brief` against the start-up of a no-op Go binary,
# in one hyperfine run (docs/PERFORMANCE.md, "Snapshots and status").
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s build BIN="$work/ben10" >/dev/null  # the static release build (see Makefile)
mkdir -p "$work/noop" "$work/project"
cat > "$work/noop/main.go" <<'GO'
package main

func main() {}
GO
(cd "$work/noop" && printf 'module noop\n\ngo 1.26\n' > go.mod && go build -o "$work/noop-go" .)
BEN10_BENCH_STORE="$work/project" BEN10_BENCH_SNAPSHOTS=${SNAPSHOTS:-500} \
	go test -count=1 -run '^TestMakeBenchStore$' ./snapshot >/dev/null
# A saved context so that status --brief has a current.ctx.meta to read.
"$work/ben10" context save --transcript transcript/claude/testdata/11111111-2222-4333-8444-555555555555.jsonl --dir "$work/project" -q
cd "$work/project"
hyperfine -N --warmup 20 --runs ${RUNS:-300} \
	-n noop-go "$work/noop-go" \
	-n 'ben10 version' "$work/ben10 version" \
	-n 'compaction list (500)' "$work/ben10 context compaction list" \
	-n 'compaction list --json (500)' "$work/ben10 context compaction list --json" \
	-n 'status --brief' "$work/ben10 context status --brief" \
	--export-markdown "$work/result.md"
cat "$work/result.md"
