"""Engram: the blocking client. The methods live in _Client, shared with AsyncEngram (aio.py).

Every method of _Client builds its request lazily and hands it to `_invoke`, which the
blocking client runs at once and the asyncio client wraps in a coroutine: the same method
returns a result on Engram and an awaitable of it on AsyncEngram, and a bad argument is
raised where the call is run (for AsyncEngram: when awaited).

Routing: a request's message type says which daemon and RPC serve it (_ROUTES). The four
daemons are reached over one channel each, opened on first use.
"""
import copy
import os
from typing import Dict, List, Optional, Sequence, Tuple

import grpc

from . import _wire
from .errors import InvalidArgument, from_rpc_error
from .types import Fact, ForgetResult, HistoryEntry, IngestResult, Job, Outcome, RecallResult
from .v1 import (common_pb2, common_pb2_grpc, graph_pb2, graph_pb2_grpc, ingest_pb2, ingest_pb2_grpc, recall_pb2,
                 recall_pb2_grpc)

DAEMONS = ("ingestd", "graphd", "vectord", "recalld")  # in port order
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7101  # ingestd's; the others follow it (graphd 7102, vectord 7103, recalld 7104)
DEFAULT_TIMEOUT = 10.0


def _route(daemon: str, stub_class, method: str):
    """(daemon, stub class, method, "/engram.v1.Service/Method") of one RPC."""
    return daemon, stub_class, method, "/engram.v1.%s/%s" % (stub_class.__name__[:-len("Stub")], method)


# request type -> the RPC that takes it
_ROUTES = {
    ingest_pb2.IngestSessionRequest: _route("ingestd", ingest_pb2_grpc.IngestStub, "IngestSession"),
    ingest_pb2.IngestDocumentRequest: _route("ingestd", ingest_pb2_grpc.IngestStub, "IngestDocument"),
    ingest_pb2.AssertFactsRequest: _route("ingestd", ingest_pb2_grpc.IngestStub, "AssertFacts"),
    ingest_pb2.GetJobRequest: _route("ingestd", ingest_pb2_grpc.IngestStub, "GetJob"),
    ingest_pb2.WaitRequest: _route("ingestd", ingest_pb2_grpc.IngestStub, "Wait"),
    common_pb2.EraseRequest: _route("ingestd", common_pb2_grpc.AdminStub, "Erase"),
    graph_pb2.StateRequest: _route("graphd", graph_pb2_grpc.GraphStub, "State"),
    graph_pb2.HistoryRequest: _route("graphd", graph_pb2_grpc.GraphStub, "History"),
    graph_pb2.RecordOutcomeRequest: _route("graphd", graph_pb2_grpc.GraphStub, "RecordOutcome"),
    recall_pb2.RecallRequest: _route("recalld", recall_pb2_grpc.RecallStub, "Recall"),
}


def _split_host_port(addr: str) -> Tuple[str, Optional[int]]:
    """Host and port of "host", "host:port", "[v6]" or "[v6]:port" (port None when absent)."""
    if addr.startswith("["):
        end = addr.find("]")
        if end < 0:
            raise InvalidArgument("address %r: unclosed [" % addr)
        host, rest = addr[:end + 1], addr[end + 1:]
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            raise InvalidArgument("address %r: expected [host]:port" % addr)
    elif addr.count(":") == 1:
        host, port = addr.split(":")
    else:
        host, port = addr, None  # a bare name, or an IPv6 address without brackets
    if port is None:
        return host, None
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidArgument("address %r: bad port" % addr)
    return host, int(port)


def resolve_addresses(addr: Optional[str], explicit: Dict[str, Optional[str]]) -> Dict[str, str]:
    """Each daemon's host:port. `addr` is a host (default ports 7101–7104) or host:port, the
    first of four consecutive ports (ingestd, graphd, vectord, recalld, as scripts/run.sh
    lays them out); an explicit address for a daemon wins."""
    host, first = _split_host_port(addr or DEFAULT_HOST)
    first = first or DEFAULT_PORT
    out = {d: "%s:%d" % (host, first + i) for i, d in enumerate(DAEMONS)}
    for d, a in explicit.items():
        if a:
            _, port = _split_host_port(a)
            if port is None:
                raise InvalidArgument("%s=%r: the address needs a port" % (d, a))
            out[d] = a
    return out


def _credentials(tls):
    """None for plaintext; else channel credentials: True = the system's roots, a path or PEM
    bytes = those roots, a grpc.ChannelCredentials as it is."""
    if tls is None or tls is False:
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    if isinstance(tls, grpc.ChannelCredentials):
        return tls
    if isinstance(tls, bytes):
        return grpc.ssl_channel_credentials(root_certificates=tls)
    if isinstance(tls, (str, os.PathLike)):
        try:
            with open(tls, "rb") as f:
                return grpc.ssl_channel_credentials(root_certificates=f.read())
        except OSError as e:
            raise InvalidArgument("tls: cannot read the CA file %s: %s" % (tls, e.strerror)) from None
    raise InvalidArgument("tls must be a bool, a CA file path, PEM bytes or grpc.ChannelCredentials")


class _Connection:
    """The channels to the four daemons and their stubs, opened on first use; shared by a
    client and the views with_options() makes of it."""

    def __init__(self, channel_module, addrs: Dict[str, str], creds, options: List[Tuple[str, object]]):
        self.channel_module = channel_module  # grpc or grpc.aio
        self.addrs = addrs
        self.creds = creds
        self.options = options
        self.channels = {}  # daemon -> channel
        self.stubs = {}  # (daemon, stub class) -> stub

    def stub(self, daemon: str, stub_class):
        key = (daemon, stub_class)
        if key not in self.stubs:
            if daemon not in self.channels:
                m, addr = self.channel_module, self.addrs[daemon]
                self.channels[daemon] = (m.secure_channel(addr, self.creds, options=self.options) if self.creds
                                         else m.insecure_channel(addr, options=self.options))
            self.stubs[key] = stub_class(self.channels[daemon])
        return self.stubs[key]

    def take_channels(self):
        """The open channels, forgotten here (the caller closes them)."""
        channels = list(self.channels.values())
        self.channels.clear()
        self.stubs.clear()
        return channels


_KEEP = object()  # with_options(): "as the client has it"


def _pick(new, old):
    return old if new is _KEEP else new


class _Client:
    """What Engram and AsyncEngram share: configuration, scope, metadata, and the methods."""

    _channel_module = grpc

    def __init__(self, addr: Optional[str] = None, *, ingestd: Optional[str] = None, graphd: Optional[str] = None,
                 vectord: Optional[str] = None, recalld: Optional[str] = None, token: Optional[str] = None,
                 tenant: str = "default", user: str = "", agent: str = "", private: bool = False, tls=None,
                 tls_server_name: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT,
                 metadata: Optional[Sequence[Tuple[str, str]]] = None,
                 options: Optional[Sequence[Tuple[str, object]]] = None):
        """Connect to Engram (channels open on first use).

        addr: a host (daemons on the default ports 7101–7104) or host:port, the first of
          four consecutive ports (ingestd, graphd, vectord, recalld); ingestd=, graphd=,
          vectord=, recalld= give a daemon's own host:port instead.
        token: the tenant's bearer token (default: $ENGRAM_TOKEN; "" sends none).
        tenant, user, agent, private: the scope of every request (README, "Users, agents
          and time"); with_options() makes a view with another.
        tls: False (plaintext), True (system roots), a CA file path, PEM bytes or
          grpc.ChannelCredentials; tls_server_name: the name the certificates carry when
          it is not the address's host.
        timeout: seconds per call. metadata: extra (key, value) pairs sent with every call.
        options: extra gRPC channel options.
        """
        addrs = resolve_addresses(addr, {"ingestd": ingestd, "graphd": graphd, "vectord": vectord, "recalld": recalld})
        opts = list(options or [])
        if tls_server_name:
            opts.append(("grpc.ssl_target_name_override", tls_server_name))
        self._conn = _Connection(self._channel_module, addrs, _credentials(tls), opts)
        self._owner = True
        self._token = os.environ.get("ENGRAM_TOKEN", "") if token is None else token
        self._set(tenant=tenant, user=user, agent=agent, private=private, timeout=timeout, metadata=metadata)

    def _set(self, tenant, user, agent, private, timeout, metadata):
        if not isinstance(tenant, str) or not tenant:
            raise InvalidArgument("tenant must be a non-empty string")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise InvalidArgument("timeout must be a positive number of seconds")
        self.tenant, self.user, self.agent, self.private = tenant, user or "", agent or "", bool(private)
        self.timeout = float(timeout)
        self._metadata = [(str(k).lower(), v) for k, v in (metadata or [])]

    @property
    def addresses(self) -> Dict[str, str]:
        """Each daemon's host:port."""
        return dict(self._conn.addrs)

    def with_options(self, *, tenant=_KEEP, user=_KEEP, agent=_KEEP, private=_KEEP, token=_KEEP, timeout=_KEEP,
                     metadata=_KEEP):
        """A view of this client with another scope, token, timeout or metadata. It shares
        the channels (closing the view leaves them open; closing the client closes them)."""
        view = copy.copy(self)
        view._owner = False
        view._token = _pick(token, self._token)
        view._set(_pick(tenant, self.tenant), _pick(user, self.user), _pick(agent, self.agent),
                  _pick(private, self.private), _pick(timeout, self.timeout), _pick(metadata, self._metadata))
        return view

    # ---- plumbing --------------------------------------------------------------------

    def _scope(self):
        return _wire.scope(self.tenant, self.user, self.agent, self.private)

    def _call_metadata(self):
        auth = [("authorization", "Bearer " + self._token)] if self._token else []
        return auth + self._metadata

    def _prepare(self, build):
        """(stub method, request, method path) for a request built now."""
        request = build()
        daemon, stub_class, method, path = _ROUTES[type(request)]
        return getattr(self._conn.stub(daemon, stub_class), method), request, path

    def _invoke(self, build, convert, timeout=None):
        raise NotImplementedError

    # ---- the API ----------------------------------------------------------------------

    def remember(self, messages=None, *, document: Optional[str] = None, session_id: Optional[str] = None,
                 document_id: Optional[str] = None, title: Optional[str] = None, time=None,
                 metadata: Optional[dict] = None, background: bool = False) -> IngestResult:
        """Store a conversation (messages: Message objects, {"role", "content"} dicts or
        (role, content) pairs) or a document (its text), in the client's scope.

        time: when the session happened or the document was written (relative dates in it
        resolve against it; default now). session_id / document_id default to a digest of
        the content, so remembering the same content twice writes nothing the second time.
        background=True returns once the write is queued (durably), with a job id (job())
        and a watermark (recall(watermark=…), wait()).
        """
        sc = self._scope()
        return self._invoke(lambda: _wire.remember_request(sc, messages, document, session_id, document_id, title,
                                                           time, metadata, background),
                            _wire.ingest_converter(background))

    def assert_fact(self, subject: str, relation: str, value: str, *, entity: bool = False, valid_from=None,
                    valid_to=None, reason: Optional[str] = None, confidence: Optional[float] = None,
                    derived_from: Optional[List[int]] = None, retract: bool = False,
                    session_id: Optional[str] = None, background: bool = False) -> IngestResult:
        """Record a fact: subject RELATION value (a literal, or with entity=True another
        entity's name), true from valid_from (default now) until valid_to. retract=True
        records that it stopped holding. derived_from: ids of the facts it was inferred
        from (recall flags it POTENTIALLY_STALE when one of them changes). The result's
        edge_ids holds the new fact's id."""
        sc = self._scope()
        return self._invoke(lambda: _wire.fact_request(sc, subject, relation, value, entity, valid_from, valid_to,
                                                       reason, confidence, derived_from, retract, session_id,
                                                       background),
                            _wire.ingest_converter(background))

    def recall(self, question: str, at=None, known_at=None, k: Optional[int] = None, *,
               token_budget: Optional[int] = None, session_ids: Optional[List[str]] = None,
               watermark: Optional[str] = None) -> RecallResult:
        """The context an agent needs to answer `question`: a dated context block and the
        ranked items (excerpts, facts with their status and history, paths).

        at: the "now" of the question (relative dates resolve against it; what is valid
        then); known_at: what Engram knew then; k: chunk items (facts and paths k/2 each);
        watermark: from remember(), to wait until that write is visible."""
        sc = self._scope()
        return self._invoke(lambda: _wire.recall_request(sc, question, at, known_at, k, token_budget, session_ids,
                                                         watermark),
                            _wire.to_recall_result)

    def facts(self, entity: str, at=None, *, relation: Optional[str] = None, known_at=None) -> List[Fact]:
        """What is true of an entity at `at` (default now), as known at `known_at`: the
        current value of each of its relations (or of `relation` only)."""
        sc = self._scope()
        return self._invoke(lambda: _wire.state_request(sc, entity, relation, at, known_at), _wire.to_facts)

    def history(self, subject: str, relation: Optional[str] = None, *, known_at=None,
                limit: Optional[int] = None) -> List[HistoryEntry]:
        """Every commit on the subject's chain of `relation` (or of all its relations), by
        valid time: values, when they held, why they changed, which replaced which."""
        sc = self._scope()
        return self._invoke(lambda: _wire.history_request(sc, subject, relation, known_at, limit), _wire.to_history)

    def record_outcome(self, edge_id: int, kind: str, time=None, note: Optional[str] = None,
                       source: Optional[str] = None) -> Outcome:
        """Record what came of acting on fact `edge_id` (a Fact's id): kind "ACTED_ON",
        "IGNORED", "SUCCEEDED", "FAILED" or "REVERSED"; time: when it happened (default
        now); source: where it came from (default "client"). For a preference the result's
        confidence counts the outcome. NotFound when the fact is not the client's to see."""
        sc = self._scope()
        return self._invoke(lambda: _wire.outcome_request(sc, edge_id, kind, time, note, source), _wire.to_outcome)

    def forget(self, user: str) -> ForgetResult:
        """Erase everything one user of the tenant said or was told, from every store and
        from disk (needs a token with the admin role). Returns the counts removed."""
        tenant = self.tenant
        return self._invoke(lambda: _wire.erase_user_request(tenant, user), _wire.to_forget_result)

    def forget_tenant(self, confirm: str) -> ForgetResult:
        """Erase the whole tenant; `confirm` must repeat the tenant's name (admin role)."""
        tenant = self.tenant
        return self._invoke(lambda: _wire.erase_tenant_request(tenant, confirm), _wire.to_forget_result)

    def job(self, job_id: str) -> Job:
        """The state of a background write (remember(…, background=True))."""
        sc = self._scope()
        return self._invoke(lambda: _wire.job_request(sc, job_id), _wire.to_job)

    def wait(self, watermark: str, timeout: float = 5.0) -> bool:
        """Wait up to `timeout` seconds until the write of `watermark` is visible; True when it is."""
        sc = self._scope()
        return self._invoke(lambda: _wire.wait_request(sc, watermark, timeout), _wire.to_reached,
                            timeout=max(self.timeout, timeout + 5.0))


class Engram(_Client):
    """The blocking client: each method returns its typed result or raises an EngramError.

        with Engram("127.0.0.1", token=..., tenant="acme", user="maya") as engram:
            engram.remember([("user", "I moved to London last October.")])
            print(engram.recall("Where do I live?").context)
    """

    def _invoke(self, build, convert, timeout=None):
        fn, request, path = self._prepare(build)
        try:
            response = fn(request, timeout=timeout or self.timeout, metadata=self._call_metadata())
        except grpc.RpcError as e:
            raise from_rpc_error(e, path) from e
        return convert(response)

    def close(self) -> None:
        """Close the channels (of a client; a view's close leaves its client's open)."""
        if self._owner:
            for ch in self._conn.take_channels():
                ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
