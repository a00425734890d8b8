#!/usr/bin/env bash
# Reproduces the redaction figures of docs/REDACTION.md and
# docs/PERFORMANCE.md: the same-run comparison with gitleaks (recall on the
# generated labelled corpus, false positives, throughput on the session
# corpus) and the Go benchmarks of package redact.
#
# gitleaks is installed into $(go env GOPATH)/bin as an external benchmark
# tool only; it is not a dependency of the module.
set -euo pipefail
cd "$(dirname "$0")/.."
GITLEAKS="${GITLEAKS:-$(go env GOPATH)/bin/gitleaks}"
if [ ! -x "$GITLEAKS" ]; then
	GOFLAGS= go install github.com/zricethezav/gitleaks/v8@latest
fi
"$GITLEAKS" version
echo "== same-run comparison with gitleaks"
BEN10_GITLEAKS="$GITLEAKS" BEN10_REDACT_REPORT="${BEN10_REDACT_REPORT:-}" \
	go test -count=1 -run '^TestGitleaksComparison$' -v ./redact/
echo "== benchmarks"
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-10x}" -count "${COUNT:-3}" ./redact/
