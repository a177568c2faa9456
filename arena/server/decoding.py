"""Request bodies that do not parse: INVALID_ARGUMENT with a plain message, on every method.

gRPC's Python server decodes a request before any handler runs; a body that is not the
method's message raises inside the library, which answers UNKNOWN and quotes a Python
exception. :class:`DecodingInterceptor` wraps every method's decoder (the arena's
services, health and reflection alike) so that such a body becomes an
:class:`Unparsable` value, and every handler ends a call that received one with
INVALID_ARGUMENT naming the message expected. The server logs each one and goes on
serving.

A unary request is refused before the service sees it. In a request stream the
messages before the bad one are served as usual; the stream then ends as if the client
had closed it, and the call ends with INVALID_ARGUMENT once the service has finished.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.message import DecodeError

from arena.log import get_logger
from arena.plural import counted

__all__ = ["DecodingInterceptor", "Unparsable"]

log = get_logger(__name__)

if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]
    Context = grpc.aio.ServicerContext[Any, Any]

Behaviour = Callable[[Any, Any], Any]
"""A method's handler function: (request or request stream, context) → its result."""


@dataclass(frozen=True, slots=True)
class Unparsable:
    """A request body that is not an encoding of the message its method takes."""

    method: str
    expected: str
    size: int

    @property
    def message(self) -> str:
        return (
            f"the request body ({counted(self.size, 'byte')}) is not a valid {self.expected} "
            f"message "
            f"(protocol buffers binary encoding), as {self.method.lstrip('/')} expects"
        )


def _message_name(deserializer: Callable[[bytes], Any]) -> str:
    """``RegisterRequest.FromString`` → ``arena.v1.RegisterRequest``."""
    owner = getattr(deserializer, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    return name if isinstance(name, str) else "request"


def _tolerant(method: str, deserializer: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """``deserializer``, answering :class:`Unparsable` instead of raising."""
    expected = _message_name(deserializer)

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except DecodeError as err:
            log.info("unparsable_request", method=method, expected=expected, bytes=len(data))
            log.debug("unparsable_request_detail", method=method, error=str(err))
            return Unparsable(method, expected, len(data))

    return parse


async def _refuse(context: Context, bad: Unparsable) -> None:
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, bad.message)


async def _outcome(result: Any) -> Any:
    """A handler's result, awaited when it is awaitable."""
    return await result if inspect.isawaitable(result) else result


async def _responses(result: Any) -> AsyncIterator[Any]:
    """A response-streaming handler's messages (it yields them, or writes them itself)."""
    if hasattr(result, "__aiter__"):
        async for response in result:
            yield response
    else:
        await _outcome(result)


class _Requests:
    """A request stream that stops at the first unparsable message and remembers it."""

    def __init__(self, requests: AsyncIterator[Any]) -> None:
        self._requests = requests
        self.bad: Unparsable | None = None

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for request in self._requests:
            if isinstance(request, Unparsable):
                self.bad = request
                return
            yield request


def _decoding(handler: Handler, method: str) -> Handler:
    """``handler`` with a tolerant decoder and behaviours that refuse unparsable bodies."""
    decode = handler.request_deserializer
    if decode is None:  # a generic handler reads raw bytes: nothing to parse
        return handler
    tolerant = _tolerant(method, decode)
    encode = handler.response_serializer

    if handler.unary_unary is not None:
        unary_unary: Behaviour = handler.unary_unary

        async def call_unary_unary(request: Any, context: Context) -> Any:
            if isinstance(request, Unparsable):
                await _refuse(context, request)
            return await _outcome(unary_unary(request, context))

        return grpc.unary_unary_rpc_method_handler(
            call_unary_unary, request_deserializer=tolerant, response_serializer=encode
        )
    if handler.unary_stream is not None:
        unary_stream: Behaviour = handler.unary_stream

        async def call_unary_stream(request: Any, context: Context) -> AsyncIterator[Any]:
            if isinstance(request, Unparsable):
                await _refuse(context, request)
            async for response in _responses(unary_stream(request, context)):
                yield response

        return grpc.unary_stream_rpc_method_handler(
            call_unary_stream, request_deserializer=tolerant, response_serializer=encode
        )
    if handler.stream_unary is not None:
        stream_unary: Behaviour = handler.stream_unary

        async def call_stream_unary(requests: AsyncIterator[Any], context: Context) -> Any:
            stream = _Requests(requests)
            response = await _outcome(stream_unary(aiter(stream), context))
            if stream.bad is not None:
                await _refuse(context, stream.bad)
            return response

        return grpc.stream_unary_rpc_method_handler(
            call_stream_unary, request_deserializer=tolerant, response_serializer=encode
        )
    assert handler.stream_stream is not None
    stream_stream: Behaviour = handler.stream_stream

    async def call_stream_stream(
        requests: AsyncIterator[Any], context: Context
    ) -> AsyncIterator[Any]:
        stream = _Requests(requests)
        async for response in _responses(stream_stream(aiter(stream), context)):
            yield response
        if stream.bad is not None:
            await _refuse(context, stream.bad)

    return grpc.stream_stream_rpc_method_handler(
        call_stream_stream, request_deserializer=tolerant, response_serializer=encode
    )


class DecodingInterceptor(grpc.aio.ServerInterceptor):
    """Every method answers an unparsable request body with INVALID_ARGUMENT."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return _decoding(handler, handler_call_details.method)
