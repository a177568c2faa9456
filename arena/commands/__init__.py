"""One module per ``arena`` subcommand; each turns parsed arguments into output."""

from __future__ import annotations

import json

EXIT_USAGE = 2
"""Exit status for bad input (a one-line message on stderr says what was wrong)."""


def print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False))
