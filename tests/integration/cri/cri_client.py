#!/usr/bin/python3
"""A CRI client for the tests: kubelet's calls over containerd's CRI gRPC socket, no crictl.

  cri_client.py --socket SOCK call METHOD [REQUEST_JSON]   # prints the response as JSON
  cri_client.py --socket SOCK exec CONTAINER_ID CMD...     # streaming Exec (websocket)
  cri_client.py --socket SOCK portforward POD_ID PORT      # stdin to the pod's PORT, the
                                                           # answer on stdout (websocket)

METHOD is a CRI v1 method named in cri_api.METHODS (RunPodSandbox, CreateContainer,
ExecSync, ...); the request is JSON with the proto's field names. Bytes in answers are
printed as text. A gRPC error exits 1 with its code and message on stderr.
Runs under Debian's python3 (python3-grpcio), not a pyenv one.
"""
import argparse
import json
import os
import sys

import grpc

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (the suite runs as root)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cri_api  # noqa: E402
import wire  # noqa: E402


def call(socket, method, request, timeout=120):
    service, req_schema, resp_schema = cri_api.METHODS[method]
    with grpc.insecure_channel("unix://" + socket) as ch:
        fn = ch.unary_unary(f"/runtime.v1.{service}/{method}",
                            request_serializer=lambda m: wire.encode(req_schema, m),
                            response_deserializer=lambda b: wire.decode(resp_schema, b))
        return fn(request, timeout=timeout)


def printable(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, dict):
        return {k: printable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [printable(x) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    sub = ap.add_subparsers(dest="verb", required=True)
    c = sub.add_parser("call")
    c.add_argument("method", choices=sorted(cri_api.METHODS))
    c.add_argument("request", nargs="?", default="{}")
    e = sub.add_parser("exec")
    e.add_argument("container_id")
    e.add_argument("cmd", nargs="+")
    f = sub.add_parser("portforward")
    f.add_argument("pod_id")
    f.add_argument("port", type=int)
    a = ap.parse_args()
    try:
        if a.verb == "call":
            print(json.dumps(printable(call(a.socket, a.method, json.loads(a.request), a.timeout))))
            return 0
        if a.verb == "portforward":
            import stream_portforward
            url = call(a.socket, "PortForward", {"pod_sandbox_id": a.pod_id, "port": [a.port]})["url"]
            data, err = stream_portforward.run(url, a.port, sys.stdin.buffer.read(), a.timeout)
            sys.stdout.buffer.write(data)
            sys.stderr.buffer.write(err)
            return 1 if err else 0
        import stream_exec
        url = call(a.socket, "Exec", {"container_id": a.container_id, "cmd": a.cmd, "stdout": True,
                                      "stderr": True})["url"]
        return stream_exec.run(url, sys.stdout.buffer, sys.stderr.buffer, a.timeout)
    except grpc.RpcError as err:
        print(f"cri: {err.code().name}: {err.details()}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
