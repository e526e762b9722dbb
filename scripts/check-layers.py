#!/usr/bin/env python3
"""The house's rules, drawn from the code itself (docs/ARCHITECTURE.md, "The map").

1. Layers: every #include between source folders points down the ranks below; none runs
   back up, none goes sideways between folders of one rank.
2. No include circle between files inside a folder.
3. Sizes: no file over 500 lines, no function over 80 (universal-ctags' end lines). What was
   already over when the rule came is listed in scripts/layers-allow.txt with its size: it
   may shrink, never grow, and nothing new joins it (a ratchet; delete lines as they mend).

Exit 0 when all hold, 1 with one line per breach. `--report` prints the folder graph.
"""
import collections
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["shim", "bundle", "rootfs-builder", "ctx-helper", "exec-guard"]
# Higher ranks may include lower ones. Equal ranks are strangers to each other.
RANKS = {
    "shim": 10,            # main.cc
    "shim/cli": 9,         # one file per verb; backends.cc, the composition root
    # session/ by wing (docs/ARCHITECTURE.md, "The session wings"): what builds on Sessions
    # above it, what Sessions is made of below it, the shared records at the bottom.
    "shim/session/pool": 8.6,       # warm pools: members made ahead, claimed into Sessions
    "shim/session/files": 8.6,      # files in and out through the session's own container
    "shim/session": 8.5,            # Sessions: create, exec, stop, pause, snapshot, gc
    "shim/session/contexts": 8.4,   # credential contexts and their broker
    "shim/session/exec": 8.3,       # the exec path: policy gate, guard, runner, shell state
    "shim/session/egress": 8.2,     # the relay, the proxy's files, secrets
    "shim/session/workspace": 8.1,  # the workspace: ids, guard, owner, binds, layers
    "shim/session/store": 8.0,      # records, journal steps, audit, layout, metrics
    "shim/gvisor": 7,      # the gVisor backend: flag policy, spec plan, pods, exec strategies
    "shim/native": 7,      # the native backend and the namespace runtime under it
    "shim/runtime": 6.5,   # the backend-agnostic lifecycle: Containers, records, journals
    "shim/runsc": 6,       # the runsc CLI client, control protocol, probes
    "rootfs-builder": 5,   # base root filesystems
    "shim/net": 4,         # egress: relay, proxy, secrets
    "exec-guard": 4,       # a separate static program: the policy at execve, in the sandbox
    "shim/linux": 3.5,     # kernel mechanisms both backends use: cgroups, devices, hooks, netns
    "shim/policy": 3,      # command policy, pure
    "bundle": 3,           # the OCI spec model
    "ctx-helper": 1,       # a separate static program; shim reads only its wire format
    "shim/core": 0,
}
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
ALLOW_FILE = os.path.join(ROOT, "scripts", "layers-allow.txt")
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    parts = path.split("/")
    if parts[0] == "shim":
        if len(parts) > 3 and parts[1] == "session":
            return "shim/session/" + parts[2]
        return "shim/" + parts[1] if len(parts) > 2 else "shim"
    return parts[0]


def sources():
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".cc", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def includes(path):
    with open(os.path.join(ROOT, path), errors="replace") as fh:
        for line in fh:
            m = INCLUDE.match(line)
            if m and os.path.exists(os.path.join(ROOT, m.group(1))):
                yield m.group(1)


def layer_breaches(files, graph):
    out = []
    for src in files:
        a = folder_of(src)
        for inc in graph[src]:
            b = folder_of(inc)
            if a == b:
                continue
            if a not in RANKS or b not in RANKS:
                out.append(f"layers: {src} -> {inc}: folder without a rank in scripts/check-layers.py")
            elif RANKS[b] >= RANKS[a]:
                out.append(f"layers: {src} includes {inc} ({a} rank {RANKS[a]} -> {b} rank {RANKS[b]}: up or sideways)")
    return out


def circles(graph):
    """Include circles among files of one folder (a back edge in a depth-first walk)."""
    out, state = [], {}

    def walk(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if folder_of(nxt) != folder_of(node):
                continue
            if state.get(nxt) == 1:
                out.append("circle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                walk(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [])
    return out


def sizes(files):
    """{key: lines} for files over the limit and functions over theirs."""
    big = {}
    for f in files:
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_FILE_LINES:
            big[f"file {f}"] = n
    ctags = shutil.which("ctags")
    if not ctags:
        print("check-layers: universal-ctags not installed; function sizes not checked", file=sys.stderr)
        return big
    cc = [f for f in files if f.endswith(".cc")]
    tags = subprocess.run([ctags, "--c++-kinds=f", "--fields=+ne", "--extras=+q", "-o", "-", *cc],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in tags.splitlines():
        cols = line.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" not in fields or "end" not in fields:
            continue
        n = int(fields["end"]) - int(fields["line"]) + 1
        if n > MAX_FUNCTION_LINES:
            # One key per definition: a qualified tag and its plain twin name the same lines.
            key = f"function {cols[1]}:{fields['line']}"
            big[key] = max(big.get(key, 0), n)
    return big


def read_allow():
    allow = {}
    if os.path.exists(ALLOW_FILE):
        with open(ALLOW_FILE) as fh:
            for line in fh:
                line = line.split("#", 1)[0].strip()
                if line:
                    kind, name, n = line.split()
                    allow[f"{kind} {name}"] = int(n)
    return allow


def size_breaches(big, allow):
    out = []
    # Functions are keyed by file and first line, which moves with edits above them: a
    # function allowed in a file is matched by size against the file's allowed functions.
    allowed_fn = collections.defaultdict(list)
    for key, n in allow.items():
        if key.startswith("function "):
            allowed_fn[key.split()[1].rsplit(":", 1)[0]].append(n)
    for key, n in sorted(big.items()):
        if key.startswith("file "):
            if key not in allow:
                out.append(f"size: {key} has {n} lines (max {MAX_FILE_LINES})")
            elif n > allow[key]:
                out.append(f"size: {key} grew to {n} lines (allowed {allow[key]} while it shrinks to {MAX_FILE_LINES})")
            continue
        path = key.split()[1].rsplit(":", 1)[0]
        fits = [a for a in allowed_fn[path] if n <= a]
        if fits:
            allowed_fn[path].remove(min(fits))
        else:
            out.append(f"size: {key} has {n} lines (max {MAX_FUNCTION_LINES})")
    return out


def main():
    files = list(sources())
    graph = {f: sorted(set(includes(f))) for f in files}
    if "--report" in sys.argv:
        edges = collections.Counter((folder_of(a), folder_of(b)) for a in graph for b in graph[a]
                                    if folder_of(a) != folder_of(b))
        for (a, b), n in sorted(edges.items()):
            print(f"{a} -> {b} ({n})")
        for key, n in sorted(sizes(files).items()):
            print(f"over: {key} {n}")
        return 0
    breaches = layer_breaches(files, graph) + circles(graph) + size_breaches(sizes(files), read_allow())
    for b in breaches:
        print(b)
    print(f"check-layers: {len(files)} files, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
