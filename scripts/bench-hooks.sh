#!/usr/bin/env bash
# Side-by-side hook figures of docs/PERFORMANCE.md, in ONE run: a no-op
# static Go binary (the reference of every ratio), each Ben10 hook's
# synchronous part (what Claude Code waits for) and deja-vu's hook for the
# same event, on a 3 MB and a 100 MB transcript (internal/benchdata);
# then the CPU per MB of the work done after the hook (Ben10's snapshot,
# deja-vu's indexing) and the size of Ben10's archives against `zstd -3`.
#
#   scripts/bench-hooks.sh                    # RUNS=10 (RUNS_BIG=3 at 100 MB)
#   DEJA=/path/to/deja scripts/bench-hooks.sh # deja-vu's binary (else `deja` on PATH,
#                                             # else /work/dejavu/bin/deja); rows skipped without it
#   SIZES="3" scripts/bench-hooks.sh          # 3 MB only
#
# Needs hyperfine, zstd, GNU time (/usr/bin/time), python3, and the
# session corpus (BEN10_CORPUS, else ../shared/corpus or ../../shared/corpus). deja-vu (Go,
# github.com/vshulcz/deja-vu, measured at b264ec72) is built separately:
# this script only runs it, offline (DEJA_OFFLINE=1, DEJA_EMBED=off),
# with its index in the work directory. Everything runs under a fresh
# HOME in a temporary directory. Wall times on a shared machine move
# with its load: read the ratios, which compare commands of the same
# hyperfine group.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
RUNS_BIG=${RUNS_BIG:-3}
SIZES=${SIZES:-3 100}
corpus=${BEN10_CORPUS:-}
for c in ../shared/corpus ../../shared/corpus; do
	[ -n "$corpus" ] || [ ! -d "$c/claude" ] || corpus=$(cd "$c" && pwd)
done
[ -d "$corpus/claude" ] || { echo "no session corpus (set BEN10_CORPUS)" >&2; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

echo "ben10 $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo +dirty), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
make -s build BIN="$work/ben10" >/dev/null
mkdir -p "$work/noop"
printf 'package main\n\nfunc main() {}\n' >"$work/noop/main.go"
(cd "$work/noop" && GOFLAGS= go mod init noop >/dev/null 2>&1 && CGO_ENABLED=0 go build -ldflags '-s -w' -o "$work/noop-go" .)
go build -o "$work/gentranscript" ./internal/benchdata/gentranscript
BEN10="$work/ben10" SHIM="$work/ben10-hook" NOOP="$work/noop-go"
deja_src=${DEJA:-$(command -v deja || echo /work/dejavu/bin/deja)}
DJ=""
if [ -x "$deja_src" ]; then
	# A copy in the work directory, so that its detached indexer is
	# recognised (and waited for) by its path.
	cp "$deja_src" "$work/deja" && DJ="$work/deja"
	echo "deja-vu: $deja_src"
else
	echo "deja-vu: not found (DEJA=…): its rows are skipped"
fi

export HOME="$work/home" DEJA_OFFLINE=1 DEJA_EMBED=off DEJA_INDEX_DIR="$work/deja-index"
mkdir -p "$HOME/.claude/projects"
# Nothing detached that this script started (Ben10's snapshot worker,
# deja-vu's indexer, both run from $work) may share the CPU with a
# measurement: quiesce waits for them, and ends any still running after
# 120 s by process id.
cat >"$work/quiesce.sh" <<EOF
i=0
while pids=\$(pgrep -f "^$work/(ben10|deja) "); do
	i=\$((i + 1))
	if [ \$i -gt 1200 ]; then kill \$pids 2>/dev/null || true; fi
	sleep 0.1
done
EOF
quiesce() { sh "$work/quiesce.sh"; }

hfn=0
hf() { # hf RUNS hyperfine-args…: one group, its first command the reference
	local runs=$1
	shift
	quiesce
	hfn=$((hfn + 1))
	hyperfine -N --warmup 1 --runs "$runs" --style none --export-json "$work/hf-$hfn.json" "$@" >/dev/null
	python3 - "$work/hf-$hfn.json" <<'PY'
import json, statistics, sys
rs = json.load(open(sys.argv[1]))["results"]
ref = statistics.median(rs[0]["times"])
cref = rs[0]["user"] + rs[0]["system"]
print("  %-52s %14s %8s %16s %8s" % ("", "median wall", "ratio", "CPU (user+sys)", "ratio"))
for r in rs:
    m = statistics.median(r["times"])
    c = r["user"] + r["system"]
    print("  %-52s %11.1f ms %7.2fx %13.1f ms %7.2fx" % (r["command"], m * 1e3, m / ref, c * 1e3, c / cref))
PY
}
input() { # input EVENT PROJECT TRANSCRIPT SESSION EXTRA
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$4" "$3" "$2" "$1" "${5:-}"
}

for size in $SIZES; do
	runs=$RUNS
	[ "$size" -ge 50 ] && runs=$RUNS_BIG
	p="$work/proj-$size"
	mkdir -p "$p/.claude"
	pdir="$HOME/.claude/projects/$(echo "$p" | tr '/.' '--')"
	mkdir -p "$pdir"
	t=$("$work/gentranscript" -corpus "$corpus/claude" -dir "$pdir" -size $((size * 1000000)))
	sid=$(basename "$t" .jsonl)
	# As in a real session, every line names this session and this project
	# (the repeated corpus sessions name their own): the snapshot's tag binds
	# the transcript's session and directory, and SessionStart(compact)
	# injects only a snapshot bound to this session or project.
	sed -i -E 's|"sessionId":"[^"]*"|"sessionId":"'"$sid"'"|g; s|"cwd":"[^"]*"|"cwd":"'"$p"'"|g' "$t"
	ctx="$p/.claude/context"
	echo
	echo "== $size MB transcript ($(stat -c %s "$t") bytes, $(wc -l <"$t") lines)"
	input SessionStart "$p" "$t" "$sid" ',"source":"startup"' >"$work/in-start-$size.json"
	input UserPromptSubmit "$p" "$t" "$sid" ',"prompt":"run the tests again"' >"$work/in-prompt-$size.json"
	input PreCompact "$p" "$t" "$sid" ',"trigger":"auto"' >"$work/in-pre-$size.json"
	input SessionStart "$p" "$t" "$sid" ',"source":"compact"' >"$work/in-compact-$size.json"
	input SessionEnd "$p" "$t" "$sid" ',"reason":"prompt_input_exit"' >"$work/in-end-$size.json"
	input PostCompact "$p" "$t" "$sid" ',"trigger":"auto","compact_summary":"This session is being continued from a previous conversation. Files: internal/cart/total.go."' >"$work/in-post-$size.json"
	# Stores to start runs from: empty (after SessionStart and a first
	# prompt), with a checkpoint of the session 20 lines shorter, and with
	# a pre-compaction snapshot (for SessionStart(compact)) and the recall
	# the worker prepared from it (the job done in the hook: sync), and the
	# same after the PostCompact that Claude Code (≥ 2.1.76) runs before
	# SessionStart(compact), which keeps the compaction summary.
	BEN10_HOOK_RECOMPRESS=sync "$BEN10" hook <"$work/in-start-$size.json" >/dev/null
	"$SHIM" user-prompt-submit <"$work/in-prompt-$size.json" >/dev/null
	cp -a "$ctx" "$work/store-empty-$size"
	cp "$t" "$work/full-$size.jsonl"
	head -n -20 "$work/full-$size.jsonl" >"$t"
	printf 'context:\n  checkpoint_interval: 1\n' >"$p/.claude/config.yaml"
	BEN10_HOOK_RECOMPRESS=sync "$BEN10" hook <"$work/in-prompt-$size.json" >/dev/null
	rm "$p/.claude/config.yaml"
	cp "$work/full-$size.jsonl" "$t"
	cp -a "$ctx" "$work/store-cp-$size"
	rm -rf "$ctx" && cp -a "$work/store-empty-$size" "$ctx"
	BEN10_HOOK_RECOMPRESS=sync "$BEN10" hook <"$work/in-pre-$size.json" >/dev/null
	cp -a "$ctx" "$work/store-snap-$size"
	"$SHIM" post-compact <"$work/in-post-$size.json" >/dev/null
	cp -a "$ctx" "$work/store-snappost-$size"
	for s in empty cp snap snappost; do
		printf '. %s\nrm -rf %s\ncp -a %s %s\n' "$work/quiesce.sh" "$ctx" "$work/store-$s-$size" "$ctx" >"$work/prep-$s-$size.sh"
	done
	# The checkpoint's job left a startup record of it (prepared/*.start),
	# which lets the shim decide SessionStart(startup) without opening the
	# archive. A record is bound to its file's inode, which a copy of the
	# store changes: after each copy, one `ben10 hook` run re-records the
	# copied archive (the record the worker wrote, for the new inode), and
	# the hook state is put back as it was.
	ls "$work/store-cp-$size"/prepared/*.start >/dev/null 2>&1 || { echo "the checkpoint's job left no startup record" >&2; exit 1; }
	{
		cat "$work/prep-cp-$size.sh"
		printf '%s hook <%s >/dev/null\ncp %s/hook-state.json %s/hook-state.json\n' "$BEN10" "$work/in-start-$size.json" "$work/store-cp-$size" "$ctx"
	} >"$work/prep-cpstart-$size.sh"
	# The row measures the shim deciding alone: a lone copy of it (no
	# ben10 beside it to hand the event to) must not fail.
	mkdir -p "$work/lone" && cp "$SHIM" "$work/lone/ben10-hook"
	sh "$work/prep-cpstart-$size.sh"
	if "$work/lone/ben10-hook" session-start <"$work/in-start-$size.json" 2>&1 >/dev/null | grep -q .; then
		echo "the shim handed SessionStart(startup) with a recorded checkpoint to ben10 hook" >&2
		exit 1
	fi
	printf '. %s\n' "$work/quiesce.sh" >"$work/prep-none.sh"
	if [ -n "$DJ" ]; then
		rm -rf "$DEJA_INDEX_DIR"
		"$DJ" index >/dev/null 2>&1 || echo "deja index failed" >&2
	fi

	# Every hook runs as Claude Code runs it: a command given its JSON on
	# stdin (through sh -c), and so does the reference, a no-op Go binary.
	run() { printf '%s\n' --prepare "sh $work/prep-$1.sh" -n "$2" "sh -c '$3 <$work/in-$4-$size.json >/dev/null'"; }
	echo "-- start-up-bound hooks"
	mapfile -t args < <(run none "no-op Go binary" "$NOOP" prompt
		run none "UserPromptSubmit: ben10-hook shim" "$SHIM user-prompt-submit" prompt
		run none "UserPromptSubmit: ben10 hook" "$BEN10 hook" prompt
		[ -z "$DJ" ] || run none "UserPromptSubmit: deja hook-prompt" "$DJ hook-prompt" prompt
		run snap-$size "SessionStart(startup): ben10 hook" "$BEN10 hook" start
		run snap-$size "SessionStart(startup): ben10-hook shim (as installed)" "$SHIM session-start" start
		run cpstart-$size "SessionStart(startup), a saved context to check: ben10-hook shim" "$SHIM session-start" start
		run cp-$size "SessionStart(startup), a saved context, no valid record: ben10-hook shim (hands on)" "$SHIM session-start" start
		[ -z "$DJ" ] || run none "SessionStart(startup): deja hook-context" "$DJ hook-context" start)
	hf "$runs" "${args[@]}"

	echo "-- transcript-bound hooks (the synchronous part; the store reset before each run)"
	mapfile -t args < <(run none "no-op Go binary" "$NOOP" pre
		run empty-$size "PreCompact: ben10-hook shim (as installed)" "$SHIM pre-compact" pre
		run empty-$size "PreCompact, no earlier archive: ben10 hook" "$BEN10 hook" pre
		run cp-$size "PreCompact, checkpoint 20 lines older: ben10 hook" "$BEN10 hook" pre
		[ -z "$DJ" ] || run none "PreCompact: deja hook-precompact" "$DJ hook-precompact" pre
		run snappost-$size "SessionStart(compact): ben10 hook" "$BEN10 hook" compact
		run snappost-$size "SessionStart(compact): ben10-hook shim (as installed)" "$SHIM session-start" compact
		run snap-$size "SessionStart(compact), no summary kept: ben10-hook shim" "$SHIM session-start" compact
		[ -z "$DJ" ] || run none "SessionStart(compact): deja hook-context" "$DJ hook-context" compact
		run snap-$size "PostCompact with its summary: ben10-hook shim (as installed)" "$SHIM post-compact" post
		run empty-$size "SessionEnd: ben10-hook shim (as installed)" "$SHIM session-end" end
		run empty-$size "SessionEnd, no earlier archive: ben10 hook" "$BEN10 hook" end
		run cp-$size "SessionEnd, checkpoint 20 lines older: ben10 hook" "$BEN10 hook" end)
	hf "$runs" "${args[@]}"

	echo "-- work after the hook: CPU per MB (user+sys, GNU time), one run each"
	mb=$(python3 -c "print($(stat -c %s "$t")/1e6)")
	cpu() { # cpu NAME COMMAND…: CPU seconds and peak RSS of COMMAND and its children
		local name=$1
		shift
		/usr/bin/time -f '%U %S %M %e' -o "$work/time" "$@" >/dev/null 2>&1 || echo "  ($name failed)"
		read -r u s m e < <(tail -n 1 "$work/time")
		python3 - "$name" "$u" "$s" "$m" "$e" "$mb" <<'PY'
import sys
name, (u, s, m, e, mb) = sys.argv[1], map(float, sys.argv[2:])
print("  %-52s CPU %6.2f s  %6.3f s/MB  wall %6.2f s  max RSS %5.0f MiB" % (name, u + s, (u + s) / mb, e, m / 1024))
PY
	}
	quiesce
	rm -rf "$ctx" && cp -a "$work/store-empty-$size" "$ctx"
	BEN10_HOOK_RECOMPRESS=sync cpu "ben10 PreCompact to snapshot verified on disk" "$BEN10" hook --input "$work/in-pre-$size.json"
	if [ -n "$DJ" ]; then
		rm -rf "$DEJA_INDEX_DIR"
		cpu "deja index (first indexing of the session)" "$DJ" index
	fi
	echo "-- archive size against zstd -3 of the same transcript"
	z3=$(zstd -3 -c "$t" | wc -c)
	for lvl in default better max; do
		"$BEN10" context save --transcript "$t" --out "$work/size.ctx" --full --no-subagents --level "$lvl" -q
		printf '  %-58s %10d bytes  %5.2fx zstd -3 (%d)\n' "ben10 context save --level $lvl (redaction on)" "$(stat -c %s "$work/size.ctx")" "$(python3 -c "print($(stat -c %s "$work/size.ctx")/$z3)")" "$z3"
	done
	ls "$work/store-snap-$size/compaction-snapshots/"*.ctx | while read -r f; do
		printf '  %-58s %10d bytes  %5.2fx zstd -3\n' "snapshot at the default snapshot level" "$(stat -c %s "$f")" "$(python3 -c "print($(stat -c %s "$f")/$z3)")"
	done
done
if [ -s "$HOME/.claude-code/ben10-errors.log" ]; then
	echo "hooks logged errors:" >&2
	cat "$HOME/.claude-code/ben10-errors.log" >&2
	exit 1
fi
