#!/usr/bin/env bash
# Reproduce the ctxfmt figures of docs/PERFORMANCE.md: ROUNDS interleaved
# rounds of the ctxfmt write/read benchmarks and of the zstd and lz4
# command-line tools on the same 10 MiB payload, then the median and the
# spread of every throughput and of every same-round ratio.
#
#   scripts/bench-ctxfmt.sh            # 5 rounds
#   ROUNDS=10 scripts/bench-ctxfmt.sh
#   MAX=1 scripts/bench-ctxfmt.sh      # also LevelBest (= max) vs zstd -19
#
# Needs zstd and lz4 on PATH and the session corpus (BEN10_CORPUS or
# ../shared/corpus); the benchmarks skip otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
bin=$(mktemp -d)/ctxfmt.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./ctxfmt
out=$(dirname "$bin")/rounds.txt
cd ctxfmt
for r in $(seq 1 "$ROUNDS"); do
	echo "== round $r load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)" | tee -a "$out"
	"$bin" -test.run '^$' -test.benchtime 1s \
		-test.bench 'Write/(zstd-default|zstd-fastest|lz4-default)$|Read/|CLI/(zstd-3|zstd-d|lz4|lz4-d)$' |
		grep '^Benchmark' | tee -a "$out"
done
if [ -n "${MAX:-}" ]; then
	for r in 1 2 3; do
		echo "== max round $r" | tee -a "$out"
		"$bin" -test.run '^$' -test.benchtime 1x -test.bench 'Write/zstd-best$|CLI/zstd-19$' | grep '^Benchmark' | tee -a "$out"
	done
fi

# median and range of a list of numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}; m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "median %.2f  range %.2f–%.2f  (n=%d)\n", m, v[1], v[NR], NR}'; }
# per-round value of a benchmark: MB/s, or ns/op when there is none
col() { awk -v b="^Benchmark$1-[0-9]+$" '$1 ~ b {print ($6=="MB/s")?$5:$3}' "$out"; }
ratio() { paste <(col "$1") <(col "$2") | awk '$2>0 {print $1/$2}'; }

echo
echo "== medians over $ROUNDS rounds (MB/s; OpenReadSmall in ns/op)"
for b in Write/zstd-default Write/zstd-fastest Write/lz4-default \
	Read/zstd-default Read/lz4-default CLI/zstd-3 CLI/zstd-d CLI/lz4 CLI/lz4-d \
	OpenReadSmall/1MB/memory OpenReadSmall/100MB/memory OpenReadSmall/1MB/file OpenReadSmall/100MB/file; do
	printf '%-32s %s\n' "$b" "$(col "$b" | stats)"
done
echo "== same-round ratios"
printf '%-58s %s\n' "write default / zstd -3" "$(ratio Write/zstd-default CLI/zstd-3 | stats)"
printf '%-58s %s\n' "read zstd / zstd -d" "$(ratio Read/zstd-default CLI/zstd-d | stats)"
printf '%-58s %s\n' "write lz4 / lz4 -1" "$(ratio Write/lz4-default CLI/lz4 | stats)"
printf '%-58s %s\n' "read lz4 / lz4 -d" "$(ratio Read/lz4-default CLI/lz4-d | stats)"
printf '%-58s %s\n' "open+read small, 100 MiB / 1 MiB (memory; ns ratio)" "$(ratio OpenReadSmall/100MB/memory OpenReadSmall/1MB/memory | stats)"
printf '%-58s %s\n' "open+read small, 100 MiB / 1 MiB (file; ns ratio)" "$(ratio OpenReadSmall/100MB/file OpenReadSmall/1MB/file | stats)"
