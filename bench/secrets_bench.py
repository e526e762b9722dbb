#!/usr/bin/env python3
"""Origin and client for bench/secrets_bench.sh (the same code for every path, so only the path differs).

  secrets_bench.py origin PORT [CERT KEY]          HTTP(S) origin: GET /small -> 2 bytes; GET /big?n=N -> N bytes
  secrets_bench.py set SOCKET NAME VALUE_FILE      hand a value to the proxy's control socket
  secrets_bench.py latency URL N CAFILE [PROXY]    N requests, one connection each; per-request ms
  secrets_bench.py bulk URL BYTES CAFILE [PROXY]   one download of BYTES; MB/s
URL is http://bench.test:PORT/... or https://bench.test:PORT/...; bench.test is 127.0.0.1 for the
direct path, and the proxy (HOST:PORT) resolves it with --resolve.
"""
import http.client, http.server, socket, ssl, sys, time, urllib.parse

CHUNK = 1 << 20


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        q = urllib.parse.urlparse(self.path)
        n = int(urllib.parse.parse_qs(q.query).get("n", ["2"])[0]) if q.path == "/big" else 2
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.send_header("Connection", "close")
        self.end_headers()
        block = b"x" * CHUNK
        while n > 0:
            k = min(n, CHUNK)
            self.wfile.write(block[:k])
            n -= k
        self.close_connection = True

    def log_message(self, *a):
        pass


def conn(url, cafile, proxy):
    u = urllib.parse.urlparse(url)
    ctx = ssl.create_default_context(cafile=cafile) if u.scheme == "https" else None
    host, port = u.hostname, u.port
    if proxy:
        ph, pp = proxy.rsplit(":", 1)
        if u.scheme == "https":
            c = http.client.HTTPSConnection(ph, int(pp), context=ctx)
            c.set_tunnel(host, port)
            return c, u.path + ("?" + u.query if u.query else "")
        return http.client.HTTPConnection(ph, int(pp)), url
    # Direct: bench.test is this host.
    if u.scheme == "https":
        c = http.client.HTTPSConnection(host, port, context=ctx)
        c.sock = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname=host)
        return c, u.path + ("?" + u.query if u.query else "")
    c = http.client.HTTPConnection("127.0.0.1", port)
    return c, u.path + ("?" + u.query if u.query else "")


def fetch(url, cafile, proxy):
    c, target = conn(url, cafile, proxy)
    c.request("GET", target, headers={"Host": "bench.test"})
    r = c.getresponse()
    n = 0
    while True:
        b = r.read(CHUNK)
        if not b:
            break
        n += len(b)
    if r.status != 200:
        raise SystemExit("status %d for %s" % (r.status, url))
    c.close()
    return n


def main():
    mode = sys.argv[1]
    if mode == "origin":
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), H)
        if len(sys.argv) > 4:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[3], sys.argv[4])
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        srv.serve_forever()
    if mode == "set":
        s = socket.socket(socket.AF_UNIX)
        s.connect(sys.argv[2])
        s.sendall(b"set\n" + sys.argv[3].encode() + b"\n" + open(sys.argv[4], "rb").read())
        s.shutdown(socket.SHUT_WR)
        ans = s.recv(100)
        if ans != b"ok\n":
            raise SystemExit("set: %r" % ans)
        return
    url, n, cafile = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    proxy = sys.argv[5] if len(sys.argv) > 5 else ""
    if mode == "latency":
        for _ in range(n):
            t0 = time.perf_counter()
            fetch(url, cafile, proxy)
            print("%.4f" % ((time.perf_counter() - t0) * 1000))
    elif mode == "bulk":
        sep = "&" if "?" in url else "?"
        t0 = time.perf_counter()
        got = fetch(url + sep + "n=%d" % n, cafile, proxy)
        dt = time.perf_counter() - t0
        assert got == n, (got, n)
        print("%.1f" % (n / dt / 1e6))


if __name__ == "__main__":
    main()
