"""What people send: forms and JSON answers, read with a size limit."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException
from starlette.requests import Request

__all__ = ["MAX_FORM_BYTES", "read_form", "read_json"]

MAX_FORM_BYTES: Final = 8_192
"""The largest form or answer a person may send."""


async def _body(request: Request) -> bytes:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise HTTPException(413, f"request body larger than {MAX_FORM_BYTES} bytes")
    return body


async def read_form(request: Request) -> dict[str, str]:
    """An urlencoded form's fields (the last of a repeated one)."""
    text = (await _body(request)).decode("utf-8", errors="replace")
    return dict(parse_qsl(text, keep_blank_values=True))


async def read_json(request: Request) -> Mapping[str, Any]:
    """A request's JSON object (400 naming what is wrong otherwise)."""
    try:
        answer = json.loads(await _body(request))
    except ValueError:
        raise HTTPException(400, "the request's body is not JSON") from None
    if not isinstance(answer, Mapping):
        raise HTTPException(400, "the request's body must be a JSON object")
    return answer
