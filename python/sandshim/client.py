"""The process boundary: how the client runs the sandshim CLI (docs/CLIENT.md).

Every call is one ``sandshim`` process with ``SANDSHIM_ERRORS=json`` in its environment, so a
failure comes back as one JSON line that maps to a typed error. Nothing is parsed from prose.
"""
import json
import os
import shutil
import subprocess

from .errors import error_from


class Client:
    """Where sandshim is and which global options every call gets.

    binary: the sandshim executable (default: $SANDSHIM, else ``sandshim`` in PATH).
    root: sandshim's --root (default: sandshim's own). backend: --backend (gvisor, native,
    auto). config: a sandshim config file ($SANDSHIM_CONFIG for the calls)."""

    def __init__(self, binary=None, root=None, backend=None, config=None):
        self.binary = binary or os.environ.get("SANDSHIM") or shutil.which("sandshim") or "sandshim"
        self.root, self.backend, self.config = root, backend, config
        self._env = dict(os.environ, SANDSHIM_ERRORS="json")
        if config:
            self._env["SANDSHIM_CONFIG"] = str(config)

    def argv(self, args):
        out = [self.binary]
        if self.root:
            out += ["--root", str(self.root)]
        if self.backend:
            out += ["--backend", self.backend]
        return out + [str(a) for a in args]

    def popen(self, args, **kw):
        return subprocess.Popen(self.argv(args), env=self._env, **kw)

    def call(self, args, input=None, stdin=None, stdout=subprocess.PIPE, pass_fds=(), check=True):
        """Runs one command to its end; its CompletedProcess (bytes), or the typed error."""
        argv = self.argv(args)
        p = subprocess.run(argv, input=input, stdin=stdin if input is None else None, stdout=stdout,
                           stderr=subprocess.PIPE, env=self._env, pass_fds=pass_fds)
        if check and p.returncode != 0:
            raise error_from(p.stderr, p.returncode, argv)
        return p

    def json(self, args, **kw):
        """Runs a --json command; its document."""
        out = self.call(list(args), **kw).stdout
        return json.loads(out) if out.strip() else None


_default = None


def default_client():
    global _default
    if _default is None:
        _default = Client()
    return _default
