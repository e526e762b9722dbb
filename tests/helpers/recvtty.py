#!/usr/bin/env python3
"""Console-socket receiver for tests (the job runc's recvtty does): listens on an AF_UNIX
socket, receives the pty master fd a runtime sends over it, then copies everything the pty
prints to stdout until it closes. Usage: recvtty.py SOCKET_PATH"""
import array
import os
import socket
import sys

path = sys.argv[1]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
conn, _ = srv.accept()
fds = array.array("i")
msg, anc, _, _ = conn.recvmsg(1024, socket.CMSG_SPACE(fds.itemsize))
for level, kind, data in anc:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
if not fds:
    sys.exit("recvtty: no fd received")
master = fds[0]
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    sys.stdout.buffer.write(chunk)
    sys.stdout.flush()
