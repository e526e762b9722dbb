"""Streaming Exec the way `kubectl exec` reaches a node: the URL from the CRI Exec call,
opened as a WebSocket with Kubernetes' v4 channel protocol (the streaming server containerd
embeds is kubelet's, which accepts WebSockets as well as SPDY).

Each binary frame's first byte is a channel: 1 stdout, 2 stderr, 3 the final status (v4:
a JSON metav1.Status, "Success" or a NonZeroExitCode cause carrying the code). No stdin.
"""
import base64
import json
import os
import socket
import urllib.parse


def _handshake(sock, host, path):
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError("stream server closed during the handshake")
        head += chunk
    status, rest = head.split(b"\r\n\r\n", 1)
    if b" 101 " not in status.split(b"\r\n")[0]:
        raise RuntimeError("stream server refused the upgrade: " + status.split(b"\r\n")[0].decode())
    return rest


class _Reader:
    def __init__(self, sock, buf):
        self.sock, self.buf = sock, buf

    def take(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def frame(self):
        """(opcode, payload) of the next whole message; server frames are never masked."""
        data, opcode = b"", None
        while True:
            b0, b1 = self.take(2)
            op, fin, ln = b0 & 0x0F, b0 & 0x80, b1 & 0x7F
            if ln == 126:
                ln = int.from_bytes(self.take(2), "big")
            elif ln == 127:
                ln = int.from_bytes(self.take(8), "big")
            mask = self.take(4) if b1 & 0x80 else None
            payload = self.take(ln)
            if mask:
                payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
            opcode = op if opcode is None or op != 0 else opcode
            data += payload
            if fin:
                return opcode, data


def _exit_code(status_json):
    st = json.loads(status_json or b"{}")
    if st.get("status") == "Success":
        return 0
    for cause in (st.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode":
            return int(cause.get("message", "1"))
    raise RuntimeError("exec failed: " + st.get("message", str(st)))


def run(url, stdout, stderr, timeout):
    """Runs the exec behind url; copies its output; returns its exit code."""
    u = urllib.parse.urlparse(url)
    sock = socket.create_connection((u.hostname, u.port or 80), timeout=timeout)
    try:
        r = _Reader(sock, _handshake(sock, u.netloc, u.path + ("?" + u.query if u.query else "")))
        status = None
        while True:
            try:
                op, data = r.frame()
            except EOFError:
                break
            if op == 8:  # close
                break
            if op not in (1, 2) or not data:
                continue
            ch, payload = data[0], data[1:]
            if ch == 1:
                stdout.write(payload)
            elif ch == 2:
                stderr.write(payload)
            elif ch == 3:
                status = (status or b"") + payload
        stdout.flush()
        stderr.flush()
        return _exit_code(status)
    finally:
        sock.close()
