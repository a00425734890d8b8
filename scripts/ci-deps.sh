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

# The Claude Code CLI (cmd/ben10 TestRealClaude*), pinned: the version
# the harness (internal/claudetest) was written against. npm's package
# ships a native binary. When the npm registry cannot be reached, the
# tests that need claude are skipped — loudly — through a marker in
# internal/e2e's MarkerDir; any other install failure fails them.
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.197}"
markers="${BEN10_E2E_MARKERS:-${XDG_CACHE_HOME:-$HOME/.cache}/ben10-e2e}"
mkdir -p "$markers" && rm -f "$markers/claude"
if claude --version 2>/dev/null | grep -q "^$CLAUDE_CODE_VERSION "; then
	echo "ci-deps: claude $CLAUDE_CODE_VERSION present"
else
	if ! command -v npm >/dev/null; then
		echo "ci-deps: apt-get install nodejs npm"
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null) ||
			echo "ci-deps: WARNING: apt-get could not install nodejs npm" >&2
	fi
	if ! command -v npm >/dev/null; then
		echo "ci-deps: WARNING: no npm: TestRealClaude* will be SKIPPED" >&2
		echo "no npm to install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION (apt-get failed)" >"$markers/claude"
	elif ! timeout 120 npm view "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" version >/dev/null 2>&1; then
		echo "ci-deps: WARNING: the npm registry ($(npm config get registry)) cannot be reached: TestRealClaude* will be SKIPPED" >&2
		echo "npm registry $(npm config get registry) unreachable" >"$markers/claude"
	else
		echo "ci-deps: npm install -g @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
		timeout 600 npm install -g --no-fund --no-audit "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null ||
			echo "ci-deps: WARNING: npm could not install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2
		claude --version >/dev/null 2>&1 ||
			echo "ci-deps: WARNING: claude does not run after the install; TestRealClaude* will fail" >&2
	fi
fi

# MinIO server (remote/ and `ben10 remote` TestReal* tests). Built from the
# Go module proxy into a cache kept between runs on the same machine (the
# first build takes several minutes), then installed on PATH.
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c # @latest as of 2026-02
minio_cache="${BEN10_E2E_CACHE:-$HOME/.cache/ben10-e2e}/minio-$MINIO_VERSION"
if ! command -v minio >/dev/null; then
	if [ ! -x "$minio_cache/minio" ]; then
		echo "ci-deps: go install github.com/minio/minio@$MINIO_VERSION (several minutes the first time)"
		mkdir -p "$minio_cache"
		(cd "$(mktemp -d)" && GOFLAGS= CGO_ENABLED=0 GOBIN="$minio_cache" go install "github.com/minio/minio@$MINIO_VERSION") ||
			echo "ci-deps: WARNING: could not build the MinIO server; the remote TestReal* tests will fail" >&2
	fi
	if [ -x "$minio_cache/minio" ]; then
		install -m 0755 "$minio_cache/minio" /usr/local/bin/minio ||
			echo "ci-deps: WARNING: could not install minio into /usr/local/bin" >&2
	fi
fi
