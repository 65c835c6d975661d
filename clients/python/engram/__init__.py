"""engram — the Python client of Engram, the context engine for AI agents.

    from engram import Engram
    with Engram("127.0.0.1", token="eg_…", tenant="acme", user="maya") as engram:
        engram.remember([("user", "I moved to London last October.")])
        print(engram.recall("Where do I live now?").context)

Engram blocks; AsyncEngram (grpc.aio) has the same methods as coroutines. Failed calls
raise EngramError (with .code, a grpc.StatusCode, and .message) or one of its subclasses.
"""
from .aio import AsyncEngram
from .client import Engram
from .errors import (DeadlineExceeded, EngramError, FailedPrecondition, InvalidArgument, NotFound,
                     PermissionDenied, ResourceExhausted, Unauthenticated, Unavailable, Unimplemented)
from .types import (Fact, ForgetResult, HistoryEntry, IngestResult, ItemKind, Job, Message, Outcome,
                    RecallItem, RecallResult, Status)

__version__ = "0.1.0"

__all__ = ["Engram", "AsyncEngram", "EngramError", "InvalidArgument", "NotFound", "PermissionDenied",
           "Unauthenticated", "Unavailable", "DeadlineExceeded", "ResourceExhausted", "FailedPrecondition",
           "Unimplemented", "Fact", "ForgetResult", "HistoryEntry", "IngestResult", "ItemKind", "Job", "Message",
           "Outcome", "RecallItem", "RecallResult", "Status"]
