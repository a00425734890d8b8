#!/usr/bin/env python3
"""Interleaved A/B timing of whole processes, for before/after comparisons
on a shared, loaded machine (docs/PERFORMANCE.md).

    N=30 PREP='sh prep.sh' scripts/ab.py 'cmd A ...' 'cmd B ...' ...

Runs every command once per round, in turn, for 3 warm-up rounds and N
measured rounds (so a change of load hits every command alike, unlike
hyperfine's command after command), with PREP (a shell command) before each
run when set. Prints, per command, the median and minimum wall time, the
median user and system CPU time of the process and its children (rusage),
and the median wall time over the first command's.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

n = int(os.environ.get("N", "30"))
prep = os.environ.get("PREP")
cmds = [shlex.split(c) for c in sys.argv[1:]]
if not cmds:
    sys.exit(__doc__)
res = [[] for _ in cmds]
for r in range(n + 3):
    for i, c in enumerate(cmds):
        if prep:
            subprocess.run(prep, shell=True, check=True)
        t0 = time.perf_counter()
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            sys.exit("%s: exit status %d" % (" ".join(c), status))
        if r >= 3:
            res[i].append((wall, ru.ru_utime, ru.ru_stime))
ref = statistics.median(w for w, _, _ in res[0])
for i, c in enumerate(cmds):
    w = statistics.median(x[0] for x in res[i])
    u = statistics.median(x[1] for x in res[i])
    s = statistics.median(x[2] for x in res[i])
    print("%-64s wall median %7.2f ms  min %7.2f  user %6.2f  sys %6.2f  %5.2fx"
          % (" ".join(c)[-64:], w * 1e3, min(x[0] for x in res[i]) * 1e3, u * 1e3, s * 1e3, w / ref))
