#!/usr/bin/env bash
# Peak memory of every kind of save against the budget of docs/PERFORMANCE.md
# (64 MiB + 1x the transcript), on a transcript whose lines redaction
# changes (internal/benchdata: corpus sessions repeated, a made-up secret in
# one text line in 5), in ONE run:
#
#   scripts/bench-savemem.sh              # SIZES="3 100"
#   SIZES=100 BEN10=/path/to/ben10 scripts/bench-savemem.sh
#
# Rows: `context save --out` (new archive), the worker's SessionEnd save
# and PreCompact snapshot (queued by the hook with BEN10_HOOK_WORK=defer,
# then `ben10 internal work --once` measured; the snapshot also at
# compression_level 19, i.e. max), the SessionEnd save after a
# checkpoint 20 lines older (incremental), and `context save --level` at
# each level of LEVELS (default: all four) with its size against `zstd -3`. Then, per assistant of
# ASSISTANTS (default "codex gemini kimi"), `context save --out` of a
# session of that size made from its corpus file (gentranscript -from:
# repeated, the same made-up secrets), against its own budget. Needs GNU
# time, zstd and the session corpus (BEN10_CORPUS, else ../shared/corpus).
# Peak RSS is what GNU time reports (%M, KiB).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-3 100}
ASSISTANTS=${ASSISTANTS-codex gemini kimi}
LEVELS=${LEVELS-default better best max}
corpus=${BEN10_CORPUS:-}
for c in ../shared/corpus ../../shared/corpus; do
	[ -n "$corpus" ] || [ ! -d "$c/claude" ] || corpus=$(cd "$c" && pwd)
done
[ -d "$corpus/claude" ] || { echo "no session corpus (set BEN10_CORPUS)" >&2; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
if [ -z "${BEN10:-}" ]; then
	make -s build BIN="$work/ben10" >/dev/null
	BEN10="$work/ben10"
fi
go build -o "$work/gentranscript" ./internal/benchdata/gentranscript
echo "$BEN10: ben10 $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo +dirty), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
export HOME="$work/home" BEN10_HOOK_WORK=defer
mkdir -p "$HOME/.claude/projects"
input() { # input EVENT PROJECT TRANSCRIPT SESSION EXTRA
	printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$4" "$3" "$2" "$1" "${5:-}"
}
mem() { # mem NAME COMMAND…: peak RSS, CPU and wall time of COMMAND
	local name=$1
	shift
	/usr/bin/time -f '%M %U %S %e' -o "$work/time" "$@" >/dev/null 2>&1 || echo "  ($name failed)"
	read -r m u s e < <(tail -n 1 "$work/time")
	python3 - "$name" "$m" "$u" "$s" "$e" "$budget" <<'PY'
import sys
name, (m, u, s, e, b) = sys.argv[1], map(float, sys.argv[2:])
print("  %-50s %7.1f MiB  %5.2f of the budget  CPU %6.2f s  wall %6.2f s" % (name, m / 1024, m / 1024 / b, u + s, e))
PY
}
for size in $SIZES; do
	p="$work/proj-$size"
	mkdir -p "$p/.claude"
	pdir="$HOME/.claude/projects/$(echo "$p" | tr '/.' '--')"
	mkdir -p "$pdir"
	t=$("$work/gentranscript" -corpus "$corpus/claude" -dir "$pdir" -size $((size * 1000000)) -secrets 5)
	sid=$(basename "$t" .jsonl)
	sed -i -E 's|"sessionId":"[^"]*"|"sessionId":"'"$sid"'"|g; s|"cwd":"[^"]*"|"cwd":"'"$p"'"|g' "$t"
	bytes=$(stat -c %s "$t")
	budget=$(python3 -c "print(64 + $bytes / 2**20)")
	echo
	echo "== $size MB transcript ($bytes bytes, $(grep -c 'key \(ghp_\|AKIA\|sk-ant-\)' "$t") lines with a secret), budget $budget MiB"
	ctx="$p/.claude/context"
	mem "context save --out (new archive)" "$BEN10" context save --transcript "$t" --out "$work/new.ctx" -q
	for ev in SessionEnd PreCompact; do
		rm -rf "$ctx"
		extra=',"reason":"prompt_input_exit"'
		[ "$ev" = PreCompact ] && extra=',"trigger":"auto"'
		input "$ev" "$p" "$t" "$sid" "$extra" | "$BEN10" hook >/dev/null
		mem "$ev: the worker's save" "$BEN10" internal work --once
	done
	rm -rf "$ctx"
	printf 'context:\n  compaction_snapshots:\n    compression_level: 19\n' >"$p/.claude/config.yaml"
	input PreCompact "$p" "$t" "$sid" ',"trigger":"auto"' | "$BEN10" hook >/dev/null
	mem "PreCompact, compression_level 19 (max)" "$BEN10" internal work --once
	rm "$p/.claude/config.yaml"
	# A checkpoint of the session 20 lines shorter, then SessionEnd.
	rm -rf "$ctx"
	cp "$t" "$work/full.jsonl"
	head -n -20 "$work/full.jsonl" >"$t"
	"$BEN10" context save --transcript "$t" --dir "$p" -q
	cp "$work/full.jsonl" "$t"
	input SessionEnd "$p" "$t" "$sid" ',"reason":"prompt_input_exit"' | "$BEN10" hook >/dev/null
	mem "SessionEnd after a checkpoint (incremental)" "$BEN10" internal work --once
	z3=$(zstd -3 -c "$t" | wc -c)
	for lvl in $LEVELS; do
		mem "context save --out --level $lvl" "$BEN10" context save --transcript "$t" --out "$work/l.ctx" --full --level "$lvl" -q
		printf '  %-50s %10d bytes  %5.2fx zstd -3 (%d)\n' "  its size" "$(stat -c %s "$work/l.ctx")" "$(python3 -c "print($(stat -c %s "$work/l.ctx")/$z3)")" "$z3"
	done
	# The largest JSONL session of each assistant's corpus folder (Kimi's
	# wire log: a flat layout needs its sessions/ directory), repeated.
	for a in $ASSISTANTS; do
		src=$(ls -S "$corpus/$a"/*.jsonl 2>/dev/null | head -n 1)
		[ -n "$src" ] || { echo "  (no $a session in $corpus/$a)"; continue; }
		mkdir -p "$work/$a-$size"
		t=$("$work/gentranscript" -from "$src" -dir "$work/$a-$size" -size $((size * 1000000)) -secrets 5)
		bytes=$(stat -c %s "$t")
		budget=$(python3 -c "print(64 + $bytes / 2**20)")
		echo "  $a: $(basename "$src") repeated, $bytes bytes, budget $budget MiB"
		mem "$a: context save --out (new archive)" "$BEN10" context save --transcript "$t" --harness "$a" --out "$work/$a.ctx" -q
		rm -rf "$work/$a-$size" "$work/$a.ctx"
	done
done
