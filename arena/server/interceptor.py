"""The authentication interceptor: every call's bearer token against its service's needs."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import grpc

from arena.log import get_logger
from arena.server.auth import Authenticator, AuthError, Kind, Principal

__all__ = ["SERVICE_KINDS", "AuthInterceptor", "current_principal"]

log = get_logger(__name__)

SERVICE_KINDS: Final[dict[str, Kind]] = {
    "arena.v1.Registry": "owner",
    "arena.v1.Play": "bot",
    "arena.v1.Admin": "admin",
}
"""The secret each guarded service needs; every other service (Spectate, Leaderboard,
health, reflection) is public and ignores any token sent."""

_PRINCIPAL: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "arena_principal", default=None
)

_CODES: Final = {
    "unauthenticated": grpc.StatusCode.UNAUTHENTICATED,
    "permission_denied": grpc.StatusCode.PERMISSION_DENIED,
}

if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]


def current_principal() -> Principal:
    """The caller of the guarded call being served (set by :class:`AuthInterceptor`)."""
    principal = _PRINCIPAL.get()
    if principal is None:
        raise RuntimeError("no authenticated caller: is the AuthInterceptor installed?")
    return principal


def _service(method: str) -> str:
    """``/arena.v1.Registry/Register`` → ``arena.v1.Registry``."""
    return method.lstrip("/").partition("/")[0]


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Aborts calls without the right secret; hands the caller to unary handlers."""

    def __init__(self, authenticator: Authenticator) -> None:
        self._auth = authenticator

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        service = _service(handler_call_details.method)
        kind = SERVICE_KINDS.get(service)
        if handler is None or kind is None:
            return handler
        try:
            principal = self._auth.require(
                handler_call_details.invocation_metadata, kind, service.rpartition(".")[2]
            )
        except AuthError as err:
            return _aborting(handler, _CODES[err.failure], err.message)
        return _with_principal(handler, principal)


STREAM_ABORT_WAIT = 0.5
"""Seconds a refused stream waits for the client's first message before ending."""


def _aborting(handler: Handler, code: grpc.StatusCode, message: str) -> Handler:
    """A handler of the same shape as ``handler`` that fails every call with ``code``."""

    async def abort(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, message)

    async def abort_stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        # Ending a bidirectional call while the client's first message is still in flight
        # can reach the client as INTERNAL ("Internal error from Core") instead of
        # ``code``: take that message first (briefly), then end the call.
        await _first_message(request, context.peer())
        await context.abort(code, message)
        yield  # never reached: makes this a response stream

    make = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[(handler.request_streaming, handler.response_streaming)]
    return make(
        abort_stream if handler.response_streaming else abort,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


async def _first_message(requests: AsyncIterator[Any], peer: str) -> None:
    """Wait up to :data:`STREAM_ABORT_WAIT` seconds for a refused stream's first message.

    A client that sends nothing in time, or closes its side, is expected; a broken
    stream is logged (the call is refused either way)."""
    try:
        await asyncio.wait_for(anext(aiter(requests)), STREAM_ABORT_WAIT)
    except (TimeoutError, StopAsyncIteration):
        return
    except grpc.RpcError as err:
        log.info("refused_stream_broken", peer=peer, error=str(err))


def _with_principal(handler: Handler, principal: Principal) -> Handler:
    """Unary-unary and stream-stream handlers see the caller through
    :func:`current_principal`.

    Each call is served in its own asyncio task (its own copy of the context), so a
    stream handler's principal is set once for the whole call.
    """
    if handler.stream_stream is not None:
        return _stream_with_principal(handler, principal)
    behavior = handler.unary_unary
    if behavior is None:
        return handler
    inner: Callable[[Any, Any], Awaitable[Any]] = behavior

    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        token = _PRINCIPAL.set(principal)
        try:
            return await inner(request, context)
        finally:
            _PRINCIPAL.reset(token)

    return grpc.unary_unary_rpc_method_handler(
        call,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


def _stream_with_principal(handler: Handler, principal: Principal) -> Handler:
    behavior = handler.stream_stream
    assert behavior is not None
    inner: Callable[[Any, Any], Any] = behavior

    async def call(
        requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        _PRINCIPAL.set(principal)  # this call's task only
        result = inner(requests, context)
        if hasattr(result, "__aiter__"):
            async for response in result:
                yield response
        else:  # a handler that writes with context.write()
            await result

    return grpc.stream_stream_rpc_method_handler(
        call,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
