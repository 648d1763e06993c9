# SPDX-License-Identifier: GPL-2.0-or-later
"""The checks of report-shape.sh and report-holistic.sh on a record from gen-record.

    WORK=.. S=.. R=.. T=.. V=.. K=.. P=.. python3 expect.py QUEUE_DIR

QUEUE_DIR holds the checks the script queued (expect.sh): N.what, N.json and N.py for
N = 1, 2, ... Each N.py runs with the JSON document N.json as `d`, gen-record's parameters
S R T V K P, the script's scratch directory `work`, and the reference model below
(computed from those parameters, not from damonc's code); it calls check(what, got, want). One process runs them all: a python start
costs more than most checks. Prints a line per check that failed and exits 1 if any did.
"""
import json
import math
import os
import sys

S, R, T, V, K, P = (int(os.environ[k]) for k in "S R T V K P".split())
work = os.environ["WORK"]  # the files beside the JSON are there
MiB, BASE = 1 << 20, 0x7f0000000000


def counts(t, snaps=range(S)):
    """The regions of target t in each of snapshots snaps."""
    return [R + i % V + t for i in snaps]


def pct(vals, p):
    """The percentile as damonc's reports give it, as damo computes it (its
    _damo_dist.get_percentile()): the value at index int(p / 100 * n) of the sorted values,
    the last for 100."""
    v = sorted(vals)
    return v[min(int(p / 100.0 * len(v)), len(v) - 1)]


def heat(t, snaps, tbins, abins):
    """The heatmap grid of target t over snapshots snaps (a column each: fewer than tbins)
    for a record made with --footprints (the (i % R)-th tenth hot): rows of the smallest
    power of two of bytes that needs no more than abins of them from BASE (aligned)."""
    covered = max(R + i % V + t for i in snaps) * MiB
    w = 1
    while -(-covered // w) > abins:
        w *= 2
    na = -(-covered // w)
    grid = []
    for i in snaps:
        band = max(R // 10, 1)
        rate = [1.0 if j < R and (j + R - i % R) % R < band else 0.0
                for j in range(R + i % V + t)]
        col = []
        for a in range(na):
            lo, hi = a * w, min((a + 1) * w, 1 << 62)
            s = wt = 0
            for j, r in enumerate(rate):
                ov = min(hi, (j + 1) * MiB) - max(lo, j * MiB)
                if ov > 0:
                    s += r * ov
                    wt += ov
            col.append(int(s / wt * 10000 + 0.5) if wt else None)
        grid.append(col)
    return grid


errors = []


def check(what, got, want):
    if got != want:
        errors.append(f"{what}: got {got!r}, want {want!r}")


failed = 0
queue = sys.argv[1]
n = 1
while os.path.exists(f"{queue}/{n}.py"):
    def read(ext):
        with open(f"{queue}/{n}.{ext}") as f:
            return f.read()
    errors = []
    try:
        exec(read("py"), dict(globals(), d=json.loads(read("json"))))
    except Exception as e:  # a check that cannot run fails, named
        errors.append(f"{type(e).__name__}: {e}")
    if errors:
        print(f"FAIL: {read('what')}: " + "; ".join(errors))
        failed = 1
    n += 1
if n == 1:
    print(f"FAIL: no checks queued in {queue}")
    failed = 1
sys.exit(failed)
