"""Typed errors carrying the CLI's one-line message (docs/CLIENT.md, "Errors")."""


class SandshimError(Exception):
    """A sandshim command failed. ``message`` is the CLI's one line; ``errno`` its name
    (``"ENOENT"``) when sandshim knew one; ``argv`` the command that failed."""

    def __init__(self, message, errno="", exit_code=1, argv=None):
        super().__init__(message)
        self.message = message
        self.errno = errno
        self.exit_code = exit_code
        self.argv = list(argv or [])


class NotFound(SandshimError):
    """No such session, context, approval, file or directory."""


class AlreadyExists(SandshimError):
    """A session id or name, or a context, that is taken."""


class InvalidArgument(SandshimError):
    """Bad input: an option, an id, a path."""


class PermissionDenied(SandshimError):
    """The kernel or the session's user refused."""


class NotSupported(SandshimError):
    """Not possible here, whatever the input: the backend or this runsc cannot do it (a pause
    where `sandshim doctor` says snapshots do not work, a native session's pause, a pause of
    a session with credential contexts)."""


class PolicyDenied(SandshimError):
    """The session's command policy denied the command (docs/POLICY.md); nothing ran.
    ``decision`` is the policy's JSON line."""

    def __init__(self, message, decision, argv=None):
        super().__init__(message, "", 0, argv)
        self.decision = decision
        self.rule = decision.get("rule", "")


class ApprovalRequired(PolicyDenied):
    """The policy asks a person first: approve ``approval`` (Session.approve) and run again."""

    def __init__(self, message, decision, argv=None):
        super().__init__(message, decision, argv)
        self.approval = decision.get("approval", "")


_BY_ERRNO = {
    "ENOENT": NotFound, "ESRCH": NotFound,
    "EEXIST": AlreadyExists,
    "EINVAL": InvalidArgument, "E2BIG": InvalidArgument, "ENAMETOOLONG": InvalidArgument,
    "EPERM": PermissionDenied, "EACCES": PermissionDenied,
    "ENOTSUP": NotSupported, "EOPNOTSUPP": NotSupported,
}


def error_from(stderr, exit_code, argv):
    """The typed error for a failed command from its stderr (a JSON line under
    SANDSHIM_ERRORS=json; anything else, such as a usage error, is kept as its text)."""
    import json
    lines = [l for l in stderr.decode(errors="replace").splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("{"):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if "error" in doc:
                name = doc.get("errno", "")
                return _BY_ERRNO.get(name, SandshimError)(doc["error"], name, exit_code, argv)
    msg = lines[-1] if lines else "exit status %d" % exit_code
    return SandshimError(msg, "", exit_code, argv)


__all__ = ["SandshimError", "NotFound", "AlreadyExists", "InvalidArgument", "PermissionDenied",
           "NotSupported", "PolicyDenied", "ApprovalRequired", "error_from"]
