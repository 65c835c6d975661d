#!/usr/bin/python3
"""Python grpcio -> C daemon unary latency (called by bench_rpc with the address)."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "integration"))
from interop import generate  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("addr")
    a = ap.parse_args()
    generate(a.proto, a.out)
    import grpc
    from healthpb import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(a.addr) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        req = health_pb2.HealthCheckRequest()
        for _ in range(300):
            stub.Check(req, timeout=5)
        lat = []
        t0 = time.perf_counter()
        for _ in range(a.calls):
            s = time.perf_counter()
            stub.Check(req, timeout=5)
            lat.append(time.perf_counter() - s)
        total = time.perf_counter() - t0
    lat.sort()
    print("Python->C unary Health/Check, %d sequential calls: p50 %d us, p99 %d us, %.0f calls/s"
          % (a.calls, lat[len(lat) // 2] * 1e6, lat[len(lat) * 99 // 100] * 1e6, a.calls / total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
