#!/usr/bin/env bash
# Where `make test` spends its time: runs the -short suite once (or the
# go test arguments given, e.g. `scripts/test-times.sh -run TestX ./cmd/ben10`)
# and prints, per package, the wall time (go test -json Elapsed) and the CPU
# time (user+sys of the test binary and the children it waited for, from
# rusage), then the TOP slowest tests (default 25), then the total wall time.
#
#   scripts/test-times.sh                 # the make test run
#   TOP=40 scripts/test-times.sh ./cmd/ben10/
#   JSON=/tmp/run.json scripts/test-times.sh   # also keep the raw -json
#
# CPU is what compares between runs on a shared, loaded machine; wall
# times move with the load. Packages run in parallel (-p, default GOMAXPROCS),
# so their wall times add up to more than the total.
set -euo pipefail
cd "$(dirname "$0")/.."
top="${TOP:-25}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
json="${JSON:-$tmp/run.json}"
# The -exec wrapper runs each test binary under GNU time, which writes
# "<binary> <user> <sys>" to the CPU log once the binary exits.
cat >"$tmp/exec.sh" <<'WRAP'
#!/usr/bin/env bash
exec /usr/bin/time -a -o "$BEN10_TEST_CPU_LOG" -f "$(basename "$1") %U %S" "$@"
WRAP
chmod +x "$tmp/exec.sh"
export BEN10_TEST_CPU_LOG="$tmp/cpu.log"
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(./...)
start=$(date +%s.%N)
set +e
"${GO:-go}" test -short -vet=off -count=1 -json -exec "$tmp/exec.sh" "${args[@]}" >"$json"
rc=$?
set -e
end=$(date +%s.%N)
python3 - "$json" "$tmp/cpu.log" "$top" "$start" "$end" <<'PY'
import json, sys, collections
path, cpulog, top, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
pkgwall, tests, failed = {}, [], []
for line in open(path):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    act, pkg, test = e.get("Action"), e.get("Package", ""), e.get("Test")
    if act in ("pass", "fail", "skip") and test is None and "Elapsed" in e:
        pkgwall[pkg] = e["Elapsed"]
    if act in ("pass", "fail") and test and "/" not in test:
        tests.append((e.get("Elapsed", 0), pkg, test))
    if act == "fail":
        failed.append(pkg + (" " + test if test else ""))
cpu = collections.defaultdict(float)
try:
    for line in open(cpulog):
        parts = line.split()
        if len(parts) == 3 and parts[0].endswith(".test"):
            cpu[parts[0][:-5]] += float(parts[1]) + float(parts[2])
except FileNotFoundError:
    pass
short = lambda p: p.split("/ben10/", 1)[-1] if "/ben10/" in p else p
print(f"{'package':40} {'wall s':>8} {'cpu s':>8}")
tw = tc = 0.0
for p, w in sorted(pkgwall.items(), key=lambda kv: -kv[1]):
    # the test binary is named after the package's last element
    c = cpu.get(p.rsplit("/", 1)[-1], 0.0)
    tw += w; tc += c
    print(f"{short(p):40} {w:8.2f} {c:8.2f}")
print(f"{'sum over packages':40} {tw:8.2f} {tc:8.2f}")
print(f"\nslowest {top} tests (top-level, wall s):")
for w, p, t in sorted(tests, reverse=True)[:top]:
    print(f"{w:8.2f}  {short(p)}  {t}")
print(f"\ntotal wall (compile + run): {end - start:.1f} s")
if failed:
    print("FAILED:", *failed, sep="\n  ")
PY
exit $rc
