#!/usr/bin/env bash
# Installs what the end-to-end tests (make test-e2e) use, on a fresh
# machine: tmux and Chromium from Debian, the Claude Code CLI from npm,
# a MinIO server. Each step says loudly when it cannot install; the test
# that needs the missing program then fails under BEN10_E2E=1.
set -uo pipefail
need_apt=()
for p in tmux chromium zstd; do command -v "$p" >/dev/null || need_apt+=("$p"); done
if [ ${#need_apt[@]} -gt 0 ]; then
	echo "ci-deps: apt-get install ${need_apt[*]}"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null) ||
		echo "ci-deps: WARNING: apt-get could not install ${need_apt[*]}" >&2
fi
