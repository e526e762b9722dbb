#!/usr/bin/env python3
"""#35: what the Python client (python/sandshim) adds to one command over the bare CLI.

Per backend, one session; N rounds, each timing (interleaved, same run):
  cli:    subprocess.run([sandshim, ..., "session", "exec", "--json", ID, "--", "true"]) and
          json.loads of its output: the least a caller of the CLI does;
  client: Session.run(["true"]).
Prints medians and the difference (target: at most 2 ms). Root. Usage:
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
from sandshim import Client, Session  # noqa: E402

BIN = os.environ.get("SANDSHIM_BIN", os.path.join(REPO, "build", "sandshim"))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    work = tempfile.mkdtemp(prefix="sandshim-clientbench.")
    os.chmod(work, 0o755)
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
                argv = c.argv(["session", "exec", "--json", s.id, "--", "true"])
                env = dict(os.environ, SANDSHIM_CONFIG=config)
                cli, client = [], []
                for i in range(rounds + 5):
                    t0 = time.perf_counter()
                    p = subprocess.run(argv, capture_output=True, env=env, stdin=subprocess.DEVNULL)
                    json.loads(p.stdout)
                    t1 = time.perf_counter()
                    s.run(["true"])
                    t2 = time.perf_counter()
                    if i >= 5:  # warm-up rounds dropped
                        cli.append((t1 - t0) * 1e3)
                        client.append((t2 - t1) * 1e3)
                mc, ml = statistics.median(cli), statistics.median(client)
                print(f"{be}: {rounds} rounds, median cli {mc:.2f} ms, client {ml:.2f} ms, "
                      f"client overhead {ml - mc:+.2f} ms ({ml / mc:.3f}x)", flush=True)
    finally:
        subprocess.run([BIN, "--root", os.path.join(work, "root"), "gc"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
