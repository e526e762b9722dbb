"""Session: one sandbox around a workspace (docs/CLIENT.md, docs/SESSIONS.md)."""
import base64
import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from .client import default_client
from .errors import ApprovalRequired, PolicyDenied, error_from


@dataclass
class Result:
    """What a command did: its exit code (128+n for a signal, 124 when timeout ended it)."""
    exit_code: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    duration_ms: int = 0

    @property
    def ok(self):
        return self.exit_code == 0

    @property
    def text(self):
        return self.stdout.decode(errors="replace")


@dataclass
class FileEntry:
    name: str
    type: str            # file, dir, symlink, fifo, socket, char, block
    mode: int
    size: int
    mtime: int
    uid: int
    gid: int
    target: str = ""     # a symlink's target


def _duration(seconds):
    return "%dms" % max(1, int(round(seconds * 1000)))


def _command(cmd):
    """A list is an argv; a string is one sh script."""
    return ["sh", "-c", cmd] if isinstance(cmd, str) else [str(a) for a in cmd]


def _exec_args(sid, cmd, timeout, env_fd, cwd, context, user, shell):
    args = ["session", "exec"]
    if timeout is not None:
        args += ["--timeout", _duration(timeout)]
    if env_fd is not None:
        args += ["--env-file", "/dev/fd/%d" % env_fd]
    if cwd:
        args += ["--cwd", cwd]
    if context:
        args += ["--context", context]
    if user is not None:
        args += ["-u", str(user)]
    if shell:
        args += ["--shell"]
        return args, [sid, "--", cmd if isinstance(cmd, str) else " ".join(cmd)]
    return args, [sid, "--"] + _command(cmd)


def _refusal(doc, argv):
    line = doc["policy"]
    msg = "%s: %s" % (line.get("decision", "deny"), line.get("command", ""))
    return ApprovalRequired(msg, line, argv) if line.get("decision") == "ask" else PolicyDenied(msg, line, argv)


class Process:
    """A command started in the background (Session.start): a subprocess.Popen of
    ``sandshim session exec``; signals sent to it reach the command."""

    def __init__(self, popen):
        self.popen = popen
        self.stdin, self.stdout, self.stderr = popen.stdin, popen.stdout, popen.stderr

    @property
    def pid(self):
        return self.popen.pid

    def poll(self):
        return self.popen.poll()

    def wait(self, timeout=None):
        """The command's exit code."""
        return self.popen.wait(timeout)

    def signal(self, sig):
        self.popen.send_signal(sig)

    def kill(self):
        """Ends the command (TERM is forwarded into the session) and waits for it."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        return self.popen.wait()


class Files:
    """A session's files, resolved in the session's own view (docs/SESSIONS.md, "Files")."""

    def __init__(self, session):
        self._s = session

    def _call(self, args, **kw):
        return self._s.client.call(args, **kw)

    def _u(self, user):
        return ["-u", str(user)] if user is not None else []

    def read(self, path, user=None):
        return self._call(["session", "files", "read"] + self._u(user) + [self._s.id, path]).stdout

    def read_text(self, path, user=None):
        return self.read(path, user).decode()

    def write(self, path, data, user=None):
        """Writes bytes (or text, as UTF-8) to path; parent directories are made."""
        if isinstance(data, str):
            data = data.encode()
        self._call(["session", "files", "write"] + self._u(user) + [self._s.id, path], input=data)

    def ls(self, path=".", user=None):
        out = self._call(["session", "files", "ls", "--json"] + self._u(user) + [self._s.id, path]).stdout
        return [FileEntry(**{k: e.get(k, "") for k in FileEntry.__dataclass_fields__}) for e in json.loads(out)]

    def rm(self, path, recursive=False, user=None):
        self._call(["session", "files", "rm"] + (["-r"] if recursive else []) + self._u(user) + [self._s.id, path])

    def put(self, local, remote, user=None):
        """A host file or tree into the session (an existing directory receives it by name)."""
        self._call(["session", "cp"] + self._u(user) + [os.fspath(local), "%s:%s" % (self._s.id, remote)])

    def get(self, remote, local, user=None):
        """A session file or tree to the host (an existing directory receives it by name)."""
        self._call(["session", "cp"] + self._u(user) + ["%s:%s" % (self._s.id, remote), os.fspath(local)])

    def put_tar(self, data, remote_dir, user=None):
        """A tar stream (bytes or a binary file) unpacked into the session's remote_dir."""
        kw = {"input": data} if isinstance(data, (bytes, bytearray)) else {"stdin": data}
        self._call(["session", "cp"] + self._u(user) + ["-", "%s:%s" % (self._s.id, remote_dir)], **kw)

    def get_tar(self, remote, user=None):
        """remote and everything below it as a tar stream (bytes)."""
        return self._call(["session", "cp"] + self._u(user) + ["%s:%s" % (self._s.id, remote), "-"]).stdout


class Session:
    """A session. Session.create(...) makes one; Session(id) names one that exists. Used as a
    context manager, the session is deleted on the way out."""

    def __init__(self, id, client=None, record=None):
        self.id = id
        self.client = client or default_client()
        self.record = record or {}
        self.files = Files(self)

    # -- lifecycle ---------------------------------------------------------------------------
    @classmethod
    def create(cls, id=None, *, client=None, name=None, pool=None, profile=None, rootfs=None, image=None,
               rootfs_cache=None, workspace=None, workspace_dest=None, mounts=(), env=None, env_files=(),
               proxy=None, user=None, hostname=None, memory=None, cpus=None, pids=None, network=None,
               network_stack=None, allow_domains=(), deny_domains=(), allow_cidrs=(), allow_private=False,
               egress_policy=None, policy=None, sources=None, secrets=(), secret_values=None,
               secret_files=None, secret_envs=None, secret_trust_bundle=None, tmp_size=None,
               read_only_root=False, context_spares=None, egress_resolve=(), from_snapshot=None):
        """Every option of ``sandshim session create`` (docs/CLIENT.md lists them). mounts:
        "SRC:DST[:ro]" strings; policy, sources, egress_policy: dicts or JSON text; secrets:
        "NAME:host=HOST..." declarations; secret_values: {NAME: value} passed through pipes,
        never on argv."""
        client = client or default_client()
        args = ["session", "create", "--json"]
        def opt(flag, value):
            if value is not None and value is not False:
                args.extend([flag] if value is True else [flag, value if isinstance(value, str) else
                            json.dumps(value) if isinstance(value, (dict, list)) else str(value)])
        for flag, value in (("--name", name), ("--pool", pool), ("--profile", profile), ("--rootfs", rootfs),
                            ("--image", image), ("--rootfs-cache", rootfs_cache), ("--workspace", workspace),
                            ("--workspace-dest", workspace_dest), ("--proxy", proxy), ("--user", user),
                            ("--hostname", hostname), ("--memory", memory), ("--cpus", cpus), ("--pids", pids),
                            ("--network", network), ("--network-stack", network_stack),
                            ("--allow-private", allow_private), ("--egress-policy", egress_policy),
                            ("--policy", policy), ("--sources", sources),
                            ("--secret-trust-bundle", secret_trust_bundle), ("--tmp-size", tmp_size),
                            ("--read-only-root", read_only_root), ("--context-spares", context_spares),
                            ("--from-snapshot", from_snapshot)):
            opt(flag, value)
        for flag, values in (("--mount", mounts), ("--env-file", env_files), ("--allow-domain", allow_domains),
                             ("--deny-domain", deny_domains), ("--allow-cidr", allow_cidrs),
                             ("--secret", secrets), ("--egress-resolve", egress_resolve)):
            for v in values:
                opt(flag, v)
        for k, v in (secret_files or {}).items():
            opt("--secret-file", "%s=%s" % (k, v))
        for k, v in (secret_envs or {}).items():
            opt("--secret-env", "%s=%s" % (k, v))
        fds, files = [], []
        try:
            # --policy, --sources, --egress-policy take files: a dict (or JSON text) goes
            # through a 0600 temporary file, removed once create has read it.
            for flag, value in (("--policy", policy), ("--sources", sources), ("--egress-policy", egress_policy)):
                if isinstance(value, (dict, list)) or (isinstance(value, str) and value.lstrip().startswith("{")):
                    fd, path = tempfile.mkstemp(prefix="sandshim-", suffix=".json")
                    with os.fdopen(fd, "w") as f:
                        f.write(value if isinstance(value, str) else json.dumps(value))
                    files.append(path)
                    i = args.index(flag)
                    args[i + 1] = path
            for k, v in (secret_values or {}).items():
                fd = _value_pipe(v)
                fds.append(fd)
                opt("--secret-fd", "%s=%d" % (k, fd))
            env_fd = _env_fd(env)
            if env_fd is not None:
                fds.append(env_fd)
                opt("--env-file", "/dev/fd/%d" % env_fd)
            if id:
                args.append(id)
            doc = client.json(args, pass_fds=tuple(fds))
        finally:
            for fd in fds:
                os.close(fd)
            for path in files:
                os.unlink(path)
        return cls(doc["id"], client, doc)

    def inspect(self):
        self.record = self.client.json(["session", "inspect", "--json", self.id])
        return self.record

    def stop(self):
        self.client.call(["session", "stop", self.id])

    def start(self):
        self.client.call(["session", "start", self.id])

    def pause(self):
        """Checkpoints the sandbox to disk and ends it: no process or memory of it stays
        (gVisor, where the runsc can restore: `sandshim doctor`). NotSupported with the CLI's
        one line where it cannot (native, this runsc, credential contexts); the session then
        runs on untouched. A paused session's run() raises InvalidArgument until resume()."""
        self.client.call(["session", "pause", self.id])

    def snapshot(self, name):
        """Saves the sandbox as the snapshot `name` (a pause and a resume: the session runs on),
        for Session.create(..., from_snapshot=name) or Session.fork(name, ...) with this
        session's options. AlreadyExists for a taken name; remove_snapshot(name) deletes it.
        Returns name."""
        self.client.call(["session", "snapshot", self.id, name])
        return name

    @classmethod
    def fork(cls, snapshot, id=None, **create_options):
        """A new session restored from `snapshot` (its source's /tmp, layer and init tree as
        they were at the snapshot): Session.create(id, from_snapshot=snapshot, ...). Give the
        source's options (rootfs, mounts, memory: the restore needs the same mount points) and
        a workspace of its own."""
        return cls.create(id, from_snapshot=snapshot, **create_options)

    def resume(self):
        """Restores a paused session: its init, /tmp and writable layer as they were (what an
        exec started does not come back: docs/SESSIONS.md)."""
        self.client.call(["session", "resume", self.id])

    def delete(self, force=False):
        self.client.call(["session", "delete"] + (["--force"] if force else []) + [self.id])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.delete()
        except Exception:
            if exc[0] is None:
                raise
        return False

    # -- commands ----------------------------------------------------------------------------
    def run(self, cmd, timeout=None, env=None, cwd=None, context=None, user=None, shell=False,
            on_stdout=None, on_stderr=None, input=None):
        """Runs cmd (an argv list, or a string for sh -c) to its end: a Result. A timeout
        (seconds) ends the command's whole tree (exit 124, timed_out). on_stdout/on_stderr get
        the output as it comes (bytes chunks); the Result still holds all of it. A command the
        policy refuses raises PolicyDenied or ApprovalRequired; nothing ran."""
        env_fd = _env_fd(env)
        fds = () if env_fd is None else (env_fd,)
        try:
            opts, tail = _exec_args(self.id, cmd, timeout, env_fd, cwd, context, user, shell)
            if on_stdout is None and on_stderr is None:
                p = self.client.call(opts + ["--json"] + tail, input=input, stdin=subprocess.DEVNULL, check=False,
                                     pass_fds=fds)
                if p.returncode != 0 and not p.stdout.strip():
                    raise error_from(p.stderr, p.returncode, self.client.argv(opts + tail))
                doc = json.loads(p.stdout)
                if "policy" in doc:
                    raise _refusal(doc, self.client.argv(opts + tail))
                return Result(doc["exit"], _output(doc, "stdout"), _output(doc, "stderr"), doc.get("timed_out", False),
                              doc.get("duration_ms", 0))
            return self._stream(opts + tail, timeout, on_stdout, on_stderr, input, fds)
        finally:
            for fd in fds:
                os.close(fd)

    def _stream(self, args, timeout, on_stdout, on_stderr, input, fds=()):
        t0 = time.monotonic()
        p = self.client.popen(args, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=fds)
        if input is not None:
            p.stdin.write(input)
            p.stdin.close()
        bufs = {p.stdout: [], p.stderr: []}
        cbs = {p.stdout: on_stdout, p.stderr: on_stderr}
        sel = selectors.DefaultSelector()
        for f in bufs:
            sel.register(f, selectors.EVENT_READ)
        while sel.get_map():
            for key, _ in sel.select():
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                bufs[key.fileobj].append(chunk)
                if cbs[key.fileobj]:
                    cbs[key.fileobj](chunk)
        rc = p.wait()
        out, err = b"".join(bufs[p.stdout]), b"".join(bufs[p.stderr])
        if rc == 1 and err.startswith(b"{\"error\""):
            raise error_from(err, rc, self.client.argv(args))
        return Result(rc, out, err, timeout is not None and rc == 124, int((time.monotonic() - t0) * 1000))

    def start_process(self, cmd, env=None, cwd=None, context=None, user=None, stdin=False):
        """Starts cmd in the background: a Process (pipes for stdout and stderr, and stdin
        with stdin=True). Session.background is the same."""
        env_fd = _env_fd(env)
        fds = () if env_fd is None else (env_fd,)
        try:
            opts, tail = _exec_args(self.id, cmd, None, env_fd, cwd, context, user, False)
            return Process(self.client.popen(opts + tail, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=fds))
        finally:
            for fd in fds:
                os.close(fd)

    background = start_process

    # -- contexts, secrets, approvals --------------------------------------------------------
    def create_context(self, name, env=None, user=None, allow_domains=(), deny_domains=(), secrets=(),
                       secret_values=None):
        args = ["session", "context", "create", "--json"]
        if user is not None:
            args += ["-u", str(user)]
        for d in allow_domains:
            args += ["--allow-domain", d]
        for d in deny_domains:
            args += ["--deny-domain", d]
        for s in secrets:
            args += ["--secret", s]
        fds = []
        try:
            for k, v in (secret_values or {}).items():
                fds.append(_value_pipe(v))
                args += ["--secret-fd", "%s=%d" % (k, fds[-1])]
            env_fd = _env_fd(env)
            if env_fd is not None:
                fds.append(env_fd)
                args += ["--env-file", "/dev/fd/%d" % env_fd]
            return self.client.json(args + [self.id, name], pass_fds=tuple(fds))
        finally:
            for fd in fds:
                os.close(fd)

    def contexts(self):
        return self.client.json(["session", "context", "list", "--json", self.id])

    def remove_context(self, name):
        self.client.call(["session", "context", "rm", self.id, name])

    def set_secret(self, name, value, context=None):
        """A new value for a declared secret (rotation), through a pipe: never on argv."""
        fd = _value_pipe(value)
        try:
            self.client.call(["session", "secret", "set", "--from-fd", str(fd)] +
                             (["--context", context] if context else []) + [self.id, name], pass_fds=(fd,))
        finally:
            os.close(fd)

    def remove_secret(self, name, context=None):
        self.client.call(["session", "secret", "rm"] + (["--context", context] if context else []) + [self.id, name])

    def approvals(self):
        return self.client.json(["session", "approvals", "--json", self.id])

    def approve(self, approval, always=False):
        return self.client.json(["session", "approve", "--json", "--always" if always else "--once", self.id, approval])

    def reject(self, approval):
        return self.client.json(["session", "reject", "--json", self.id, approval])


def _output(doc, name):
    """A stream of `session exec --json` as bytes: exact from NAME_base64 when the output was
    not UTF-8 (NAME then has U+FFFD in its place)."""
    if name + "_base64" in doc:
        return base64.b64decode(doc[name + "_base64"])
    return doc[name].encode()


def _env_fd(env):
    """A memfd of KEY=VALUE lines, for --env-file /dev/fd/N: environment values never go on
    sandshim's argv, where any host user's `ps` reads them. None for no env."""
    if not env:
        return None
    text = ""
    for k, v in env.items():
        v = str(v)
        if "\n" in v or "\0" in v:
            raise ValueError("the value of %s holds a newline or NUL: an environment value cannot" % k)
        text += "%s=%s\n" % (k, v)
    fd = os.memfd_create("sandshim-env", 0)  # inheritable: handed on through pass_fds
    data = text.encode()
    while data:
        data = data[os.write(fd, data):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _value_pipe(value):
    """The read end of a pipe holding value (a secret), for --secret-fd / --from-fd."""
    if isinstance(value, str):
        value = value.encode()
    if len(value) > 60000:
        raise ValueError("a secret value over 60000 bytes")
    r, w = os.pipe()
    os.write(w, value)
    os.close(w)
    os.set_inheritable(r, True)
    return r


def remove_snapshot(name, client=None):
    """Deletes the snapshot `name` (`session snapshot --rm`); NotFound if there is none.
    Sessions restored from it are not affected."""
    (client or default_client()).call(["session", "snapshot", "--rm", name])


def list_snapshots(client=None):
    """The snapshots (`session snapshot --list --json`): [{"name", "source", "backend",
    "created", "bytes"}], by name."""
    return (client or default_client()).json(["session", "snapshot", "--list", "--json"]) or []


def list_sessions(client=None):
    return (client or default_client()).json(["session", "list", "--json"]) or []
