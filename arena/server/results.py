"""How a match's end goes on the wire: its reason, its one line, its rating changes.

Shared by the match sessions (live matches), Spectate (stored ones) and the listings;
it imports no other server module.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from google.protobuf import timestamp_pb2

from arena._proto.arena.v1 import arena_pb2
from arena.plural import counted
from arena.store import RatingChange

__all__ = [
    "ABORT_REASONS",
    "END_REASONS",
    "end_of_match",
    "failed_match_result",
    "rating_change",
    "timestamp",
]

ABORT_REASONS: Final = {
    "shutdown": arena_pb2.END_REASON_SHUTDOWN,
    "cancelled": arena_pb2.END_REASON_CANCELLED,
}
END_REASONS: Final = {
    "complete": arena_pb2.END_REASON_COMPLETE,
    "deal limit": arena_pb2.END_REASON_DEAL_LIMIT,
    "forfeit": arena_pb2.END_REASON_FORFEIT,
    **ABORT_REASONS,
}
"""A stored match's :attr:`~arena.store.StoredMatch.end_reason` on the wire."""


def timestamp(text: str | None) -> timestamp_pb2.Timestamp | None:
    """A stored ISO 8601 time as a Timestamp (None stays None)."""
    if not text:
        return None
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(datetime.fromisoformat(text))
    return stamp


def rating_change(change: RatingChange) -> arena_pb2.RatingChange:
    return arena_pb2.RatingChange(
        bot=change.bot,
        variant=change.variant,
        system=change.system,
        before=change.before,
        after=change.after,
        sigma=change.sigma,
        match_id=change.match_id,
        at=timestamp(change.at),
    )


def end_of_match(
    *,
    aborted: str | None,
    forfeit: bool,
    complete: bool,
    winner: int | None,
    deals: int,
    detail: str = "",
) -> tuple[arena_pb2.EndReason, str]:
    """Why a match ended and its one line for people (with ``detail``, an operator's
    reason for stopping it, when there is one)."""
    if aborted is not None:
        reason = ABORT_REASONS.get(aborted, arena_pb2.END_REASON_CANCELLED)
        said = f"{aborted} after {counted(deals, 'deal')}"
        return reason, said + (f": {detail}" if detail else "")
    reason = (
        arena_pb2.END_REASON_FORFEIT
        if forfeit
        else arena_pb2.END_REASON_COMPLETE
        if complete
        else arena_pb2.END_REASON_DEAL_LIMIT
    )
    if winner is not None:
        return reason, f"team {winner} wins after {counted(deals, 'deal')}"
    return reason, f"no winner after {counted(deals, 'deal')}"


def failed_match_result(
    match_id: str, deals: int, totals: list[int], stage: str
) -> arena_pb2.MatchResult:
    """The end of a match the server failed to play, store or rate (``stage``: what it
    was doing, for people; the details go to the server's log): not stored, not rated."""
    return arena_pb2.MatchResult(
        match_id=match_id,
        reason=arena_pb2.END_REASON_ERROR,
        totals=totals,
        deals=deals,
        summary=f"the server failed while {stage} after {counted(deals, 'deal')}: not stored, not "
        f"rated",
        rated=False,
    )
