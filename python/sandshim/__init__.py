"""sandshim: sandboxes for agent platforms, from Python (docs/CLIENT.md).

    from sandshim import Session
    with Session.create(image="busybox", workspace="/srv/ws/conv42") as s:
        print(s.run("echo hi > /workspace/out.txt && cat /workspace/out.txt").stdout)

Standard library only: the client drives the sandshim CLI's JSON interface.
"""
from .client import Client
from .errors import (AlreadyExists, ApprovalRequired, InvalidArgument, NotFound, NotSupported, PermissionDenied,
                     PolicyDenied, SandshimError)
from .pool import Pool
from .session import FileEntry, Files, Process, Result, Session, list_sessions, list_snapshots, remove_snapshot

__all__ = ["Client", "Session", "Result", "Process", "Files", "FileEntry", "Pool", "list_sessions",
           "remove_snapshot", "list_snapshots", "SandshimError", "NotFound", "AlreadyExists", "InvalidArgument", "PermissionDenied",
           "NotSupported", "PolicyDenied",
           "ApprovalRequired"]
