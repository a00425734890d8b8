#!/bin/sh
# bench-search.sh BEN10 QUERIES RAWDIR: p50 wall and CPU time (user +
# system, ms) of whole processes, one query after the other: `BEN10 search
# Q` (with the catch-up update it runs first), `BEN10 search Q --no-update`,
# and `rg -F -i -l Q RAWDIR` over the raw JSONL. BEN10 uses the index of
# $HOME. QUERIES holds one query a line (BenchmarkRecallHistory's).
set -eu
BIN=$1 QUERIES=$2 RAW=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
K="search no-update rg"
while IFS= read -r q; do
	for k in $K; do
		case $k in
		search) set -- "$BIN" search "$q" ;;
		no-update) set -- "$BIN" search "$q" --no-update ;;
		rg) set -- rg -F -i -l -- "$q" "$RAW" ;;
		esac
		/usr/bin/time -f "%e %U %S" -o "$T/one" "$@" >/dev/null 2>&1 || true
		cat "$T/one" >>"$T/$k"
	done
done <"$QUERIES"
p50() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for k in $K; do
	printf '%-10s wall p50 %6s ms   cpu p50 %5s ms\n' "$k" \
		"$(awk '{print $1*1000}' "$T/$k" | p50)" "$(awk '{print ($2+$3)*1000}' "$T/$k" | p50)"
done
