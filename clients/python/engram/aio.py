"""AsyncEngram: the asyncio client (grpc.aio), with the same methods as Engram.

Each method returns an awaitable of the same typed result, or raises the same EngramError
when awaited. Channels open on the first call, inside the running event loop.

    async with AsyncEngram("127.0.0.1", token=..., tenant="acme", user="maya") as engram:
        await engram.remember([("user", "I moved to London last October.")])
        print((await engram.recall("Where do I live?")).context)
"""
import grpc
import grpc.aio

from .client import _Client
from .errors import from_rpc_error


class AsyncEngram(_Client):
    _channel_module = grpc.aio

    async def _invoke(self, build, convert, timeout=None):
        fn, request, path = self._prepare(build)
        try:
            response = await fn(request, timeout=timeout or self.timeout, metadata=self._call_metadata())
        except grpc.RpcError as e:  # grpc.aio.AioRpcError is one
            raise from_rpc_error(e, path) from e
        return convert(response)

    async def close(self) -> None:
        """Close the channels (of a client; a view's close leaves its client's open)."""
        if self._owner:
            for ch in self._conn.take_channels():
                await ch.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
