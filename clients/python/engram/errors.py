"""Errors: every failed call raises an EngramError carrying the gRPC status code and message.

A subclass per status a caller is likely to handle; any other status is a plain EngramError
with its code. Arguments the client itself refuses (before anything is sent) raise
InvalidArgument too, with code INVALID_ARGUMENT, exactly as the server would.
"""
from typing import Optional

import grpc


class EngramError(Exception):
    """A call failed. `.code` is the grpc.StatusCode, `.message` the server's text."""

    code = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None, method: str = ""):
        if code is not None:
            self.code = code
        self.message = message
        self.method = method  # the RPC, e.g. "/engram.v1.Recall/Recall"; "" when none was sent
        where = " (%s)" % method if method else ""
        super().__init__("%s: %s%s" % (self.code.name, message, where))


class InvalidArgument(EngramError, ValueError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(EngramError, LookupError):
    code = grpc.StatusCode.NOT_FOUND


class PermissionDenied(EngramError):
    """The token may not do this: another tenant's scope, or erasure without the admin role."""

    code = grpc.StatusCode.PERMISSION_DENIED


class Unauthenticated(EngramError):
    """No token, or one the daemons do not know."""

    code = grpc.StatusCode.UNAUTHENTICATED


class Unavailable(EngramError, ConnectionError):
    """The daemon cannot be reached (or is shutting down); safe to retry."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(EngramError, TimeoutError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class ResourceExhausted(EngramError):
    """A queue is full or a message too big; a retry later may pass."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(EngramError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class Unimplemented(EngramError):
    code = grpc.StatusCode.UNIMPLEMENTED


_BY_CODE = {c.code: c for c in (InvalidArgument, NotFound, PermissionDenied, Unauthenticated, Unavailable,
                                 DeadlineExceeded, ResourceExhausted, FailedPrecondition, Unimplemented)}


def from_rpc_error(e: grpc.RpcError, method: str) -> EngramError:
    """The EngramError for a failed call (grpc and grpc.aio errors alike)."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    message = (e.details() if hasattr(e, "details") else None) or str(e)
    return _BY_CODE.get(code, EngramError)(message, code, method)
