#!/usr/bin/env python3
"""Client and sink for bench/egress_bench.sh.

  egress_bench.py sink PORT                      serve: 'B'+u64 N -> read N bytes, answer 'k';
                                                 'P' -> answer 'p' (one round trip)
  egress_bench.py bulk HOST PORT BYTES [PROXY]   one transfer of BYTES; prints MB/s
  egress_bench.py connect HOST PORT N [PROXY]    N x (connect [+ CONNECT] + 1-byte round trip);
                                                 prints the per-connection times in ms
PROXY is HOST:PORT of an HTTP proxy to CONNECT through; the target is then named bench.test.
The same code measures the direct and the proxied path, so only the path differs.
"""
import socket, socketserver, struct, sys, time

CHUNK = 1 << 20


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        mode = s.recv(1)
        if mode == b"P":
            s.sendall(b"p")
        elif mode == b"B":
            hdr = b""
            while len(hdr) < 8:
                hdr += s.recv(8 - len(hdr))
            n = struct.unpack("!Q", hdr)[0]
            buf = bytearray(CHUNK)
            view = memoryview(buf)
            while n > 0:
                got = s.recv_into(view, min(CHUNK, n))
                if not got:
                    return
                n -= got
            s.sendall(b"k")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 256


def open_conn(host, port, proxy):
    if not proxy:
        s = socket.create_connection((host, port))
    else:
        ph, pp = proxy.rsplit(":", 1)
        s = socket.create_connection((ph, int(pp)))
        s.sendall(b"CONNECT bench.test:%d HTTP/1.1\r\nHost: bench.test:%d\r\n\r\n" % (port, port))
        resp = b""
        while b"\r\n\r\n" not in resp:
            got = s.recv(4096)
            if not got:
                raise SystemExit("proxy closed: %r" % resp)
            resp += got
        if not resp.startswith(b"HTTP/1.1 200"):
            raise SystemExit("proxy refused: %r" % resp)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def main():
    mode = sys.argv[1]
    if mode == "sink":
        Server(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
    host, port, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    proxy = sys.argv[5] if len(sys.argv) > 5 else ""
    if mode == "bulk":
        s = open_conn(host, port, proxy)
        data = memoryview(bytes(CHUNK))
        t0 = time.perf_counter()
        s.sendall(b"B" + struct.pack("!Q", n))
        left = n
        while left > 0:
            k = min(CHUNK, left)
            s.sendall(data[:k])
            left -= k
        assert s.recv(1) == b"k"
        dt = time.perf_counter() - t0
        print("%.1f" % (n / dt / 1e6))
    elif mode == "connect":
        for _ in range(n):
            t0 = time.perf_counter()
            s = open_conn(host, port, proxy)
            s.sendall(b"P")
            assert s.recv(1) == b"p"
            dt = time.perf_counter() - t0
            s.close()
            print("%.4f" % (dt * 1000))


if __name__ == "__main__":
    main()
