#!/usr/bin/env python3
"""Colour in the text reports, on a real pseudo-terminal (Python's pty module): on a terminal
the heatmap's cells, features' and diagnose's words are coloured; NO_COLOR (set and not
empty), --color=never or --color never (before or after the command) turn it off; a pipe
gets none unless --color=always, which NO_COLOR does not override; JSON is never coloured.

    color-pty.py DAMONC GEN_RECORD
"""
import atexit
import os
import pty
import shutil
import subprocess
import sys
import tempfile

DAMONC, GEN = sys.argv[1:3]
WORK = tempfile.mkdtemp(prefix="damonc-color.")
atexit.register(shutil.rmtree, WORK)
RECORD = os.path.join(WORK, "rec")
SYSROOT = os.path.join(WORK, "root")
with open(RECORD, "wb") as f:
    subprocess.run([GEN, "--snapshots", "10", "--regions", "10"], stdout=f, check=True)
os.makedirs(os.path.join(SYSROOT, "sys/kernel/mm/damon/admin/kdamonds"))
with open(os.path.join(SYSROOT, "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"), "w") as f:
    f.write("0\n")
ESC = b"\x1b["
failed = False


def run_pty(args, env):
    """The output of damonc @args with its standard output on a pseudo-terminal."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(DAMONC, [DAMONC] + args, env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        check(False, "damonc %s exited %d on a terminal" % (" ".join(args), status))
    return out


def run_pipe(args, env):
    return subprocess.run([DAMONC] + args, env=env, stdout=subprocess.PIPE, check=True).stdout


def check(ok, what):
    global failed
    if not ok:
        print("FAIL: " + what)
        failed = True


base = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
base["TERM"] = "xterm-256color"
heatmap = ["report", "heatmap", "-i", RECORD]
cases = [
    # (where, args, NO_COLOR or None, coloured?)
    ("pty", heatmap, None, True),
    ("pty", ["--sysroot", SYSROOT, "features"], None, True),
    ("pty", ["--sysroot", SYSROOT, "diagnose"], None, True),
    ("pty", heatmap, "1", False),
    ("pty", heatmap, "", True),  # set but empty: no-color.org's "not set"
    ("pty", ["--color=never"] + heatmap, None, False),
    ("pty", heatmap + ["--color", "never"], None, False),
    ("pty", ["--json"] + heatmap, None, False),
    ("pipe", heatmap, None, False),
    ("pipe", heatmap + ["--color=always"], None, True),
    ("pipe", ["--color", "always"] + heatmap, "1", True),
    ("pipe", ["--json", "--color=always"] + heatmap, None, False),
]
for where, args, no_color, want in cases:
    env = dict(base)
    if no_color is not None:
        env["NO_COLOR"] = no_color
    out = (run_pty if where == "pty" else run_pipe)(args, env)
    check((ESC in out) == want, "%s, NO_COLOR=%r, damonc %s: %s" % (
        where, no_color, " ".join(args), "not coloured" if want else "coloured"))
    if want and args[-2:] == ["-i", RECORD] and "heatmap" in args:
        # the heat: cells on a 256-colour background, the characters kept
        check(b"\x1b[48;5;" in out and b"|" in out, "the heatmap's cells are not coloured")
        plain = run_pipe(heatmap, base)
        stripped = out.replace(b"\r\n", b"\n")
        while ESC in stripped:
            i = stripped.index(ESC)
            stripped = stripped[:i] + stripped[stripped.index(b"m", i) + 1:]
        check(stripped == plain, "the coloured heatmap's text differs from the plain one")
sys.exit(1 if failed else print("ok: colour on a terminal; NO_COLOR, --color and pipes respected"))
