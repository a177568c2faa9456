"""A running match's earlier deals can be reviewed while it is played: its page lists
every deal so far, ``/api/matches/ID/table?deal=N`` serves a finished deal's frames
(public information only: no hand of a live match is ever served), numbered as the
live stream numbers them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import WAIT, Live, LiveMatch, serving_live

SCRIPT = re.compile(r'<script type="application/json" id="table-data">(?P<data>.*?)</script>', re.S)


@pytest.fixture(scope="module")
def two_deals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with serving_live(tmp_path_factory.mktemp("deals") / "arena.sqlite", 2) as live:
        yield live


def table(live: Live, match: LiveMatch, query: str = "") -> dict[str, Any]:
    response = httpx.get(f"{live.url}/api/matches/{match.id}/table?lang=zh{query}", timeout=WAIT)
    assert response.status_code == 200, response.text[:300]
    found: dict[str, Any] = response.json()
    return found


def into_second_deal(live: Live, match: LiveMatch) -> None:
    """Let the bot answer until the match's second deal has begun."""
    answered = 0
    while len(table(live, match)["deals"]) < 2:
        answered += 1
        assert match.reach(answered), "the match ended in its first deal"


def hands_shown(view: dict[str, Any]) -> list[Any]:
    return [
        seat.get("hand")
        for frame in view["frames"]
        for seat in frame.get("seats") or ()
        if seat.get("hand")
    ]


def stream_frames(live: Live, match: LiveMatch) -> list[dict[str, Any]]:
    """The frames the live stream sends at once from the start (until a pause)."""
    frames: list[dict[str, Any]] = []
    url = f"{live.url}/api/matches/{match.id}/live?lang=zh"
    with httpx.stream("GET", url, timeout=httpx.Timeout(WAIT, read=1.0)) as response:
        event = ""
        try:
            for line in response.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "frame":
                    frames.append(json.loads(line[5:]))
        except httpx.ReadTimeout:
            pass  # caught up: the bot waits for the test
    return frames


@pytest.mark.parametrize("variant", ["guandan", "shengji-2"])
def test_a_finished_deal_of_a_running_match_is_reviewed_with_public_cards_only(
    two_deals: Live, variant: str, tmp_path: Path
) -> None:
    match = two_deals.match(variant, f"review-{variant}")
    try:
        into_second_deal(two_deals, match)
        current = table(two_deals, match)
        assert current["match"]["live"] and current["deal"] == 2
        assert [entry["number"] for entry in current["deals"]] == [1, 2]
        assert current["deals"][0]["summary"], "the first deal's entry says how it ended"

        first = table(two_deals, match, "&deal=1")
        assert first["match"]["live"] and first["deal"] == 1
        assert first["frames"] and {f["deal"] for f in first["frames"]} == {1}
        entry = first["deals"][0]
        assert [f["i"] for f in first["frames"]] == list(range(entry["first"], entry["last"] + 1))
        assert not hands_shown(first), "a hand of a running match was served"
        assert not hands_shown(current)

        everything = table(two_deals, match, "&deal=all")
        assert {f["deal"] for f in everything["frames"]} == {1, 2}
        assert not hands_shown(everything)

        page = httpx.get(f"{two_deals.url}/matches/{match.id}?lang=en", timeout=WAIT).text
        found = SCRIPT.search(page)
        assert found is not None
        shown = json.loads(found["data"])
        assert [entry["number"] for entry in shown["deals"]] == [1, 2]  # the deal picker

        streamed = stream_frames(two_deals, match)
        by_index = {frame["i"]: frame for frame in streamed}
        for frame in first["frames"]:  # the stream numbers the frames alike
            assert by_index[frame["i"]]["seq"] == frame["seq"]
            assert by_index[frame["i"]]["deal"] == 1
    finally:
        match.finish()
