#!/usr/bin/env python3
"""The session CLI driven from code, the way an agent platform calls it: subprocess.run with
captured output and a timeout, under timeout(1), with extra fds open, and with the caller's
whole process group killed afterwards. On both backends.

A sandbox outlives `session create`; if it kept the caller's stdout pipe, capture_output
would wait for EOF until the timeout; if it stayed in the caller's process group, killing
that group (Ctrl-C, a service manager, timeout(1)) would kill the sandbox with it.

Usage: session_from_code_test.py (SANDSHIM_BIN names the binary). Root; exits 77 otherwise.
Prints `ok - …` / `not ok - …` and a closing `N passed, N failed`.
"""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
BIN = os.environ.get("SANDSHIM_BIN", os.path.join(REPO, "build", "sandshim"))
TIMEOUT = 90  # seconds a CLI call may take before we call it a hang

passed = failed = 0


def check(name, fn):
    global passed, failed
    try:
        fn()
        passed += 1
        print(f"ok - {name}", flush=True)
    except Exception as e:  # a check's failure is counted, the others still run
        failed += 1
        print(f"not ok - {name}: {e}", flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


class Env:
    def __init__(self, backend):
        self.backend = backend
        self.work = tempfile.mkdtemp(prefix=f"sandshim-fromcode-{backend}.")
        os.chmod(self.work, 0o755)
        self.root = os.path.join(self.work, "root")
        self.rootfs = os.path.join(self.work, "rootfs")
        self.ws = os.path.join(self.work, "ws")
        os.makedirs(self.ws)
        os.chmod(self.ws, 0o777)
        out = subprocess.run(["bash", "-c", f'. "{HERE}/lib/image.sh"; build_rootfs "{self.rootfs}"'],
                             capture_output=True, text=True, timeout=TIMEOUT)
        if out.returncode != 0:
            raise RuntimeError("cannot build the test rootfs: " + out.stderr[-300:])
        self.config = os.path.join(self.work, "config.json")
        with open(self.config, "w") as f:
            json.dump({"audit_dir": os.path.join(self.work, "audit")}, f)

    def argv(self, *words):
        return [BIN, "--root", self.root, "--backend", self.backend, "session", *words]

    def env(self):
        e = dict(os.environ)
        e["SANDSHIM_CONFIG"] = self.config
        return e

    def run(self, *words, **kw):
        return subprocess.run(self.argv(*words), capture_output=True, text=True, timeout=TIMEOUT,
                              env=self.env(), **kw)

    def create(self, sid):
        return self.run("create", sid, "--rootfs", self.rootfs, "--workspace", self.ws, "--json")

    def cleanup(self):
        listed = self.run("list", "--json")
        try:
            ids = [s["id"] for s in json.loads(listed.stdout or "[]")]
        except ValueError:
            ids = []
        for sid in ids:
            self.run("delete", sid)
        subprocess.run(["bash", "-c", f'grep -o "{self.root}/@sessions/[^ ]*/rootfs" /proc/self/mountinfo'
                        " | xargs -r -n1 umount -l"], capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)

    def leaks(self):
        r = subprocess.run([os.path.join(REPO, "scripts", "check-leaks.sh"), "--match", self.work, "--root",
                            self.root, "--wait", "5"], capture_output=True, text=True)
        return "" if r.returncode == 0 else (r.stdout + r.stderr).strip().replace("\n", " ")


def pids_of_session(e, sid):
    """Host pids whose command line names this session's container (runsc sandbox/gofer) or
    whose cgroup does (native init)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{p}/cgroup") as f:
                cg = f.read()
        except OSError:
            continue
        if f"sess-{sid}" in cmd or f"sess-{sid}" in cg:
            found.append(int(p))
    return found


def session_checks(e):
    b = e.backend

    def captured_create_and_exec():
        t0 = time.monotonic()
        r = e.create("cap1")
        took = time.monotonic() - t0
        expect(r.returncode == 0, f"create rc={r.returncode}: {r.stderr.strip()[-300:]}")
        info = json.loads(r.stdout)
        expect(info.get("id") == "cap1", f"create --json id: {r.stdout[:200]}")
        expect(took < 30, f"create took {took:.1f}s with captured output")
        r = e.run("exec", "cap1", "--", "sh", "-c", "echo out; echo err >&2; exit 7")
        expect(r.returncode == 7 and r.stdout == "out\n" and r.stderr == "err\n",
               f"exec: rc={r.returncode} out={r.stdout!r} err={r.stderr!r}")
        r = e.run("inspect", "cap1", "--json")
        expect(r.returncode == 0 and json.loads(r.stdout).get("status") == "running", f"inspect: {r.stdout[:200]}")

    def no_caller_fd_in_sandbox():
        # An extra pipe the caller leaves open for the CLI (pass_fds): once the CLI has
        # returned and we close our copy, nothing may hold the write end.
        rfd, wfd = os.pipe()
        try:
            r = subprocess.run(e.argv("create", "fd1", "--rootfs", e.rootfs, "--workspace", e.ws),
                               capture_output=True, text=True, timeout=TIMEOUT, env=e.env(), pass_fds=(wfd,))
            expect(r.returncode == 0, f"create: {r.stderr.strip()[-300:]}")
            os.close(wfd)
            wfd = -1
            os.set_blocking(rfd, False)
            deadline = time.monotonic() + 5
            while True:
                try:
                    data = os.read(rfd, 1)
                except BlockingIOError:
                    data = None
                if data == b"":
                    break  # EOF: no one else holds it
                expect(time.monotonic() < deadline, "a process started by create still holds the caller's pipe")
                time.sleep(0.05)
        finally:
            os.close(rfd)
            if wfd >= 0:
                os.close(wfd)

    def under_timeout1():
        r = subprocess.run(["timeout", "60"] + e.argv("create", "to1", "--rootfs", e.rootfs, "--workspace", e.ws),
                           capture_output=True, text=True, timeout=TIMEOUT, env=e.env())
        expect(r.returncode == 0, f"timeout 60 session create: rc={r.returncode} {r.stderr.strip()[-300:]}")
        r = e.run("exec", "to1", "--", "echo", "alive")
        expect(r.stdout == "alive\n", f"exec after timeout(1) create: {r.stdout!r} {r.stderr!r}")

    def caller_group_killed():
        # The platform's own process group dies (a service stop, Ctrl-C on its shell job).
        caller = subprocess.Popen(["sh", "-c", " ".join(f"'{a}'" for a in e.argv(
            "create", "pg1", "--rootfs", e.rootfs, "--workspace", e.ws)) + " >/dev/null 2>&1; echo created; sleep 600"],
            stdout=subprocess.PIPE, text=True, env=e.env(), start_new_session=True)
        try:
            line = caller.stdout.readline()
            expect(line.strip() == "created", f"create under the caller's group: {line!r}")
            pgid = os.getpgid(caller.pid)
            in_group = [p for p in pids_of_session(e, "pg1") if os.getpgid(p) == pgid]
            expect(not in_group, f"session processes in the caller's process group: {in_group}")
            os.killpg(pgid, signal.SIGKILL)
            caller.wait(timeout=10)
        finally:
            if caller.poll() is None:
                caller.kill()
        time.sleep(0.5)
        r = e.run("exec", "pg1", "--", "echo", "survived")
        expect(r.returncode == 0 and r.stdout == "survived\n",
               f"exec after the caller's group was killed: rc={r.returncode} {r.stdout!r} {r.stderr.strip()[-200:]}")
        r = e.run("list", "--json")
        st = {s["id"]: s.get("status") for s in json.loads(r.stdout)}
        expect(st.get("pg1") == "running", f"status after the group kill: {st.get('pg1')}")

    made = []

    def no_id_no_rootfs():
        # `session create --workspace DIR` alone: an id is made and printed, the base is the
        # rootfs builder's default (busybox), built into this run's own cache.
        r = subprocess.run(e.argv("create", "--workspace", e.ws, "--rootfs-cache", os.path.join(e.work, "cache"),
                                  "--json"), capture_output=True, text=True, timeout=TIMEOUT, env=e.env())
        expect(r.returncode == 0, f"create without id/rootfs: {r.stderr.strip()[-300:]}")
        sid = json.loads(r.stdout).get("id", "")
        expect(sid.startswith("s-") and len(sid) == 14, f"made-up id: {sid!r}")
        made.append(sid)
        r = e.run("exec", sid, "--", "sh", "-c", "busybox | head -1")
        expect(r.stdout.startswith("BusyBox"), f"default base: {r.stdout!r} {r.stderr.strip()[-200:]}")

    def delete_all_from_code():
        for sid in ("cap1", "fd1", "to1", "pg1", *made):
            r = e.run("delete", sid)
            expect(r.returncode == 0, f"delete {sid}: {r.stderr.strip()[-200:]}")
        r = e.run("delete", "no-such-session")
        expect(r.returncode != 0 and r.stderr.strip() and "\n" not in r.stderr.strip(),
               f"delete of a missing session: rc={r.returncode} err={r.stderr!r}")
        leaked = e.leaks()
        expect(not leaked, f"leaks: {leaked}")

    for name, fn in [("captured create --json and exec", captured_create_and_exec),
                     ("no caller fd kept by the sandbox", no_caller_fd_in_sandbox),
                     ("create under timeout(1)", under_timeout1),
                     ("session survives its caller's process group", caller_group_killed),
                     ("create with no id and no rootfs", no_id_no_rootfs),
                     ("delete from code leaves nothing", delete_all_from_code)]:
        check(f"{b}: {name}", fn)

def driver_checks(e):
    """What a program driving `session exec` meets every day: a reader that stops early, flags
    written after the id, a path that is not executable, output that is not UTF-8."""
    b = e.backend

    def reader_goes_away(*tty):
        # `session exec ID -- loop | head -1`: the command must end, as it would writing into
        # the pipe itself (the Sentry raises no SIGPIPE for a host pipe whose reader left);
        # with -t too (sandshim relays the terminal: it must not go on relaying forever).
        r = subprocess.run(["bash", "-c", " ".join(f"'{a}'" for a in e.argv(
            "exec", *tty, "drv1", "--", "sh", "-c", "while :; do echo pipe-loop; done")) +
            " 2>/dev/null </dev/null | head -1; echo ${PIPESTATUS[0]}"], capture_output=True, text=True,
            timeout=TIMEOUT, env=e.env())
        expect(r.stdout.split() == ["pipe-loop", "141"], f"output and status: {r.stdout!r} {r.stderr[-200:]!r}")
        deadline = time.monotonic() + 5
        while True:
            left = e.run("exec", "drv1", "--", "sh", "-c", 'ps -o args | grep -c "[p]ipe-loop"').stdout.strip()
            if left == "0" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        expect(left == "0", f"the command outlived its reader: {left} left")

    def flags_after_id():
        r = e.run("exec", "drv1", "--timeout", "2s", "--cwd", "/tmp", "--", "sh", "-c", "pwd; sleep 30")
        expect(r.returncode == 124 and r.stdout == "/tmp\n", f"rc={r.returncode} out={r.stdout!r} err={r.stderr[-200:]!r}")
        r = e.run("exec", "drv1", "--no-such-flag", "--", "true")
        expect(r.returncode != 0 and r.returncode != 127 and r.stderr.count("\n") == 1, f"unknown flag: rc={r.returncode} {r.stderr!r}")
        r = e.run("exec", "drv1", "sh", "-c", "echo no-dashes")  # no `--`: all after the id is the command
        expect(r.stdout == "no-dashes\n", f"without --: {r.stdout!r} {r.stderr[-200:]!r}")

    def not_executable_126():
        for path in ("/etc/passwd", "/etc"):
            r = e.run("exec", "drv1", "--", path)
            expect(r.returncode == 126 and "permission denied" in r.stderr, f"{path}: rc={r.returncode} {r.stderr!r}")
        r = e.run("exec", "drv1", "--", "/no/such/file")
        expect(r.returncode == 127, f"missing: rc={r.returncode} {r.stderr!r}")

    def json_binary_output():
        raw = subprocess.run(e.argv("exec", "--json", "drv1", "--", "sh", "-c", r"printf 'a\000b\377\n'; printf '\342\202\254' >&2"),
                             capture_output=True, timeout=TIMEOUT, env=e.env())
        doc = json.loads(raw.stdout)  # bytes: must be UTF-8
        got = base64.b64decode(doc["stdout_base64"])
        expect(got == b"a\0b\xff\n" and doc["stdout"] == "a\0b\ufffd\n", f"stdout: {doc}")
        expect(doc["stderr"] == "\u20ac" and "stderr_base64" not in doc, f"stderr (UTF-8): {doc}")

    r = e.create("drv1")
    check(f"{b}: create for the driver checks", lambda: expect(r.returncode == 0, r.stderr[-300:]))
    for name, fn in [("a reader that goes away ends the command", reader_goes_away),
                     ("a reader that goes away ends a -t command", lambda: reader_goes_away("-t")),
                     ("flags after the id, before --", flags_after_id),
                     ("a path that is not executable is 126", not_executable_126),
                     ("--json with output that is not UTF-8", json_binary_output)]:
        check(f"{b}: {name}", fn)
    e.run("delete", "drv1")


def main():
    if os.geteuid() != 0:
        print("# SKIP: must run as root\n0 passed, 0 failed, 1 skipped")
        return 77
    if not os.access(BIN, os.X_OK):
        print(f"# SKIP: sandshim binary not built: {BIN}\n0 passed, 0 failed, 1 skipped")
        return 77
    for backend in ("gvisor", "native"):
        e = Env(backend)
        try:
            driver_checks(e)
            session_checks(e)
        finally:
            e.cleanup()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
