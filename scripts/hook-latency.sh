#!/bin/bash
# hook-latency.sh BEFORE_DIR AFTER_DIR [N]: interleaved runs of two builds
# (each directory holds ben10 and ben10-hook) for `ben10 hook stop` and
# for an event the shim hands on (`ben10-hook session-start`, resume);
# prints the mean time of each and the ratio after/before, measured in the
# same run. Build the two directories with e.g.
#   git archive REV | tar -x -C /tmp/rev && (cd /tmp/rev && go build -o /tmp/before/ ./cmd/ben10 ./cmd/ben10-hook)
#   go build -o /tmp/after/ ./cmd/ben10 ./cmd/ben10-hook
set -eu
before=$1 after=$2 n=${3:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/proj"
export HOME=$work/home CLAUDE_CONFIG_DIR=
in='{"session_id":"s1","cwd":"'$work/proj'","hook_event_name":"Stop","transcript_path":"'$work/home/none.jsonl'","source":"resume"}'
declare -A tot
now() { date +%s%N; }
for _ in $(seq "$n"); do
  for v in before after; do
    d=${!v}
    t0=$(now); echo "$in" | "$d/ben10" hook stop >/dev/null 2>&1; t1=$(now)
    tot[$v-stop]=$(( ${tot[$v-stop]:-0} + t1 - t0 ))
    t0=$(now); echo "$in" | "$d/ben10-hook" session-start >/dev/null 2>&1; t1=$(now)
    tot[$v-shim]=$(( ${tot[$v-shim]:-0} + t1 - t0 ))
  done
done
for k in stop shim; do
  b=${tot[before-$k]} a=${tot[after-$k]}
  printf '%-5s before %6d us  after %6d us  ratio %s\n' "$k" $(( b / n / 1000 )) $(( a / n / 1000 )) "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}')"
done
