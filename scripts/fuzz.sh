#!/usr/bin/env bash
# Runs every native fuzz target of the module, each for FUZZTIME (make fuzz).
# Targets are discovered, not listed: the packages whose _test.go files
# declare `func Fuzz…`, then `go test -list '^Fuzz'` on each of them, so a
# target added beside its code is fuzzed without touching this script.
#
#   FUZZTIME      per target (default 10s); CI uses less
#   FUZZMINIMIZE  cap on minimising each new interesting input (default 100x)
#   FUZZRUN       only the targets whose name matches this regexp
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
FUZZMINIMIZE=${FUZZMINIMIZE:-100x}
FUZZRUN=${FUZZRUN:-.}

mapfile -t dirs < <(git ls-files '*_test.go' 2>/dev/null | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sort -u)
if [ ${#dirs[@]} -eq 0 ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
targets=()
for d in "${dirs[@]}"; do
	pkg=$($GO list "./$d")
	for t in $($GO test -list '^Fuzz' "./$d" | grep '^Fuzz' | grep -E -- "$FUZZRUN" || true); do
		targets+=("$pkg $t")
	done
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no fuzz target matches FUZZRUN=$FUZZRUN" >&2
	exit 1
fi
echo "fuzz: ${#targets[@]} targets in ${#dirs[@]} packages, $FUZZTIME each"
n=0
for pt in "${targets[@]}"; do
	read -r pkg t <<<"$pt"
	n=$((n + 1))
	echo "== [$n/${#targets[@]}] $pkg $t ($FUZZTIME)"
	out=$(mktemp)
	if ! $GO test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" "$pkg" 2>&1 | tee "$out"; then
		# The fuzzing engine reports "context deadline exceeded", with no
		# failing input, when an input is still running as -fuzztime ends
		# (slow targets on a loaded machine). That is not a finding: run
		# the target once more. A real failure names its input and fails.
		if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written to' "$out"; then
			echo "fuzz: $t stopped by the engine's deadline, no failing input: once more"
			$GO test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE" "$pkg"
		else
			rm -f "$out"
			exit 1
		fi
	fi
	rm -f "$out"
done
echo "fuzz: ok (${#targets[@]} targets)"
