"""The typed results of the client: plain dataclasses, times as aware UTC datetimes.

A time the server leaves unset (0 on the wire) is None here.
"""
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Dict, List, Optional, Tuple


class Status(str, Enum):
    """How far a fact can be trusted (the premise walk's verdict)."""

    UNSPECIFIED = "unspecified"
    UNVERIFIED = "unverified"
    CORROBORATED = "corroborated"
    POTENTIALLY_STALE = "potentially_stale"
    SUPERSEDED = "superseded"

    def __str__(self):
        return self.value


class ItemKind(str, Enum):
    """What a recall item is."""

    UNSPECIFIED = "unspecified"
    CHUNK = "chunk"  # an excerpt of a conversation or document
    FACT = "fact"  # a current fact, with its history
    PATH = "path"  # a graph path between entities of the question

    def __str__(self):
        return self.value


@dataclass
class Message:
    """One message of a conversation, as given to remember()."""

    role: str  # "user", "assistant", "system" or "tool"
    content: str
    time: Optional[datetime] = None  # when it was said; None = the session's time
    name: str = ""  # the speaker's name, if known


@dataclass
class Fact:
    """One commit of a fact (a graph edge): subject RELATION value, with both times."""

    id: int  # 0 for a fact read from an excerpt at Recall, never stored (extractor "excerpt")
    subject: str  # the subject entity's canonical name
    relation: str  # UPPER_SNAKE
    value: str  # the literal, or the object entity's name
    object_id: Optional[int]  # the object entity's id; None for a literal
    retracted: bool  # True for a RETRACT commit
    valid_from: Optional[datetime]  # when it became true in the world
    valid_to: Optional[datetime]  # when it stopped (exclusive); None = open
    known_at: Optional[datetime]  # transaction time: when Engram learned it
    reason: str = ""  # the stated reason ("new job")
    utterance: str = ""  # what it was read from
    confidence: float = 0.0
    extractor: str = ""  # "rules", "llm", "prototypes", "client", "excerpt" …
    source_session_id: str = ""
    source_document_id: str = ""
    derived_from: List[int] = field(default_factory=list)  # premise fact ids
    rule: str = ""  # for a conclusion of graphd's derivation rules (provenance DERIVED): the rule
    user: str = ""  # whose memory it is ("" = the tenant's shared knowledge)
    agent: str = ""


@dataclass
class HistoryEntry:
    """One commit of a (subject, relation) chain, as history() lists them."""

    fact: Fact
    superseded: bool  # a later value replaced it, or it was retracted or ended
    superseded_by: Optional[int]  # the fact id that did; None when current


@dataclass
class RecallItem:
    """One ranked item of a recall: an excerpt, a fact or a path."""

    kind: ItemKind
    text: str  # the excerpt, or the fact or path rendered as text
    score: float  # the fused score
    status: Status  # for facts: how far to trust it
    valid_time: Optional[datetime]  # when it was said / is valid from
    session_id: str = ""
    document_id: str = ""
    turn_index: int = 0
    chunk_id: int = 0
    role: str = ""  # for excerpts of a conversation: who said it
    latent: str = ""  # an excerpt's self-contained rewrite
    fact: Optional[Fact] = None  # FACT: the current value
    history: List[Fact] = field(default_factory=list)  # FACT: earlier values, superseded
    superseding: Optional[Fact] = None  # POTENTIALLY_STALE: the commit that changed a premise
    path: List[Fact] = field(default_factory=list)  # PATH: its edges
    signals: Dict[str, float] = field(default_factory=dict)  # per-signal scores
    preference: bool = False  # FACT: one of the user's preferences on the question ("what the user values")
    belief: Optional[float] = None  # a preference's confidence accumulated over its evidence

    @property
    def source(self) -> str:
        """Where it comes from: its session's or document's id ("" for graph items)."""
        return self.session_id or self.document_id


@dataclass
class RecallResult:
    """What an agent gets before it answers: a context block and the items behind it."""

    context: str  # one dated context block for a prompt, within the token budget
    items: List[RecallItem]
    nothing_relevant: bool  # True when the agent should say it does not know
    context_tokens: int
    variants: List[str]  # the query variants searched
    time_range: Optional[Tuple[Optional[datetime], Optional[datetime]]]  # [from, to) of a temporal question
    timings: Dict[str, float]  # seconds per server stage

    @property
    def facts(self) -> List[RecallItem]:
        return [i for i in self.items if i.kind is ItemKind.FACT]

    @property
    def chunks(self) -> List[RecallItem]:
        return [i for i in self.items if i.kind is ItemKind.CHUNK]


@dataclass
class IngestResult:
    """What remember() or assert_fact() wrote."""

    job_id: str
    watermark: str  # pass to recall(watermark=…) or wait() for read-your-writes
    chunks: int
    entities: int
    facts: int
    tokens: int
    duplicate: bool  # the same content was remembered before: nothing was written
    edge_ids: List[int]  # assert_fact(): the fact ids, in request order
    done: bool  # False for background=True: the write is queued (see job())


@dataclass
class Outcome:
    """What came of acting on a fact, as record_outcome() stored it."""

    edge_id: int
    kind: str  # "ACTED_ON", "IGNORED", "SUCCEEDED", "FAILED" or "REVERSED"
    time: Optional[datetime]  # when it happened
    recorded_at: Optional[datetime]  # when Engram learned it
    note: str = ""
    source: str = ""  # "client" unless given
    confidence: Optional[float] = None  # for a preference: its confidence with this outcome counted


@dataclass
class Job:
    """The state of a background ingest."""

    job_id: str
    state: str  # "queued", "running", "done", "failed"
    watermark: str
    error: str  # when failed (never user content)
    chunks_done: int
    chunks_total: int
    result: Optional[IngestResult]  # when done


@dataclass
class ForgetResult:
    """What an erasure removed, per store and kind: {("chunks", "chunks"): 3, …}."""

    counts: Dict[Tuple[str, str], int]
    erased_at: Optional[datetime]

    @property
    def total(self) -> int:
        return sum(self.counts.values())
