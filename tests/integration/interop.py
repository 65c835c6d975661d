#!/usr/bin/python3
"""Interop check: a foreign gRPC client (Python grpcio) built only from proto/.

Generates the stubs from the .proto files into --out, then for each daemon address
given (ingestd graphd vectord recalld) checks grpc.health.v1 reports SERVING, that an
unknown health service is NOT_FOUND, that empty Graph.State and Recall requests are
INVALID_ARGUMENT, that data makes the round trip (a conversation ingested, its fact in
Graph.State and in Recall's items and context; a fact committed and read back by
Graph.State; a chunk upserted, then found by Vector.Search and GetChunks), that
Graph.RecordOutcome records, returns and refuses as documented, and that
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
    # An empty request (no scope) is refused with INVALID_ARGUMENT and a message.
    with grpc.insecure_channel(a.addrs[1]) as gch, grpc.insecure_channel(a.addrs[3]) as rch:
        for name, call, req in (("Graph/State", graph_pb2_grpc.GraphStub(gch).State, graph_pb2.StateRequest()),
                                ("Recall/Recall", recall_pb2_grpc.RecallStub(rch).Recall,
                                 recall_pb2.RecallRequest())):
            got, details = status_of(grpc, call, req)
            if got != grpc.StatusCode.INVALID_ARGUMENT or not details:
                print(f"{name} with an empty request: {got} {details!r}, want INVALID_ARGUMENT with a message")
                return 1
    if check_round_trip(grpc, a.addrs):
        return 1
    with grpc.insecure_channel(a.addrs[1]) as ch:
        if check_outcomes(grpc, graph_pb2, graph_pb2_grpc.GraphStub(ch)):
            return 1
    with grpc.insecure_channel(a.addrs[1]) as gch, grpc.insecure_channel(a.addrs[0]) as ich:
        if check_retention(grpc, graph_pb2, graph_pb2_grpc.GraphStub(gch), ich):
            return 1
    print("interop ok")
    return 0


def status_of(grpc, call, req):
    """The status code and details of one call (OK and "" when it succeeds)."""
    try:
        call(req, timeout=10)
        return grpc.StatusCode.OK, ""
    except grpc.RpcError as e:
        return e.code(), e.details()


def check_round_trip(grpc, addrs):
    """Data written through one daemon and read back through the others, all from this
    foreign client: a conversation ingested (ingestd) shows up as a fact in Graph.State
    (graphd) and in Recall's items and context (recalld); a fact committed to graphd is
    read back by Graph.State; a chunk upserted to vectord is found by Search and returned
    by GetChunks, text intact. Returns 1 on a mismatch."""
    from engram.v1 import (common_pb2, graph_pb2, graph_pb2_grpc, ingest_pb2, ingest_pb2_grpc, recall_pb2,
                           recall_pb2_grpc, vector_pb2, vector_pb2_grpc)
    scope = common_pb2.Scope(tenant="interop-rt", user="py")
    user = graph_pb2.EntityRef(name="user:py")
    with grpc.insecure_channel(addrs[0]) as ich, grpc.insecure_channel(addrs[1]) as gch, \
            grpc.insecure_channel(addrs[2]) as vch, grpc.insecure_channel(addrs[3]) as rch:
        ingest, graph = ingest_pb2_grpc.IngestStub(ich), graph_pb2_grpc.GraphStub(gch)
        vector, recall = vector_pb2_grpc.VectorStub(vch), recall_pb2_grpc.RecallStub(rch)
        msgs = [ingest_pb2.Message(role="user", content="I live in Reykjavik, right by the old harbour."),
                ingest_pb2.Message(role="assistant", content="Reykjavik sounds lovely in the summer.")]
        r = ingest.IngestSession(ingest_pb2.IngestSessionRequest(
            scope=scope, session_id="py-s1", messages=msgs, mode=ingest_pb2.INGEST_MODE_SYNC), timeout=30)
        if r.report.chunks != 1 or r.report.facts < 1 or not r.watermark.startswith("v1:"):
            print(f"Ingest/IngestSession: unexpected answer {r}")
            return 1
        watermark = r.watermark

        st = graph.State(graph_pb2.StateRequest(
            scope=scope, queries=[graph_pb2.StateQuery(subject=user, relation="LIVES_IN")]), timeout=10)
        values = [(v.object_name or v.object.literal, v.meta.source_session_id)
                  for res in st.results for v in res.values]
        if values != [("Reykjavik", "py-s1")]:
            print(f"Graph/State LIVES_IN after the ingest: {values}, want [('Reykjavik', 'py-s1')]")
            return 1

        rr = recall.Recall(recall_pb2.RecallRequest(scope=scope, query="Where do I live?", k=5,
                                                    watermark=watermark), timeout=30)
        facts = [it.text for it in rr.items if it.kind == recall_pb2.ITEM_KIND_FACT]
        chunks = [it for it in rr.items if it.kind == recall_pb2.ITEM_KIND_CHUNK]
        if rr.nothing_relevant or not any("Reykjavik" in f for f in facts) or "Reykjavik" not in rr.context or \
                not any(c.session_id == "py-s1" and "old harbour" in c.text for c in chunks):
            print(f"Recall 'Where do I live?': facts {facts}, chunks {[(c.session_id, c.text) for c in chunks]}, "
                  f"context {rr.context!r}")
            return 1

        edge = graph_pb2.EdgeInput(subject=user, relation="WORKS_AT", object_literal="Harbour Glassworks")
        cr = graph.Commit(graph_pb2.CommitRequest(scope=scope, edges=[edge]), timeout=10)
        st = graph.State(graph_pb2.StateRequest(
            scope=scope, queries=[graph_pb2.StateQuery(subject=user, relation="WORKS_AT")]), timeout=10)
        got = [(v.id, v.object.literal) for res in st.results for v in res.values]
        if len(cr.edge_ids) != 1 or got != [(cr.edge_ids[0], "Harbour Glassworks")]:
            print(f"Graph/State WORKS_AT after Commit {list(cr.edge_ids)}: {got}")
            return 1

        text = "The lighthouse keeper's parrot is called Captain Biscuit."
        up = vector.Upsert(vector_pb2.UpsertRequest(scope=scope, chunks=[vector_pb2.Chunk(
            scope=scope, document_id="py-d1", role="document", content=text)]), timeout=30)
        if len(up.ids) != 1 or not up.ids[0] or up.embedded != 1 or not up.model_id or not up.dim:
            print(f"Vector/Upsert: unexpected answer {up}")
            return 1
        sr = vector.Search(vector_pb2.SearchRequest(
            scope=scope, queries=[vector_pb2.SearchQuery(text="what is the parrot called")], k=3,
            include_content=True), timeout=30)
        hits = [(h.chunk.id, h.chunk.content) for h in sr.results[0].hits] if len(sr.results) == 1 else []
        if not hits or hits[0] != (up.ids[0], text):
            print(f"Vector/Search for the parrot: {hits}, want ({up.ids[0]}, {text!r}) first")
            return 1
        gr = vector.GetChunks(vector_pb2.GetChunksRequest(scope=scope, ids=[up.ids[0]]), timeout=10)
        if [(c.id, c.content, c.document_id) for c in gr.chunks] != [(up.ids[0], text, "py-d1")]:
            print(f"Vector/GetChunks: unexpected answer {gr}")
            return 1
    print("round trip ok")
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
