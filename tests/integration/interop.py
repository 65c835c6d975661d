#!/usr/bin/python3
"""Interop check: a foreign gRPC client (Python grpcio) built only from proto/.

Generates the stubs from the .proto files into --out, then for each daemon address
given (ingestd graphd vectord recalld) checks grpc.health.v1 reports SERVING, that an
unknown health service is NOT_FOUND, that a business RPC answers with a real gRPC
status, that Graph.RecordOutcome records, returns and refuses as documented, and that
Admin.GetRetention and Admin.SetRetentionPolicy answer for a fact as documented. With
--token and --tenant (daemons started with bearer tokens): a Recall without
the token is UNAUTHENTICATED, with it and the token's tenant OK, with it and another
tenant PERMISSION_DENIED. Exits non-zero on the first mismatch.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys


def generate(proto_dir, out):
    """Compile every .proto of proto/ into Python modules under out.

    health.proto is compiled from a copy under healthpb/: its Python module path must not
    start with "grpc", which is grpcio's own package. The proto package (and so the wire
    names, /grpc.health.v1.Health/Check) is unchanged.
    """
    os.makedirs(out, exist_ok=True)
    src = os.path.join(out, "src")
    os.makedirs(os.path.join(src, "healthpb"), exist_ok=True)
    shutil.copy(os.path.join(proto_dir, "grpc", "health", "v1", "health.proto"),
                os.path.join(src, "healthpb", "health.proto"))
    files = sorted(glob.glob(os.path.join(proto_dir, "engram", "**", "*.proto"), recursive=True))
    rel = [os.path.relpath(f, proto_dir) for f in files]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir,
                    "--python_out", out, "--grpc_python_out", out] + rel, check=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", src,
                    "--python_out", out, "--grpc_python_out", out, "healthpb/health.proto"],
                   check=True)
    sys.path.insert(0, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--token", help="a bearer token of --tenant (the daemons require tokens)")
    ap.add_argument("--tenant")
    ap.add_argument("addrs", nargs=4, help="ingestd graphd vectord recalld")
    a = ap.parse_args()
    generate(a.proto, a.out)
    import grpc
    from healthpb import health_pb2, health_pb2_grpc  # generated
    from engram.v1 import graph_pb2, graph_pb2_grpc, recall_pb2, recall_pb2_grpc

    services = ["engram.v1.Ingest", "engram.v1.Graph", "engram.v1.Vector", "engram.v1.Recall"]
    for addr, svc in zip(a.addrs, services):
        with grpc.insecure_channel(addr) as ch:
            h = health_pb2_grpc.HealthStub(ch)
            for name in ("", svc):
                r = h.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
                if r.status != health_pb2.HealthCheckResponse.SERVING:
                    print(f"{addr} {name!r}: status {r.status}, want SERVING")
                    return 1
            try:
                h.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
                print(f"{addr}: unknown service answered OK")
                return 1
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.NOT_FOUND:
                    print(f"{addr}: unknown service gave {e.code()}, want NOT_FOUND")
                    return 1
            print(f"{addr} {svc}: SERVING")
    if a.token:
        return check_tokens(a, grpc, recall_pb2, recall_pb2_grpc)
    # A business RPC answers with a proper status (UNIMPLEMENTED until its issue lands,
    # then OK or INVALID_ARGUMENT for this empty request) — never a transport error.
    with grpc.insecure_channel(a.addrs[1]) as ch:
        try:
            graph_pb2_grpc.GraphStub(ch).State(graph_pb2.StateRequest(), timeout=5)
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT):
                print(f"Graph/State: {e.code()} {e.details()}")
                return 1
    with grpc.insecure_channel(a.addrs[1]) as ch:
        if check_outcomes(grpc, graph_pb2, graph_pb2_grpc.GraphStub(ch)):
            return 1
    with grpc.insecure_channel(a.addrs[1]) as gch, grpc.insecure_channel(a.addrs[0]) as ich:
        if check_retention(grpc, graph_pb2, graph_pb2_grpc.GraphStub(gch), ich):
            return 1
    with grpc.insecure_channel(a.addrs[3]) as ch:
        try:
            recall_pb2_grpc.RecallStub(ch).Recall(recall_pb2.RecallRequest(), timeout=5)
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT):
                print(f"Recall/Recall: {e.code()} {e.details()}")
                return 1
    print("interop ok")
    return 0


def check_outcomes(grpc, graph_pb2, stub):
    """Graph.RecordOutcome from a foreign client: a preference committed, an outcome
    recorded on it and returned with its belief, then listed with the edge by History;
    a missing edge is NOT_FOUND, an unset kind INVALID_ARGUMENT. Returns 1 on a mismatch."""
    from engram.v1 import common_pb2
    scope = common_pb2.Scope(tenant="interop", user="py")
    user = graph_pb2.EntityRef(name="user:py")
    edge = graph_pb2.EdgeInput(subject=user, relation="PREFERS", object_literal="oat milk",
                               meta=graph_pb2.EdgeMeta(source_session_id="py1", confidence=0.5))
    edge_id = stub.Commit(graph_pb2.CommitRequest(scope=scope, edges=[edge]), timeout=5).edge_ids[0]
    r = stub.RecordOutcome(graph_pb2.RecordOutcomeRequest(
        scope=scope, edge_id=edge_id, kind=graph_pb2.OUTCOME_KIND_SUCCEEDED, note="ordered again"), timeout=5)
    if r.outcome.edge_id != edge_id or r.outcome.kind != graph_pb2.OUTCOME_KIND_SUCCEEDED or \
            abs(r.belief.confidence - 0.8) > 1e-4 or len(r.belief.evidence) != 2:
        print(f"Graph/RecordOutcome: unexpected answer {r}")
        return 1
    h = stub.History(graph_pb2.HistoryRequest(scope=scope, subject=user, relation="PREFERS"), timeout=5)
    if [o.note for o in h.entries[0].edge.outcomes] != ["ordered again"]:
        print(f"Graph/History: outcome not listed with its edge: {h}")
        return 1
    for req, code in ((graph_pb2.RecordOutcomeRequest(scope=scope, edge_id=edge_id + 1000,
                                                      kind=graph_pb2.OUTCOME_KIND_FAILED), grpc.StatusCode.NOT_FOUND),
                      (graph_pb2.RecordOutcomeRequest(scope=scope, edge_id=edge_id), grpc.StatusCode.INVALID_ARGUMENT)):
        try:
            stub.RecordOutcome(req, timeout=5)
            got = grpc.StatusCode.OK
        except grpc.RpcError as e:
            got = e.code()
        if got != code:
            print(f"Graph/RecordOutcome {req}: {got}, want {code}")
            return 1
    print("outcomes ok")
    return 0


def check_retention(grpc, graph_pb2, graph, ingest_channel):
    """Admin.GetRetention (ingestd) of a fact committed on graphd: its salience from the
    lexicon and an R; Admin.SetRetentionPolicy refuses a policy that evicts without
    confirm_tenant. Returns 1 on a mismatch."""
    from engram.v1 import common_pb2, common_pb2_grpc
    scope = common_pb2.Scope(tenant="interop", user="py")
    edge = graph_pb2.EdgeInput(subject=graph_pb2.EntityRef(name="user:py"), relation="ALLERGIC_TO",
                               object_literal="peanuts")
    edge_id = graph.Commit(graph_pb2.CommitRequest(scope=scope, edges=[edge]), timeout=5).edge_ids[0]
    admin = common_pb2_grpc.AdminStub(ingest_channel)
    r = admin.GetRetention(common_pb2.GetRetentionRequest(scope=scope, edge_ids=[edge_id]), timeout=5)
    if len(r.items) != 1 or r.items[0].kind != "fact" or abs(r.items[0].salience - 0.9) > 1e-6 or \
            r.items[0].salience_source != "lexicon: health" or not r.items[0].r > 0 or r.policy.half_life_days != 30:
        print(f"Admin/GetRetention: unexpected answer {r}")
        return 1
    try:
        admin.SetRetentionPolicy(common_pb2.SetRetentionPolicyRequest(
            scope=scope, policy=common_pb2.RetentionPolicy(evict_cold_after_days=30)), timeout=5)
        got = grpc.StatusCode.OK
    except grpc.RpcError as e:
        got = e.code()
    if got != grpc.StatusCode.INVALID_ARGUMENT:
        print(f"Admin/SetRetentionPolicy evicting without confirm_tenant: {got}, want INVALID_ARGUMENT")
        return 1
    print("retention ok")
    return 0


def check_tokens(a, grpc, recall_pb2, recall_pb2_grpc):
    """Bearer tokens as any gRPC client sends them: call metadata."""
    from engram.v1 import common_pb2
    want = [(None, a.tenant, grpc.StatusCode.UNAUTHENTICATED), (a.token, a.tenant, grpc.StatusCode.OK),
            (a.token, a.tenant + "-other", grpc.StatusCode.PERMISSION_DENIED)]
    with grpc.insecure_channel(a.addrs[3]) as ch:
        stub = recall_pb2_grpc.RecallStub(ch)
        for token, tenant, code in want:
            req = recall_pb2.RecallRequest(scope=common_pb2.Scope(tenant=tenant), query="where do I live?")
            md = [("authorization", "Bearer " + token)] if token else None
            try:
                stub.Recall(req, timeout=10, metadata=md)
                got = grpc.StatusCode.OK
            except grpc.RpcError as e:
                got = e.code()
            if got != code:
                print(f"Recall as {tenant!r} with{'out' if not token else ''} a token: {got}, want {code}")
                return 1
    print("interop with tokens ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
