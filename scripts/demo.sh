#!/usr/bin/env bash
# The main job on the bundled sample. Grown by each layer.
set -euo pipefail
: "${BEN10:?set BEN10 to the ben10 binary}"
"$BEN10" version

cd "$(dirname "$0")/.."
sample=testdata/demo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== pack the sample context into an archive"
"$BEN10" archive pack --out "$work/demo.ctx" --codec zstd --level default \
	metadata="$sample/metadata.json" \
	conversation="$sample/conversation.jsonl" \
	file-registry="$sample/file-registry.json" \
	task-state="$sample/task-state.md"

echo "== inspect it"
"$BEN10" archive inspect "$work/demo.ctx"

echo "== verify it (deep)"
"$BEN10" archive verify --deep "$work/demo.ctx"

echo "== unpack it and compare with the originals"
"$BEN10" archive unpack "$work/demo.ctx" --dir "$work/out"
cmp "$sample/metadata.json" "$work/out/000-metadata.bin"
cmp "$sample/conversation.jsonl" "$work/out/001-conversation.bin"
cmp "$sample/file-registry.json" "$work/out/002-file-registry.bin"
cmp "$sample/task-state.md" "$work/out/003-task-state.bin"
echo "unpacked segments are identical to the sample files"

echo "== the same, encrypted (passphrase from BEN10_PASSPHRASE)"
export BEN10_PASSPHRASE="demo passphrase"
"$BEN10" archive pack --out "$work/demo-enc.ctx" --encrypt \
	metadata="$sample/metadata.json" conversation="$sample/conversation.jsonl"
"$BEN10" archive verify --deep "$work/demo-enc.ctx"
"$BEN10" archive unpack "$work/demo-enc.ctx" --dir "$work/out-enc"
cmp "$sample/conversation.jsonl" "$work/out-enc/002-conversation.bin"
unset BEN10_PASSPHRASE

echo "== a damaged archive is caught"
cp "$work/demo.ctx" "$work/damaged.ctx"
printf 'X' | dd of="$work/damaged.ctx" bs=1 seek=200 conv=notrunc 2>/dev/null
if "$BEN10" archive verify --deep "$work/damaged.ctx"; then
	echo "demo: damage not detected" >&2
	exit 1
fi
echo "demo: ok"
