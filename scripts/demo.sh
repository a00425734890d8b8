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
echo "== archive demo: ok"

# ---------------------------------------------------------------------------
# The main job: Claude Code hooks, driven with real hook JSON on stdin, on the
# bundled synthetic session (testdata/demo/claude-session.jsonl), in a
# temporary HOME so nothing of yours is touched.
# ---------------------------------------------------------------------------
export HOME="$work/home"
# The hooks' queued work (snapshots, saves) is done inside each hook here,
# so every step shows its result at once; Claude Code runs it in the
# background worker.
export BEN10_HOOK_WORK=sync
mkdir -p "$HOME"
project="$work/cart-service"
mkdir -p "$project"
project=$(cd "$project" && pwd -P)
session=5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b
encoded=$(printf '%s' "$project" | sed 's/[^a-zA-Z0-9]/-/g')
transcript="$HOME/.claude/projects/$encoded/$session.jsonl"
mkdir -p "$(dirname "$transcript")"
# The session's transcript, as Claude Code would have written it in this
# project (the sample's cwd is replaced by the demo project's).
sed "s#/home/dev/cart-service#$project#g" "$sample/claude-session.jsonl" >"$work/full.jsonl"
boundary=$(grep -n '"subtype":"compact_boundary"' "$work/full.jsonl" | cut -d: -f1)
head -n $((boundary - 1)) "$work/full.jsonl" >"$transcript"

# hook EVENT JSON: run the hook the way Claude Code does — as `ben10 hooks
# install` registers it: UserPromptSubmit through the ben10-hook shim when
# it sits next to ben10, every other event through `ben10 hook` — and show
# what the user and Claude get.
shim="$(dirname "$BEN10")/ben10-hook"
hook() {
	local event=$1 json=$2 out
	if [ "$event" = user-prompt-submit ] && [ -x "$shim" ]; then
		echo "\$ ben10-hook $event  <<< '${json:0:110}…'"
		out=$(printf '%s' "$json" | (cd "$project" && "$shim" "$event"))
	else
		echo "\$ ben10 hook $event  <<< '${json:0:110}…'"
		out=$(printf '%s' "$json" | (cd "$project" && "$BEN10" hook "$event"))
	fi
	printf '%s' "$out" | "$BEN10" internal render-hook-output
}
common="\"session_id\":\"$session\",\"transcript_path\":\"$transcript\",\"cwd\":\"$project\""

echo
echo "== install the hooks (user scope: \$HOME/.claude/settings.json)"
"$BEN10" hooks install
"$BEN10" hooks install # idempotent
"$BEN10" hooks status --dir "$project"
cat "$HOME/.claude/settings.json"

mkdir -p "$project/.claude"
printf 'context:\n  checkpoint_interval: 3\n' >"$project/.claude/config.yaml"
echo "(project config: checkpoint every 3 prompts)"

echo
echo "== 1. a session starts in a project with no saved context"
hook session-start "{$common,\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"

echo
echo "== 2. the user works: 4 prompts (a checkpoint after the 3rd)"
grep '"permissionMode"' "$work/full.jsonl" | head -n 4 | while IFS= read -r line; do
	prompt=$(printf '%s' "$line" | sed 's/.*"content":"\([^"]*\)".*/\1/' | cut -c1-60)
	hook user-prompt-submit "{$common,\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"$prompt\"}"
done
ls -l "$project/.claude/context/checkpoints/"

echo
echo "== 3. the context fills up: PreCompact snapshots it before compaction"
hook pre-compact "{$common,\"hook_event_name\":\"PreCompact\",\"trigger\":\"auto\",\"custom_instructions\":\"\"}"
ls -l "$project/.claude/context/compaction-snapshots/"
echo "(the hook took note; the worker wrote the snapshot at the configured level)"
grep '"level"' "$project/.claude/context/compaction-snapshots/index.json"

echo
echo "== 4. Claude Code compacts: the transcript gains the boundary and the summary"
cat "$work/full.jsonl" >"$transcript"
hook session-start "{$common,\"hook_event_name\":\"SessionStart\",\"source\":\"compact\"}"
echo "-- the same event fired again injects nothing:"
hook session-start "{$common,\"hook_event_name\":\"SessionStart\",\"source\":\"compact\"}"

has() { "$BEN10" "$@" --help 2>/dev/null | grep -q "^  ben10 $* "; }
if has context compaction list; then
	echo
	echo "\$ ben10 context compaction list"
	(cd "$project" && "$BEN10" context compaction list)
fi

echo
echo "== 5. the session ends: final save into current.ctx"
hook session-end "{$common,\"hook_event_name\":\"SessionEnd\",\"reason\":\"prompt_input_exit\"}"
ls -l "$project/.claude/context/"
if has context status; then
	echo "\$ ben10 context status"
	(cd "$project" && "$BEN10" context status)
fi

echo
echo "== 6. a new session starts in the same project: the handoff is injected, once"
next=0b6c1d2e-3f40-4a51-8b62-7c8d9e0f1a2b
hook session-start "{\"session_id\":\"$next\",\"transcript_path\":\"$HOME/.claude/projects/$encoded/$next.jsonl\",\"cwd\":\"$project\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"

echo
echo "== 7. restoring by hand: the digest only, then selected components"
echo "\$ ben10 context restore --mode summary"
(cd "$project" && "$BEN10" context restore --mode summary)
echo "\$ ben10 context restore --mode selective --components files,tasks"
(cd "$project" && "$BEN10" context restore --mode selective --components files,tasks)
echo "\$ ben10 context restore --mode fresh    # the next session starts clean"
(cd "$project" && "$BEN10" context restore --mode fresh)
third=7d8e9f00-1122-4334-8556-a7b8c9d0e1f2
hook session-start "{\"session_id\":\"$third\",\"transcript_path\":\"$HOME/.claude/projects/$encoded/$third.jsonl\",\"cwd\":\"$project\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}"

echo
echo "== the hook state (prompt counts, checkpoints, recoveries with their audit trail)"
cat "$project/.claude/context/hook-state.json"
if [ -s "$HOME/.claude-code/ben10-errors.log" ]; then
	echo "demo: hooks logged errors:" >&2
	cat "$HOME/.claude-code/ben10-errors.log" >&2
	exit 1
fi
echo
echo "== uninstall removes only Ben10's entries"
"$BEN10" hooks uninstall
cat "$HOME/.claude/settings.json"
echo "demo: ok"
