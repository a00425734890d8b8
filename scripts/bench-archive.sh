#!/bin/sh
# Reproduces the archive figures of docs/PERFORMANCE.md: whole-process
# `ben10 context save` against `zstd -3` on the same corpus session, the
# incremental save after 20 new lines, and peak memory on a 100 MB
# transcript, and the archive sizes of every corpus session at the default
# and the max level against zstd -3 / -19 of the main file alone and of the
# main file with its subagent files. Needs zstd, hyperfine and
# /usr/bin/time; corpus at $BEN10_CORPUS (default /work/shared/corpus).
# The binary is pure Go (CGO_ENABLED=0), as make build builds it.
set -eu
CORPUS=${BEN10_CORPUS:-/work/shared/corpus}/claude
S=${SESSION:-4d5611e5-241a-462a-8d15-5122611a9569}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CGO_ENABLED=0 go build -o "$T/ben10" ./cmd/ben10

echo "== sizes: session, raw bytes, zstd -3 and -19 of the main file alone and of main+subagents, archive default and max"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' session raw main-3 main-19 all-3 all-19 ctx-default ctx-max
for f in "$CORPUS"/*.jsonl; do
  d=${f%.jsonl}
  all() { cat "$f"; if [ -d "$d/subagents" ]; then cat "$d"/subagents/*.jsonl; fi; }
  "$T/ben10" context save --transcript "$f" --out "$T/sd.ctx" --redact=false --full -q
  "$T/ben10" context save --transcript "$f" --out "$T/sm.ctx" --redact=false --full --level max -q
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$d" | cut -c1-8)" "$(all | wc -c)" \
    "$(zstd -3 -c "$f" | wc -c)" "$(zstd -19 -c "$f" | wc -c)" \
    "$(all | zstd -3 -c | wc -c)" "$(all | zstd -19 -c | wc -c)" \
    "$(wc -c < "$T/sd.ctx")" "$(wc -c < "$T/sm.ctx")"
done
"$T/ben10" context save --transcript "$CORPUS/$S.jsonl" --out "$T/sm.ctx" --redact=false --full --level max -q
"$T/ben10" archive inspect "$T/sm.ctx"

echo "== full save vs zstd -3"
hyperfine -N -w 3 -r "${RUNS:-30}" \
  "zstd -3 -q -f $CORPUS/$S.jsonl -o $T/y.zst" \
  "$T/ben10 context save --transcript $CORPUS/$S.jsonl --out $T/x.ctx --redact=false --full -q" \
  "$T/ben10 context save --transcript $CORPUS/$S.jsonl --out $T/x2.ctx --full -q"

echo "== incremental save after 20 new lines vs full save"
mkdir -p "$T/inc"
cp -r "$CORPUS/$S" "$T/inc/" && chmod -R u+w "$T/inc"
head -n -20 "$CORPUS/$S.jsonl" > "$T/inc/$S.jsonl"
"$T/ben10" context save --transcript "$T/inc/$S.jsonl" --out "$T/base.ctx" --redact=false -q
cp "$CORPUS/$S.jsonl" "$T/inc/$S.jsonl"
hyperfine -N -w 3 -r "${RUNS:-30}" --prepare "cp $T/base.ctx $T/xi.ctx" \
  "$T/ben10 context save --transcript $T/inc/$S.jsonl --out $T/xi.ctx --redact=false -q" \
  "$T/ben10 context save --transcript $T/inc/$S.jsonl --out $T/xi.ctx --redact=false --full -q"

echo "== incremental save after 20 new lines, redaction on (built-in rules), vs full save and zstd -3"
head -n -20 "$CORPUS/$S.jsonl" > "$T/inc/$S.jsonl"
"$T/ben10" context save --transcript "$T/inc/$S.jsonl" --out "$T/baser.ctx" -q
cp "$CORPUS/$S.jsonl" "$T/inc/$S.jsonl"
hyperfine -N -w 3 -r "${RUNS:-30}" --prepare "cp $T/baser.ctx $T/xr.ctx" \
  "zstd -3 -q -f $T/inc/$S.jsonl -o $T/y.zst" \
  "$T/ben10 context save --transcript $T/inc/$S.jsonl --out $T/xr.ctx -q" \
  "$T/ben10 context save --transcript $T/inc/$S.jsonl --out $T/xr.ctx --full -q"

echo "== peak memory, 100 MB transcript"
B=$(go run ./internal/benchdata/gentranscript -corpus "$CORPUS" -dir "$T" -size 100000000)
ls -l "$B"
for r in false true; do
  /usr/bin/time -f "redact=$r: %e s wall, %U s user, max RSS %M KB" \
    "$T/ben10" context save --transcript "$B" --out "$T/big.ctx" --redact=$r --full -q
done

echo "== in-process benchmarks"
go test -run '^$' -bench 'Import|Save|OpenDigest' -benchtime "${BENCHTIME:-20x}" ./archive
