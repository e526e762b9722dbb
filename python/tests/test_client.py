#!/usr/bin/env python3
"""The Python client (python/sandshim) against real sessions on both backends: create, run
with timeout and streaming, background commands, files both ways (a tree of 1000 files, a
100 MB file), contexts, approvals, typed errors, delete; pause/resume and fork from a snapshot
with Debian 12's runsc and Debian 13's (RUNSC_2024); nothing left behind; and the script of
docs/CLIENT.md run unmodified.

Usage: test_client.py (SANDSHIM_BIN names the binary; SESSION_BACKEND=gvisor|native).
Root; exits 77 otherwise. Prints `ok - ...` / `not ok - ...` and `N passed, N failed`.
"""
import fcntl
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
BIN = os.environ.get("SANDSHIM_BIN", os.path.join(REPO, "build", "sandshim"))
# Debian 13's runsc (scripts/install-deps.sh unpacks it); Debian 12's is runsc in PATH.
RUNSC_2024 = os.environ.get("SANDSHIM_RUNSC_2024", "/var/cache/sandshim-test/runsc-trixie/usr/bin/runsc")

import sandshim  # noqa: E402
from sandshim import Client, Session  # noqa: E402

passed = failed = 0


def check(name, fn, *args):
    global passed, failed
    try:
        fn(*args)
        passed += 1
        print(f"ok - {name}", flush=True)
    except Exception as e:  # one check's failure is counted, the others still run
        failed += 1
        print(f"not ok - {name}: {type(e).__name__}: {e}", flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


class Env:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="sandshim-pyclient.")
        os.chmod(self.work, 0o755)
        self.rootfs = os.path.join(self.work, "rootfs")
        out = subprocess.run(["bash", "-c", f'. "{REPO}/tests/integration/lib/image.sh"; build_rootfs "{self.rootfs}"'],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("cannot build the test rootfs: " + out.stderr[-300:])
        self.config = os.path.join(self.work, "config.json")
        with open(self.config, "w") as f:
            json.dump({"audit_dir": os.path.join(self.work, "audit")}, f)

    def client(self, backend, runsc=None):
        """runsc: that runsc binary (the config's "runsc") instead of the one in PATH."""
        config = self.config
        if runsc:
            config = os.path.join(self.work, "config-%d.json" % abs(hash(runsc)))
            with open(config, "w") as f:
                json.dump({"audit_dir": os.path.join(self.work, "audit"), "runsc": runsc}, f)
        return Client(binary=BIN, root=os.path.join(self.work, "root"), backend=backend, config=config)

    def workspace(self, name):
        ws = os.path.join(self.work, "ws-" + name)
        os.makedirs(ws)  # made by root, 0755: the session's user writes it anyway (#35)
        return ws

    def session(self, backend, tag, **kw):
        return self.session_with(self.client(backend), tag, **kw)

    def session_with(self, client, tag, **kw):
        ws = self.workspace(tag + "-" + str(abs(hash(client.config))))
        s = Session.create(client=client, rootfs=self.rootfs, workspace=ws, memory="512m", **kw)
        s.ws = ws
        return s


def t_run(env, be):
    with env.session(be, be + "-run", env={"GREETING": "hi"}) as s:
        r = s.run(["sh", "-c", 'echo "$GREETING $X $(pwd) $(id -u)"; echo err >&2; exit 3'], env={"X": "1"})
        expect(r.exit_code == 3 and r.stdout == b"hi 1 /workspace 1000\n" and r.stderr == b"err\n", repr(r))
        expect(s.run("pwd", cwd="/tmp").stdout == b"/tmp\n", "cwd")
        r = s.run("echo hi > /workspace/out.txt")
        expect(r.ok, "the session's user writes a root-made workspace: %r" % r)
        st = os.stat(os.path.join(s.ws, "out.txt"))
        expect((st.st_uid, st.st_gid) == (0, 0), "owned by the workspace's owner, not uid 1000")
        # Bytes that are not UTF-8 come back exact (the CLI's --json carries them as base64).
        r = s.run(["sh", "-c", r"printf 'a\000b\377\n'; printf '\376' >&2"])
        expect(r.stdout == b"a\0b\xff\n" and r.stderr == b"\xfe", "binary output: %r" % r)


def host_argv_holding(value):
    """Host processes whose command line holds value (what any host user's ps shows)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if value.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def t_env_off_argv(env, be):
    # The values of env= (create, run, a background command, a context) reach the sandbox
    # and never sandshim's argv. Control: a host process with the value on its argv is found.
    canary = "canary-%s" % os.urandom(6).hex()
    ctl = subprocess.Popen(["sh", "-c", "sleep 30", canary])
    try:
        deadline = time.monotonic() + 5
        while not host_argv_holding(canary) and time.monotonic() < deadline:  # until it has exec'd
            time.sleep(0.05)
        expect(host_argv_holding(canary), "control: the argv scan sees a process holding the value")
    finally:
        ctl.kill()
        ctl.wait()
    with env.session(be, be + "-envargv", env={"A": canary + "-create"}) as s:
        p = s.start_process(["sh", "-c", 'echo "$A $B"; sleep 3'], env={"B": canary + "-bg"})
        time.sleep(1)
        held = host_argv_holding(canary)
        out = p.stdout.read().decode()
        p.wait()
        expect(not held, "env values on a host argv: %s" % held)
        expect(canary + "-create " + canary + "-bg" in out, "the values reach the command: %r" % out)
        r = s.run(["sh", "-c", 'echo "$C"'], env={"C": canary + "-run"})
        expect(r.stdout == (canary + "-run\n").encode(), repr(r))
        s.create_context("envctx", env={"D": canary + "-ctx"})
        r = s.run(["sh", "-c", 'echo "$D"'], context="envctx")
        expect(r.stdout == (canary + "-ctx\n").encode(), repr(r))
        try:
            s.run("true", env={"E": "two\nlines"})
            expect(False, "a value with a newline was accepted")
        except ValueError:
            pass


def t_timeout_and_streaming(env, be):
    with env.session(be, be + "-stream") as s:
        t0 = time.monotonic()
        r = s.run("sleep 1001 & sleep 1002", timeout=1.5)
        expect(r.exit_code == 124 and r.timed_out and time.monotonic() - t0 < 15, repr(r))
        seen = []
        t0 = time.monotonic()
        r = s.run("echo first; sleep 2; echo second", on_stdout=lambda c: seen.append((time.monotonic() - t0, c)))
        expect(r.ok and r.stdout == b"first\nsecond\n", repr(r))
        expect(seen and seen[0][1].startswith(b"first") and seen[0][0] < 1.5, "the first line came early: %r" % seen)
        p = s.start_process(["sleep", "1234"])
        time.sleep(1)
        expect(p.poll() is None, "still running")
        expect(p.kill() == 143, "TERM reached the command")
        expect(b"sleep 1234" not in s.run("ps").stdout, "the background command is gone")


def t_files(env, be):
    with env.session(be, be + "-files") as s:
        src = os.path.join(env.work, be + "-tree")
        os.makedirs(os.path.join(src, "d"))
        for i in range(1000):
            with open(os.path.join(src, "d", "f%d" % i), "w") as f:
                f.write(str(i))
        with open(os.path.join(src, "big"), "wb") as f:
            f.write(os.urandom(100 << 20))
        t0 = time.monotonic()
        s.files.put(src, "/tmp/tree")
        up = time.monotonic() - t0
        expect(len([e for e in s.files.ls("/tmp/tree/d")]) == 1000, "1000 files in")
        out = os.path.join(env.work, be + "-out")
        os.makedirs(out)
        t0 = time.monotonic()
        s.files.get("/tmp/tree", out)
        down = time.monotonic() - t0
        cmp = filecmp.dircmp(src, os.path.join(out, "tree"))
        expect(not cmp.diff_files and not cmp.left_only and not cmp.right_only, "the tree came back the same")
        expect(filecmp.cmp(os.path.join(src, "big"), os.path.join(out, "tree", "big"), shallow=False), "100 MB")
        print(f"# {be}: put 1000 files + 100 MB in {up:.2f} s, got them back in {down:.2f} s", flush=True)
        s.files.write("notes/a.txt", "hello\n")
        expect(s.files.read_text("/workspace/notes/a.txt") == "hello\n", "read")
        [e] = s.files.ls("notes")
        expect((e.name, e.type, e.size) == ("a.txt", "file", 6), repr(e))
        s.files.rm("notes", recursive=True)
        expect(s.files.ls(".") == [] or all(x.name != "notes" for x in s.files.ls(".")), "rm -r")
        tar = s.files.get_tar("/tmp/tree/d")
        s.files.put_tar(tar, "/workspace")
        expect(len(os.listdir(os.path.join(s.ws, "d"))) == 1000, "tar streams both ways")
        try:
            s.files.read("/nope")
            raise AssertionError("a missing file was read")
        except sandshim.NotFound as e:
            expect("nope" in e.message and "\n" not in e.message, e.message)


def t_errors(env, be):
    c = env.client(be)
    try:
        Session("no-such-session", c).run("true")
        raise AssertionError("ran in a missing session")
    except sandshim.NotFound as e:
        expect("no-such-session" in e.message, e.message)
    try:
        Session.create(client=c, rootfs=env.rootfs, workspace="/nonexistent/ws")
        raise AssertionError("a missing workspace was accepted")
    except sandshim.SandshimError as e:
        expect("\n" not in e.message and e.message, e.message)
    with env.session(be, be + "-dup", name="dup-" + be) as s:
        try:
            env.session(be, be + "-dup2", name="dup-" + be)
            raise AssertionError("a taken name was accepted")
        except sandshim.AlreadyExists:
            pass
        expect(s.id, "first session alive")


def t_policy(env, be):
    policy = {"permissions": {"allow": ["shell(echo:*)"], "ask": ["shell(touch:*)"], "deny": ["shell(wget:*)"]}}
    with env.session(be, be + "-policy", policy=policy) as s:
        try:
            s.run(["wget", "x"])
            raise AssertionError("a denied command ran")
        except sandshim.PolicyDenied as e:
            expect(not isinstance(e, sandshim.ApprovalRequired) and e.rule == "shell(wget:*)", repr(e.decision))
        try:
            s.run(["touch", "/workspace/x"])
            raise AssertionError("an asked command ran")
        except sandshim.ApprovalRequired as e:
            approval = e.approval
        expect(any(a.get("id", a.get("approval")) == approval for a in s.approvals()), "listed")
        s.approve(approval)
        expect(s.run(["touch", "/workspace/x"]).ok, "approved once, it runs")


def t_contexts(env, be):
    with env.session(be, be + "-ctx", network="proxy") as s:
        s.create_context("platform", env={"PLATFORM_TOKEN": "t-42"})
        names = [c.get("name") for c in s.contexts()]
        expect("platform" in names, repr(names))
        expect(s.run("echo $PLATFORM_TOKEN", context="platform").stdout == b"t-42\n", "the context's env")
        expect(s.run("echo $PLATFORM_TOKEN").stdout == b"\n", "not in the default context")
        s.remove_context("platform")


def t_pause_contexts(env, runsc):
    """A credential context across pause/resume: its env, user, HOME file and proxy
    credentials as they were (gVisor; docs/CONTEXTS.md). Control: the default context differs."""
    c = env.client("gvisor", runsc)
    if not snapshots_work(c):
        print("# %s: snapshots do not work (doctor): t_pause_resume checks the refusal" % (runsc or "runsc"), flush=True)
        return
    who = "id -u; echo $PLATFORM_TOKEN; echo $HOME; cat $HOME/h; echo $http_proxy"
    with env.session_with(c, "pause-ctx", network="proxy") as s:
        s.create_context("platform", env={"PLATFORM_TOKEN": "t-43"}, user="1001")
        expect(s.run("echo home-kept > $HOME/h", context="platform").ok, "write the context's HOME")
        before = s.run(who, context="platform").stdout
        expect(b"1001\nt-43\n/home/context\nhome-kept\nhttp://ctx-platform:" in before, repr(before))
        expect(b"t-43" not in s.run(who).stdout, "control: the default context is another identity")
        t0 = time.monotonic()
        s.pause()
        t_pause = time.monotonic() - t0
        t0 = time.monotonic()
        s.resume()
        t_resume = time.monotonic() - t0
        expect(s.run(who, context="platform").stdout == before, "the context's identity after resume")
        expect(sorted(x.get("name") for x in s.contexts()) == ["default", "platform"], "contexts listed")
        print("# %s, one context: pause %.2f s, resume %.2f s" % (runsc or "runsc", t_pause, t_resume), flush=True)


def snapshots_work(c):
    """What `sandshim doctor` says of this client's runsc (its probe: a real round trip)."""
    doc = c.json(["doctor", "--json"]) or []
    return any("snapshots work" in d.get("detail", "") for d in doc if d.get("area") == "gvisor")


def runsc_procs(env):
    """Host processes of sandboxes under the test's root (sandbox, gofer)."""
    out = subprocess.run(["pgrep", "-f", "--", os.path.join(env.work, "root", "@runsc")], capture_output=True, text=True)
    return out.stdout.split()


def t_pause_resume(env, runsc):
    c = env.client("gvisor", runsc)
    if not snapshots_work(c):
        # Where the probe says no, pause is refused with a typed error and the session runs on.
        with env.session_with(c, "pause-refused") as s:
            try:
                s.pause()
                raise AssertionError("pause worked where doctor says snapshots do not")
            except sandshim.NotSupported as e:
                expect("cannot pause" in e.message and "\n" not in e.message, e.message)
            expect(s.run("true").ok, "the session runs on after a refused pause")
        print("# %s: snapshots do not work (doctor); the refusal was checked" % (runsc or "runsc"), flush=True)
        return
    with env.session_with(c, "pause") as s:
        expect(s.run("echo ws > /workspace/kept.txt && echo tmp > /tmp/kept.txt").ok, "write")
        expect(runsc_procs(env), "positive control: the sandbox's processes are seen before the pause")
        t0 = time.monotonic()
        s.pause()
        t_pause = time.monotonic() - t0
        expect(s.inspect().get("status") == "paused", "inspect says paused: %r" % s.record.get("status"))
        deadline = time.monotonic() + 10
        while runsc_procs(env) and time.monotonic() < deadline:
            time.sleep(0.1)
        expect(not runsc_procs(env), "no process of the paused session on the host")
        try:
            s.run("true")
            raise AssertionError("ran in a paused session")
        except sandshim.InvalidArgument as e:
            expect("is paused" in e.message, e.message)
        try:
            s.pause()
            raise AssertionError("paused twice")
        except sandshim.SandshimError as e:
            expect("\n" not in e.message, e.message)
        t0 = time.monotonic()
        s.resume()
        t_resume = time.monotonic() - t0
        expect(s.run("cat /workspace/kept.txt /tmp/kept.txt").stdout == b"ws\ntmp\n", "workspace and /tmp after resume")
        with open(os.path.join(s.ws, "kept.txt")) as f:
            expect(f.read() == "ws\n", "the workspace file on the host")
        print("# %s: pause %.2f s, resume %.2f s" % (runsc or "runsc", t_pause, t_resume), flush=True)


def t_fork(env, runsc):
    c = env.client("gvisor", runsc)
    if not snapshots_work(c):
        print("# %s: snapshots do not work (doctor): no fork" % (runsc or "runsc"), flush=True)
        return
    snap = "py-warm-%d" % os.getpid()
    forks = []
    with env.session_with(c, "fork-src") as src:
        expect(src.run("echo warm > /tmp/state").ok, "warm the source")
        expect(src.snapshot(snap) == snap, "snapshot")
        [listed] = [e for e in sandshim.list_snapshots(c) if e["name"] == snap]
        expect(listed["source"] == src.id and listed["bytes"] > 0, repr(listed))
        try:
            src.snapshot(snap)
            raise AssertionError("a taken snapshot name was accepted")
        except sandshim.AlreadyExists:
            pass
        try:
            for tag in ("fork-a", "fork-b"):
                ws = env.workspace(tag + "-" + str(abs(hash(runsc))))
                f = Session.fork(snap, client=c, rootfs=env.rootfs, workspace=ws, memory="512m")
                f.ws = ws
                forks.append(f)
            for f in forks:
                expect(f.run("cat /tmp/state").stdout == b"warm\n", "%s sees the warm state" % f.id)
                expect(f.run(["sh", "-c", "echo %s > /tmp/state; echo %s > /workspace/who" % (f.id, f.id)]).ok, "write")
            for f in forks:
                expect(f.run("cat /tmp/state").stdout.decode().strip() == f.id, "%s keeps its own /tmp" % f.id)
                with open(os.path.join(f.ws, "who")) as fh:
                    expect(fh.read().strip() == f.id, "%s's own workspace" % f.id)
            expect(src.run("cat /tmp/state").stdout == b"warm\n", "the source keeps its own /tmp")
        finally:
            for f in forks:
                f.delete()
    # A pool restored from the snapshot: its claim starts warm; drained, the snapshot can go.
    pool = sandshim.Pool.define("py-snap", 1, {"rootfs": env.rootfs, "memory": "512m"}, from_snapshot=snap, client=c)
    pool.fill()
    expect(pool.status()[0].get("from_snapshot") == snap, repr(pool.status()))
    try:
        sandshim.remove_snapshot(snap, c)
        raise AssertionError("a snapshot was removed under its pool")
    except sandshim.SandshimError as e:
        expect("is used by pool py-snap" in e.message, e.message)
    with pool.claim() as claimed:
        expect(claimed.record.get("pool", {}).get("claimed") is True, repr(claimed.record.get("pool")))
        expect(claimed.run("cat /tmp/state").stdout == b"warm\n", "the claim has the warm state")
    with open(os.path.join(env.work, "root", "@pool", "py-snap", ".fill.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the refill the claim started has finished
    pool.drain(delete=True)
    sandshim.remove_snapshot(snap, c)
    expect(all(e["name"] != snap for e in sandshim.list_snapshots(c)), "listed after removal")
    try:
        sandshim.remove_snapshot(snap, c)
        raise AssertionError("a removed snapshot was removed again")
    except sandshim.NotFound:
        pass
    try:
        Session.fork(snap, client=c, rootfs=env.rootfs, workspace=env.workspace("fork-gone-%d" % abs(hash(runsc))))
        raise AssertionError("a fork from a removed snapshot")
    except sandshim.NotFound as e:
        expect("does not exist" in e.message, e.message)


def t_native_pause_refused(env):
    with env.session("native", "native-pause") as s:
        try:
            s.pause()
            raise AssertionError("a native session paused")
        except sandshim.NotSupported as e:
            expect("native backend cannot checkpoint" in e.message, e.message)
        expect(s.run("true").ok, "the native session runs on")


def t_nothing_left(env, be):
    c = env.client(be)
    expect(sandshim.list_sessions(c) == [], "sessions left: %r" % sandshim.list_sessions(c))
    root = os.path.join(env.work, "root")
    left = [n for n in os.listdir(os.path.join(root, "@sessions")) if n != "@names"] \
        if os.path.isdir(os.path.join(root, "@sessions")) else []
    expect(not left, "session directories left: %r" % left)
    snaps = os.listdir(os.path.join(root, "@snapshots")) if os.path.isdir(os.path.join(root, "@snapshots")) else []
    expect(not snaps, "snapshots left: %r" % snaps)
    pools = os.listdir(os.path.join(root, "@pool")) if os.path.isdir(os.path.join(root, "@pool")) else []
    expect(not pools, "pools left: %r" % pools)
    with open("/proc/self/mountinfo") as f:
        mounts = [l.split()[4] for l in f if env.work in l]
    expect(not mounts, "mounts left: %r" % mounts[:3])
    expect(not runsc_procs(env), "sandbox processes left")


def t_docs_script():
    """The script of docs/CLIENT.md's first block, as written (sandshim in PATH)."""
    text = open(os.path.join(REPO, "docs", "CLIENT.md")).read()
    script = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    d = tempfile.mkdtemp(prefix="sandshim-bin.")
    os.symlink(BIN, os.path.join(d, "sandshim"))
    e = dict(os.environ, PATH=d + ":" + os.environ["PATH"], PYTHONPATH=os.path.join(REPO, "python"))
    e.pop("SANDSHIM", None)
    try:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=e, timeout=300)
        expect(out.returncode == 0, "the docs script failed: " + out.stderr[-500:])
        expect("0 hello" in out.stdout and "from python" in out.stdout, out.stdout)
    finally:
        shutil.rmtree(d)
        shutil.rmtree("/srv/ws/py-demo", ignore_errors=True)


def t_pip_install():
    """docs/CLIENT.md's offline install, into a venv of Debian's python3."""
    d = tempfile.mkdtemp(prefix="sandshim-venv.")
    try:
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        subprocess.run([py, "-m", "venv", "--system-site-packages", d], check=True, capture_output=True)
        out = subprocess.run([os.path.join(d, "bin", "pip"), "install", "-q", "--no-build-isolation",
                              os.path.join(REPO, "python")], capture_output=True, text=True, cwd=d)
        expect(out.returncode == 0, "pip install: " + out.stderr[-400:])
        out = subprocess.run([os.path.join(d, "bin", "python"), "-c", "import sandshim; print(sandshim.__file__)"],
                             capture_output=True, text=True, cwd=d)
        expect(out.returncode == 0 and out.stdout.startswith(d), out.stdout + out.stderr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    if os.geteuid() != 0:
        print("# SKIP: needs root")
        return 77
    if not os.access(BIN, os.X_OK):
        print("# SKIP: sandshim not built: " + BIN)
        return 77
    env = Env()
    try:
        backends = os.environ.get("SESSION_BACKEND", "gvisor native").split()
        for be in backends:
            if be == "gvisor" and not shutil.which("runsc"):
                continue
            check(f"{be}: run, env, cwd, exit code; a root-made workspace", t_run, env, be)
            check(f"{be}: env values reach the sandbox, never a host argv", t_env_off_argv, env, be)
            check(f"{be}: timeout, streaming, background", t_timeout_and_streaming, env, be)
            check(f"{be}: files both ways, 1000 files, 100 MB, tar streams", t_files, env, be)
            check(f"{be}: typed errors with the CLI's line", t_errors, env, be)
            check(f"{be}: policy deny, ask, approve", t_policy, env, be)
            check(f"{be}: contexts", t_contexts, env, be)
            if be == "native":
                check("native: pause is NotSupported, the session runs on", t_native_pause_refused, env)
            else:
                for label, runsc in (("runsc in PATH", None), ("Debian 13's runsc", RUNSC_2024)):
                    if runsc and not os.access(runsc, os.X_OK):
                        check(f"gvisor, {label}: there", lambda: expect(False, runsc + " is missing (install-deps)"))
                        continue
                    check(f"gvisor, {label}: pause/resume keeps a workspace file and a /tmp file", t_pause_resume, env, runsc)
                    check(f"gvisor, {label}: pause/resume keeps a credential context's identity", t_pause_contexts, env, runsc)
                    check(f"gvisor, {label}: fork, two sessions from one snapshot, each its own; a pool from it",
                          t_fork, env, runsc)
            check(f"{be}: nothing left behind", t_nothing_left, env, be)
        check("the docs/CLIENT.md script, unmodified", t_docs_script)
        check("pip install --no-build-isolation ./python, offline", t_pip_install)
    finally:
        for c in (env.client("gvisor"), env.client("gvisor", RUNSC_2024)):
            for s in sandshim.list_sessions(c):  # each with its own runsc: the one that made it
                c.call(["session", "delete", "--force", s["id"]], check=False)
        shutil.rmtree(env.work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
