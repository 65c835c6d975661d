"""Between the client's Python values and engram.v1 messages: times, scopes, requests, results.

Pure functions, no I/O: the sync and the asyncio client build the same requests and read
the same answers through them. A request builder refuses bad arguments with InvalidArgument
(nothing is sent).
"""
import hashlib
import json
from datetime import date, datetime, timedelta, timezone
from typing import Iterable, List, Optional, Sequence, Union

from .errors import InvalidArgument
from .types import (Fact, ForgetResult, HistoryEntry, IngestResult, ItemKind, Job, Message, Outcome, RecallItem,
                    RecallResult, Status)

try:
    from .v1 import common_pb2, graph_pb2, ingest_pb2, recall_pb2
except ImportError as e:  # the source tree without a build: the stubs are made by setup.py
    raise ImportError("engram's gRPC stubs are missing: they are generated when the package is installed "
                      "(pip install --no-build-isolation clients/python)") from e

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

TimeLike = Union[datetime, date, str, None]


# ---- times -----------------------------------------------------------------------------

def to_us(t: TimeLike, what: str) -> int:
    """Microseconds since the epoch for a datetime (naive = UTC), a date (its midnight,
    UTC) or an ISO-8601 string; None is 0, the wire's "not set"."""
    if t is None:
        return 0
    if isinstance(t, str):
        try:
            t = datetime.fromisoformat(t.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidArgument("%s: %r is not an ISO-8601 date or time" % (what, t)) from None
    if isinstance(t, date) and not isinstance(t, datetime):
        t = datetime(t.year, t.month, t.day)
    if not isinstance(t, datetime):
        raise InvalidArgument("%s must be a datetime, a date or an ISO-8601 string, not %s"
                              % (what, type(t).__name__))
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    us = (t - EPOCH) // timedelta(microseconds=1)
    if us <= 0:
        raise InvalidArgument("%s must be after 1970-01-01" % what)
    return us


def from_us(us: int) -> Optional[datetime]:
    """The aware UTC datetime of a wire time; None for 0 ("not set")."""
    return EPOCH + timedelta(microseconds=us) if us else None


# ---- requests ---------------------------------------------------------------------------

def scope(tenant: str, user: str, agent: str, private: bool = False):
    return common_pb2.Scope(tenant=tenant, user=user or "", agent=agent or "", private=private)


def _text(value, what: str, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InvalidArgument("%s must be a string, not %s" % (what, type(value).__name__))
    if required and not value.strip():
        raise InvalidArgument("%s is empty" % what)
    return value


def _count(value: Optional[int], what: str) -> int:
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidArgument("%s must be a positive integer, not %r" % (what, value))
    return value


def _message(m, i: int):
    """A Message, a {"role", "content", "time", "name"} dict or a (role, content) pair."""
    if isinstance(m, Message):
        role, content, t, name = m.role, m.content, m.time, m.name
    elif isinstance(m, dict):
        unknown = set(m) - {"role", "content", "time", "name"}
        if unknown:
            raise InvalidArgument("messages[%d]: unknown keys %s" % (i, sorted(unknown)))
        role, content, t, name = m.get("role", "user"), m.get("content"), m.get("time"), m.get("name", "")
    elif isinstance(m, (tuple, list)) and len(m) == 2:
        (role, content), t, name = m, None, ""
    else:
        raise InvalidArgument("messages[%d] must be a Message, a dict or a (role, content) pair" % i)
    return ingest_pb2.Message(role=_text(role, "messages[%d].role" % i),
                              content=_text(content, "messages[%d].content" % i),
                              time=to_us(t, "messages[%d].time" % i),
                              name=_text(name, "messages[%d].name" % i, False))


def _content_id(prefix: str, content) -> str:
    """An id derived from the content: a resend of the same content is the same write."""
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
    return "%s-%s" % (prefix, digest[:24])


def _mode(background: bool):
    return ingest_pb2.INGEST_MODE_ASYNC if background else ingest_pb2.INGEST_MODE_SYNC


def session_request(sc, messages: Sequence, session_id: Optional[str], time: TimeLike, background: bool):
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise InvalidArgument("messages must be a list of messages")
    msgs = [_message(m, i) for i, m in enumerate(messages)]
    if not msgs:
        raise InvalidArgument("messages is empty")
    if session_id is None:
        session_id = _content_id("session", [[m.role, m.content, m.time] for m in msgs])
    return ingest_pb2.IngestSessionRequest(scope=sc, session_id=_text(session_id, "session_id"),
                                           session_time=to_us(time, "time"), messages=msgs, mode=_mode(background))


def document_request(sc, text: str, document_id: Optional[str], title: Optional[str], time: TimeLike,
                     metadata: Optional[dict], background: bool):
    text = _text(text, "document")
    if document_id is None:
        document_id = _content_id("document", [title or "", text])
    kv = [common_pb2.KeyValue(key=str(k), value=str(v)) for k, v in (metadata or {}).items()]
    return ingest_pb2.IngestDocumentRequest(scope=sc, document_id=_text(document_id, "document_id"),
                                            title=_text(title, "title", False), time=to_us(time, "time"),
                                            text=text, metadata=kv, mode=_mode(background))


def remember_request(sc, messages, document, session_id, document_id, title, time, metadata, background):
    """The request of remember(): a session or a document, exactly one."""
    if (messages is None) == (document is None):
        raise InvalidArgument("remember() takes messages or a document (exactly one)")
    if messages is not None:
        if document_id is not None or title is not None or metadata is not None:
            raise InvalidArgument("document_id, title and metadata go with a document, not messages")
        return session_request(sc, messages, session_id, time, background)
    if session_id is not None:
        raise InvalidArgument("session_id goes with messages, not a document")
    return document_request(sc, document, document_id, title, time, metadata, background)


def fact_request(sc, subject: str, relation: str, value: str, entity: bool, valid_from: TimeLike,
                 valid_to: TimeLike, reason: Optional[str], confidence: Optional[float],
                 derived_from: Optional[List[int]], retract: bool, session_id: Optional[str], background: bool):
    relation = _text(relation, "relation")
    fact = ingest_pb2.FactInput(subject=graph_pb2.EntityRef(name=_text(subject, "subject")), relation=relation,
                                op=graph_pb2.EDGE_OP_RETRACT if retract else graph_pb2.EDGE_OP_ASSERT,
                                valid_from=to_us(valid_from, "valid_from"), valid_to=to_us(valid_to, "valid_to"),
                                derived_from=list(derived_from or []), reason=_text(reason, "reason", False),
                                session_id=_text(session_id, "session_id", False))
    if confidence is not None:
        if not 0.0 <= confidence <= 1.0:
            raise InvalidArgument("confidence must be within [0, 1]")
        fact.confidence = confidence
    if entity:
        fact.object_entity.name = _text(value, "value")
    else:
        fact.object_literal = _text(value, "value")
    return ingest_pb2.AssertFactsRequest(scope=sc, facts=[fact], mode=_mode(background))


def recall_request(sc, question: str, at: TimeLike, known_at: TimeLike, k: Optional[int],
                   token_budget: Optional[int], session_ids: Optional[List[str]], watermark: Optional[str]):
    return recall_pb2.RecallRequest(scope=sc, query=_text(question, "question"), query_time=to_us(at, "at"),
                                    known_at=to_us(known_at, "known_at"), k=_count(k, "k"),
                                    token_budget=_count(token_budget, "token_budget"),
                                    session_ids=list(session_ids or []), watermark=watermark or "")


def state_request(sc, entity: str, relation: Optional[str], at: TimeLike, known_at: TimeLike):
    query = graph_pb2.StateQuery(subject=graph_pb2.EntityRef(name=_text(entity, "entity")),
                                 relation=_text(relation, "relation", False))
    return graph_pb2.StateRequest(scope=sc, queries=[query], valid_at=to_us(at, "at"),
                                  known_at=to_us(known_at, "known_at"))


def history_request(sc, subject: str, relation: Optional[str], known_at: TimeLike, limit: Optional[int]):
    return graph_pb2.HistoryRequest(scope=sc, subject=graph_pb2.EntityRef(name=_text(subject, "subject")),
                                    relation=_text(relation, "relation", False),
                                    known_at=to_us(known_at, "known_at"), limit=_count(limit, "limit"))


OUTCOME_KINDS = ("ACTED_ON", "IGNORED", "SUCCEEDED", "FAILED", "REVERSED")


def outcome_request(sc, edge_id: int, kind: str, time: TimeLike, note: Optional[str], source: Optional[str]):
    if not isinstance(edge_id, int) or isinstance(edge_id, bool) or edge_id < 1:
        raise InvalidArgument("edge_id must be a positive integer, not %r" % (edge_id,))
    if not isinstance(kind, str) or kind.upper() not in OUTCOME_KINDS:
        raise InvalidArgument("kind must be one of %s, not %r" % (", ".join(OUTCOME_KINDS), kind))
    return graph_pb2.RecordOutcomeRequest(scope=sc, edge_id=edge_id,
                                          kind=graph_pb2.OutcomeKind.Value("OUTCOME_KIND_" + kind.upper()),
                                          time=to_us(time, "time"), note=_text(note, "note", False),
                                          source=_text(source, "source", False))


def erase_user_request(tenant: str, user: str):
    return common_pb2.EraseRequest(scope=scope(tenant, _text(user, "user"), ""))


def erase_tenant_request(tenant: str, confirm: str):
    if confirm != tenant:
        raise InvalidArgument("forget_tenant(confirm=…) must name the client's tenant %r" % tenant)
    return common_pb2.EraseRequest(scope=scope(tenant, "", ""), confirm_tenant=confirm)


def job_request(sc, job_id: str):
    return ingest_pb2.GetJobRequest(scope=sc, job_id=_text(job_id, "job_id"))


def wait_request(sc, watermark: str, timeout: float):
    if timeout < 0:
        raise InvalidArgument("timeout must not be negative")
    return ingest_pb2.WaitRequest(scope=sc, watermark=_text(watermark, "watermark"), timeout_us=int(timeout * 1e6))


# ---- results ----------------------------------------------------------------------------

_STATUS = {common_pb2.EPISTEMIC_STATUS_UNVERIFIED: Status.UNVERIFIED,
           common_pb2.EPISTEMIC_STATUS_CORROBORATED: Status.CORROBORATED,
           common_pb2.EPISTEMIC_STATUS_POTENTIALLY_STALE: Status.POTENTIALLY_STALE,
           common_pb2.EPISTEMIC_STATUS_SUPERSEDED: Status.SUPERSEDED}
_KIND = {recall_pb2.ITEM_KIND_CHUNK: ItemKind.CHUNK, recall_pb2.ITEM_KIND_FACT: ItemKind.FACT,
         recall_pb2.ITEM_KIND_PATH: ItemKind.PATH}
_JOB_STATE = {ingest_pb2.JOB_STATE_QUEUED: "queued", ingest_pb2.JOB_STATE_RUNNING: "running",
              ingest_pb2.JOB_STATE_DONE: "done", ingest_pb2.JOB_STATE_FAILED: "failed"}


def to_fact(e) -> Fact:
    literal = e.object.WhichOneof("kind") == "literal"
    m = e.meta
    return Fact(id=e.id, subject=e.subject_name, relation=e.relation,
                value=e.object.literal if literal else e.object_name,
                object_id=None if literal else e.object.entity_id, retracted=e.op == graph_pb2.EDGE_OP_RETRACT,
                valid_from=from_us(e.valid_from), valid_to=from_us(e.valid_to), known_at=from_us(e.t_commit),
                reason=m.reason, utterance=m.utterance, confidence=m.confidence, extractor=m.extractor,
                source_session_id=m.source_session_id, source_document_id=m.source_document_id,
                derived_from=list(e.derived_from), user=e.user, agent=e.agent,
                rule=m.rule if m.provenance == graph_pb2.PROVENANCE_DERIVED else "")


def to_recall_item(it) -> RecallItem:
    return RecallItem(kind=_KIND.get(it.kind, ItemKind.UNSPECIFIED), text=it.text, score=it.score,
                      status=_STATUS.get(it.status, Status.UNSPECIFIED), valid_time=from_us(it.time),
                      session_id=it.session_id, document_id=it.document_id, turn_index=it.turn_index,
                      chunk_id=it.chunk_id, role=it.role, latent=it.latent,
                      fact=to_fact(it.fact) if it.HasField("fact") else None,
                      history=[to_fact(h) for h in it.history],
                      superseding=to_fact(it.superseding) if it.HasField("superseding") else None,
                      path=[to_fact(e) for e in it.path.edges], signals={s.signal: s.value for s in it.signals},
                      preference=it.preference,
                      belief=it.fact.belief.confidence if it.fact.HasField("belief") else None)


def to_recall_result(r) -> RecallResult:
    tr = r.time_range
    return RecallResult(context=r.context, items=[to_recall_item(i) for i in r.items],
                        nothing_relevant=r.nothing_relevant, context_tokens=r.context_tokens,
                        variants=list(r.variants),
                        time_range=(from_us(getattr(tr, "from")), from_us(tr.to))
                        if r.HasField("time_range") else None,
                        timings={t.stage: t.micros / 1e6 for t in r.timings})


def _ingest_result(job_id: str, watermark: str, rep, edge_ids, done: bool) -> IngestResult:
    return IngestResult(job_id=job_id, watermark=watermark, chunks=rep.chunks, entities=rep.entities,
                        facts=rep.facts, tokens=rep.tokens, duplicate=rep.duplicate, edge_ids=list(edge_ids),
                        done=done)


def ingest_converter(background: bool):
    """The reader of an IngestResponse: a background write is queued, not done."""
    return lambda r: _ingest_result(r.job_id, r.watermark, r.report, r.edge_ids, not background)


def to_facts(r) -> List[Fact]:
    return [to_fact(e) for res in r.results for e in res.values]


def to_history(r) -> List[HistoryEntry]:
    return [HistoryEntry(fact=to_fact(h.edge), superseded=h.superseded, superseded_by=h.superseded_by or None)
            for h in r.entries]


def to_outcome(r) -> Outcome:
    o = r.outcome
    return Outcome(edge_id=o.edge_id, kind=graph_pb2.OutcomeKind.Name(o.kind)[len("OUTCOME_KIND_"):],
                   time=from_us(o.time), recorded_at=from_us(o.recorded_at), note=o.note, source=o.source,
                   confidence=r.belief.confidence if r.HasField("belief") else None)


def to_forget_result(r) -> ForgetResult:
    counts = {}
    for c in r.counts:
        counts[(c.store, c.kind)] = counts.get((c.store, c.kind), 0) + c.count
    return ForgetResult(counts=counts, erased_at=from_us(r.erased_at))


def to_job(j) -> Job:
    state = _JOB_STATE.get(j.state, "unspecified")
    result = _ingest_result(j.job_id, j.watermark, j.report, [], True) if state == "done" else None
    return Job(job_id=j.job_id, state=state, watermark=j.watermark, error=j.error, chunks_done=j.chunks_done,
               chunks_total=j.chunks_total, result=result)


def to_reached(r) -> bool:
    return r.reached
