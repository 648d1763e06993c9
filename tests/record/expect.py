# SPDX-License-Identifier: GPL-2.0-or-later
"""The checks of report-shape.sh and report-holistic.sh on a record from gen-record.

    S=.. R=.. T=.. V=.. K=.. P=.. python3 expect.py JSON_FILE PYTHON_CHECK

PYTHON_CHECK runs with the JSON document as `d`, gen-record's parameters S R T V K P, and
the reference model below (computed from those parameters, not from damonc's code); it calls
check(what, got, want). Exit 1 with the failed checks on stdout when any failed.
"""
import json
import math
import os
import sys

S, R, T, V, K, P = (int(os.environ[k]) for k in "S R T V K P".split())
MiB, BASE = 1 << 20, 0x7f0000000000


def counts(t, snaps=range(S)):
    """The regions of target t in each of snapshots snaps."""
    return [R + i % V + t for i in snaps]


def pct(vals, p):
    """Nearest-rank percentile, as damonc documents it."""
    v = sorted(vals)
    return v[min(max(math.ceil(p / 100 * len(v)), 1), len(v)) - 1]


def heat(t, snaps, tbins, abins):
    """The heatmap grid of target t over snapshots snaps (a column each: fewer than tbins)
    for a record made with --footprints (the (i % R)-th tenth hot)."""
    covered = max(R + i % V + t for i in snaps) * MiB
    na = min(abins, covered)
    w = -(-covered // na)
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


d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
if errors:
    print("; ".join(errors))
    sys.exit(1)
