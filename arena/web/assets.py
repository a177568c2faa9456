"""The site's static files, served from the package with versioned URLs.

``static_url("site.css")`` is ``/static/site.css?v=<hash of its content>``: a response
asked with the current version may be kept a year by any cache (it never changes under
that URL); one asked without it, or with an old one, must be checked again each time.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Final

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = ["LONG_CACHE", "NO_CACHE", "StaticAssets", "VersionedStatic"]

LONG_CACHE: Final = "public, max-age=31536000, immutable"
NO_CACHE: Final = "no-cache"
PREFIX: Final = "/static/"


class StaticAssets:
    """The static folder of the package and the content hash of each file (computed
    once per file for the lifetime of the app)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or Path(str(resources.files("arena.web").joinpath("static")))
        self._versions: dict[str, str] = {}

    def version(self, name: str) -> str | None:
        """The content hash of ``name`` (None: no such file in the folder)."""
        known = self._versions.get(name)
        if known is not None:
            return known
        path = (self.folder / name).resolve()
        if not path.is_relative_to(self.folder.resolve()) or not path.is_file():
            return None
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        self._versions[name] = digest
        return digest

    def url(self, name: str) -> str:
        """The versioned URL of ``name``; a ``KeyError`` for a file the site does not have
        (a template naming a missing asset is a programming error)."""
        version = self.version(name)
        if version is None:
            raise KeyError(f"no static file {name!r} in {self.folder}")
        return f"{PREFIX}{name}?v={version}"


class VersionedStatic(StaticFiles):
    """Static files whose responses are cached long when asked by their current version."""

    def __init__(self, assets: StaticAssets) -> None:
        super().__init__(directory=assets.folder)
        self.assets = assets

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        asked = _query_value(scope, "v")
        current = self.assets.version(path) if response.status_code == 200 else None
        versioned = asked is not None and asked == current
        response.headers["Cache-Control"] = LONG_CACHE if versioned else NO_CACHE
        return response


def _query_value(scope: Scope, name: str) -> str | None:
    raw: bytes = scope.get("query_string", b"")
    for part in raw.decode("latin-1").split("&"):
        key, _, value = part.partition("=")
        if key == name:
            return value
    return None
