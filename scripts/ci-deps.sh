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
