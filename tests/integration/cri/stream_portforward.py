"""Port-forward the way `kubectl port-forward` reaches a node: the URL from the CRI
PortForward call, opened as a WebSocket with Kubernetes' v4 channel protocol and the port in
the query (kubelet's streaming server, which containerd embeds, takes WebSockets and SPDY).

Channels per port: 0 data (both ways), 1 error (from the server). The server's first frame
on each channel is the port number (2 bytes, little endian). One exchange: the request goes
out on channel 0; what comes back on 0 and 1 until the server closes is returned.
"""
import os
import socket
import urllib.parse

from stream_exec import _Reader, _handshake


def _client_frame(payload):
    """A masked binary frame (a client must mask)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x82])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload))


def run(url, port, request, timeout):
    """(data, error): what the pod's port answered to request, and the server's error text."""
    u = urllib.parse.urlparse(url)
    sock = socket.create_connection((u.hostname, u.port or 80), timeout=timeout)
    try:
        path = u.path + "?" + (u.query + "&" if u.query else "") + f"port={port}"
        r = _Reader(sock, _handshake(sock, u.netloc, path))
        sock.sendall(_client_frame(b"\x00" + request))
        got = {0: b"", 1: b""}
        seen = set()  # channels whose port prefix was stripped
        while True:
            try:
                op, data = r.frame()
            except (EOFError, socket.timeout):
                break
            if op == 8:  # close
                break
            if op not in (1, 2) or not data or data[0] not in got:
                continue
            ch, payload = data[0], data[1:]
            if ch not in seen:
                seen.add(ch)
                payload = payload[2:]
            got[ch] += payload
        return got[0], got[1]
    finally:
        sock.close()
