#!/usr/bin/env python3
"""damonc shell driven through a real pseudo-terminal (Python's pty module), against the
emulator tree at $ADMIN: completion of a command, an option and a live value (a kdamond
index), history across two sessions (readline's ^P and ^R), Ctrl-C during
`report hugepage --watch 1s` returning to the prompt with the tree unchanged, Ctrl-C at the
prompt, Ctrl-\\ quitting a line but never the shell, `every` until Ctrl-C, and a failing command's status in the prompt and as the shell's exit status.

    shell-pty.py DAMONC SYSROOT TARGET_PID    (XDG_STATE_HOME set by the caller)

Each wait is bounded by what the shell prints (the prompt coming back), never a fixed sleep.
"""
import errno
import os
import pty
import re
import resource
import select
import signal
import struct
import sys
import termios
import fcntl
import time

DAMONC, SYSROOT, TARGET = sys.argv[1], sys.argv[2], sys.argv[3]
ADMIN = os.path.join(SYSROOT, "sys/kernel/mm/damon/admin")
HISTORY = os.path.join(os.environ["XDG_STATE_HOME"], "damonc", "history")
PROMPT = re.compile(rb"damonc \(sysroot [^)]*\)( \[\d+\])?> $")
LIMIT = 60 * float(os.environ.get("MESON_TEST_TIMEOUT_MULTIPLIER", "1") or 1)


def fail(msg, out=b""):
    sys.stderr.write("FAIL: %s\n" % msg)
    if out:
        sys.stderr.write("--- the terminal said:\n%s\n" % out.decode(errors="replace"))
    sys.exit(1)


class Shell:
    def __init__(self):
        env = dict(os.environ, TERM="dumb", INPUTRC="/dev/null")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            # a line quit by Ctrl-\ leaves no core file behind
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.execvpe(DAMONC, [DAMONC, "--sysroot", SYSROOT, "shell"], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.out = b""

    def read_until(self, pattern, what):
        """Read until @pattern matches the end of what came since the last call."""
        start, buf = time.monotonic(), b""
        while True:
            m = pattern.search(buf)
            if m:
                self.out += buf
                return buf
            left = LIMIT - (time.monotonic() - start)
            if left <= 0:
                fail("timed out waiting for " + what, self.out + buf)
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            if not data:
                fail("the shell ended while waiting for " + what, self.out + buf)
            buf += data

    def prompt(self, what):
        return self.read_until(PROMPT, "the prompt after " + what)

    def send(self, text):
        os.write(self.fd, text.encode() if isinstance(text, str) else text)

    def line(self, text):
        """Type @text and Enter; what it printed up to the next prompt."""
        self.send(text + "\r")
        return self.prompt(repr(text))

    def exit_status(self):
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline:
            try:
                os.read(self.fd, 4096)
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        fail("the shell did not exit", self.out)


def last_history():
    with open(HISTORY) as f:
        lines = f.read().splitlines()
    return lines[-1] if lines else ""


def sysfs_read(p):
    """A file read again while it fails with EBUSY (up to 500 times): state, pid and the
    paths take damon_sysfs_lock with a trylock, which the kdamond's refresh holds a moment."""
    for _ in range(500):
        try:
            with open(p) as f:
                return f.read()
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
            time.sleep(0.01)
    with open(p) as f:
        return f.read()


def config():
    """The writable files of the tree (the configuration and the state) and their values."""
    files = {}
    for d, _, names in os.walk(ADMIN):
        for n in names:
            p = os.path.join(d, n)
            if os.stat(p).st_mode & 0o200:
                try:
                    files[os.path.relpath(p, ADMIN)] = sysfs_read(p)
                except OSError as e:
                    files[os.path.relpath(p, ADMIN)] = "error %d" % e.errno
    return files


# ---- session 1 ----
sh = Shell()
sh.prompt("starting")

# a command: "stat" + Tab is "status " (start, stop and status share "st")
sh.line("stat\t")
if last_history() != "status ":
    fail("Tab after 'stat' gave %r, expected 'status '" % last_history(), sh.out)

# an option: "--regi" + Tab is "--regions "
sh.line("status --regi\t")
if last_history() != "status --regions ":
    fail("Tab after '--regi' gave %r" % last_history(), sh.out)

# a kdamond damonc started shows in the prompt
out = sh.line("start --pid %s --action stat --quota-size 1GiB" % TARGET)
if b"kdamond 0 on" not in out:
    fail("the prompt does not show kdamond 0 on", sh.out)

def watch_then(key, what):
    """`report hugepage --watch 1s`, then @key once it printed a sample: the prompt."""
    sh.send("report hugepage --watch 1s\r")
    # a sample line ("  1.0s  2.01 GiB ..."), not the echo of what was typed
    sh.read_until(re.compile(rb"\n\s*\d+\.\ds\s"), "the report's first sample")
    sh.send(key)
    return sh.prompt(what)


# Ctrl-C during a report that repeats: back at the prompt, the tree as it was
before = config()
out = watch_then(b"\x03", "Ctrl-C")
# the report ends as it does on the command line: a Ctrl-C is how --watch is stopped (0)
if not re.search(rb"kdamond 0 on\)> $", out):
    fail("the prompt after Ctrl-C shows a failure", sh.out)
if config() != before:
    fail("Ctrl-C during report hugepage --watch changed the tree", sh.out)

# Ctrl-C at the prompt drops the line typed so far; many times, for a Ctrl-C that comes
# while readline still handles the keys before it (CI: one such waited for a key forever)
for _ in range(200):
    sh.send("stop --all")
    sh.send(b"\x03")
    sh.prompt("Ctrl-C at the prompt")
if sysfs_read(os.path.join(ADMIN, "kdamonds/0/state")).strip() != "on":
    fail("Ctrl-C at the prompt ran the line", sh.out)

# every INTERVAL COMMAND: runs again until Ctrl-C
sh.send("every 200ms features --json\r")
sh.read_until(re.compile(rb"Every 200ms: features --json[\s\S]*Every 200ms: features --json"
                         rb"[\s\S]*format_version"), "a second run of every")
sh.send(b"\x03")
sh.prompt("Ctrl-C during every")

# Ctrl-\ quits the line that runs (status 131), never the shell, at the prompt neither
out = watch_then(b"\x1c", "Ctrl-\\ during a report")
if not re.search(rb"\[131\]> $", out):
    fail("the prompt after Ctrl-\\ does not show status 131", sh.out)
sh.send(b"\x1c")
out = sh.line("status")
if not re.search(rb"kdamond 0 on\)> $", out):
    fail("the shell did not answer after Ctrl-\\ at the prompt", sh.out)

# a failing command: its status in the prompt
out = sh.line("tune --kdamond 9 --min-size 4KiB")
if not re.search(rb"\[2\]> $", out):
    fail("the prompt after a bad tune does not show status 2", sh.out)

# a live value: the only kdamond's index, read from the tree
sh.line("tune --min-size 8KiB --kdamond \t")
if last_history() != "tune --min-size 8KiB --kdamond 0 ":
    fail("Tab after '--kdamond' gave %r" % last_history(), sh.out)

out = sh.line("tune --kdamond 9 --min-size 4KiB")
sh.send("exit\r")
status = sh.exit_status()
if status != 2:
    fail("exit after a failing line: the shell exited %d, expected 2" % status, sh.out)

# ---- session 2: history from session 1 ----
sh = Shell()
sh.prompt("starting again")
# ^P: the previous line (the exit is in the history too, so twice)
out = sh.line("\x10\x10")
if last_history() != "tune --kdamond 9 --min-size 4KiB":
    fail("^P in a second session gave %r" % last_history(), sh.out)
# ^R: search the history
sh.line("\x12regions")
if last_history() != "status --regions ":
    fail("^R 'regions' gave %r" % last_history(), sh.out)
out = sh.line("stop")
if b"kdamond 0 on" in out.split(b"\n")[-1]:
    fail("the prompt still shows kdamond 0 on after stop", sh.out)
sh.send(b"\x04")	# ^D: end of input
status = sh.exit_status()
if status != 0:
    fail("^D after a good line: the shell exited %d, expected 0" % status, sh.out)
print("ok: damonc shell through a pseudo-terminal")
