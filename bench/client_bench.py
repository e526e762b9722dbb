#!/usr/bin/env python3
"""#35: what the Python client (python/sandshim) adds to one command over the bare CLI.

Per backend, one session; N rounds, each timing both of (interleaved, same run, the order
swapped every round so neither always goes second):
  cli:    subprocess.run([sandshim, ..., "session", "exec", "--json", ID, "--", "true"]) and
          json.loads of its output: the least a caller of the CLI does;
  client: Session.run(["true"]).
Prints medians and the difference (target: at most 2 ms). Both include the sandshim process,
whose time swings by more than the difference under load, so it also prints the client's own
work per run() with that process replaced by its recorded answer (no noise from the command):
what the client adds, exactly. The import of the package is once per program, reported apart.
Root. Usage:
  bench/client_bench.py [ROUNDS]   (SANDSHIM_BIN: the binary; BACKENDS="native gvisor")
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
_t0 = time.perf_counter()
from sandshim import Client, Session  # noqa: E402
IMPORT_MS = (time.perf_counter() - _t0) * 1e3

BIN = os.environ.get("SANDSHIM_BIN", os.path.join(REPO, "build", "sandshim"))


class Recorded(Client):
    """A Client whose call() returns one recorded answer: Session.run's own work, no process."""

    def __init__(self, real, answer):
        super().__init__(real.binary, real.root, real.backend, real.config)
        self.answer = answer

    def call(self, args, **kw):
        self.argv(args)  # what the real call builds
        return self.answer


def client_work_us(s, n=20000):
    """Median microseconds of Session.run's own work (argv, the call's bookkeeping, JSON, Result)."""
    answer = s.client.call(["session", "exec", "--json", s.id, "--", "true"], stdin=subprocess.DEVNULL, check=False)
    fake = Session(s.id, Recorded(s.client, answer))
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fake.run(["true"])
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def rounds_of(c, s, env, rounds):
    argv = c.argv(["session", "exec", "--json", s.id, "--", "true"])

    def cli():
        p = subprocess.run(argv, capture_output=True, env=env, stdin=subprocess.DEVNULL)
        json.loads(p.stdout)

    def client():
        s.run(["true"])

    times = {cli: [], client: []}
    for i in range(rounds + 5):
        for f in ((cli, client) if i % 2 == 0 else (client, cli)):
            t0 = time.perf_counter()
            f()
            if i >= 5:  # warm-up rounds dropped
                times[f].append((time.perf_counter() - t0) * 1e3)
    return times[cli], times[client]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    work = tempfile.mkdtemp(prefix="sandshim-clientbench.")
    os.chmod(work, 0o755)
    print(f"# client bench, {rounds} interleaved rounds (host: {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}); import sandshim: {IMPORT_MS:.1f} ms once per program", flush=True)
    try:
        rootfs = os.path.join(work, "rootfs")
        subprocess.run(["bash", "-c", f'. "{REPO}/tests/integration/lib/image.sh"; build_rootfs "{rootfs}"'],
                       check=True, capture_output=True)
        config = os.path.join(work, "config.json")
        with open(config, "w") as f:
            json.dump({"audit_dir": os.path.join(work, "audit")}, f)
        for be in os.environ.get("BACKENDS", "native gvisor").split():
            c = Client(binary=BIN, root=os.path.join(work, "root"), backend=be, config=config)
            ws = os.path.join(work, "ws-" + be)
            os.makedirs(ws)
            with Session.create(client=c, rootfs=rootfs, workspace=ws) as s:
                env = dict(os.environ, SANDSHIM_CONFIG=config)
                cli, client = rounds_of(c, s, env, rounds)
                mc, ml = statistics.median(cli), statistics.median(client)
                diffs = sorted(b - a for a, b in zip(cli, client))
                own = client_work_us(s)
                print(f"{be}: median cli {mc:.2f} ms, client {ml:.2f} ms, client - cli {ml - mc:+.2f} ms "
                      f"({ml / mc:.3f}x; per-round difference p25/p50/p75 {diffs[len(diffs) // 4]:+.2f}/"
                      f"{diffs[len(diffs) // 2]:+.2f}/{diffs[3 * len(diffs) // 4]:+.2f} ms); the client's own "
                      f"work per run() {own:.1f} us: {'OK' if own < 2000 and ml - mc <= 2 else 'CHECK'} "
                      f"(target <= 2 ms)", flush=True)
    finally:
        subprocess.run([BIN, "--root", os.path.join(work, "root"), "gc"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
