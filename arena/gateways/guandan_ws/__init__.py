"""The Guandan AI competition platform's messages, translated from and to our engine.

The platform (the WebSocket server of the Guandan AI contests, which DanZero and most
public Guandan bots speak) sends each seat JSON messages and reads ``{"actIndex": i}``
back. This package is the translation layer alone, with no I/O: the server and the
series mode beside it (``server.py``, ``series.py``) own the sockets, the seating, the
clock and the series counters, and call it.

Modules:

* :mod:`.cards` — card codes (``S2``, ``HT``, ``SB`` small joker, ``HR`` big joker),
  rank letters (``2`` … ``9``, ``T``, ``J``, ``Q``, ``K``, ``A``), the hand's order.
* :mod:`.actions` — our legal actions as ``actionList`` entries ``[type, rank, cards]``
  (:func:`encode_all`, order kept: index i is our legal action i), an entry or
  ``actIndex`` back to our action (:func:`decode`, :func:`to_action`), a bot's answer
  read (:func:`parse_answer`) and checked (:func:`check_index`).
* :mod:`.messages` — the messages to one seat, built from that seat's
  :class:`~arena.games.base.Observation` alone (the table of which field comes from
  where is in its docstring), and :class:`PlatformSeat`, the per-seat cursor.

The messages (``type`` / ``stage``), in the order a seat receives them::

    notify beginning      {handCards, myPos, curRank, selfRank, oppoRank}    each deal
    notify anti-tribute   {antiNum, antiPos}                 refusal (GD-15)
    act    tribute        {handCards, publicInfo, selfRank, oppoRank, curRank,
                           curPos, curAction, greaterPos, greaterAction,
                           actionList, indexRange}           the giver (GD-13)
    notify tribute        {result: [[giver, receiver, card], …]}  once all are given
    act    back           (as act tribute)                    the receiver
    notify back           {result: [[returner, receiver, card], …]}  once all are made
    act    play           (as act tribute)                    the seat to act
    notify play           {curPos, curAction, greaterPos, greaterAction}  every play, pass
    notify episodeOver    {order, curRank, restCards}         each deal's end
    notify gameOver       {curTimes, settingTimes}            each match's end
    notify gameResult     {victoryNum, draws}                 the series' end

The server's loop for one seat (an SDK bot's calls fit it: ``act`` at each decision,
the deal's end with its events and details)::

    seat = PlatformSeat(number)
    send(seat.update(observation))    # any observation: a new deal opens with
                                      # beginning; notify of new events; act if asked
    try:
        action = seat.action_for(parse_answer(text))  # the engine's own legal action
    except ParseError:
        ...                           # malformed: refuse, count, send seat.pending_act
    send(seat.end_deal(events, details))               # last notify, episodeOver
    send([game_over(k, n)]); send([game_result(wins, draws)])

``action_for`` returns the very object of the engine's legal list; an index that is
no whole number in ``0 .. indexRange``, or an answer that is no ``{"actIndex": N}``,
raises :class:`~arena.errors.ParseError` quoting it (a malformed answer, as for gRPC).
Where the platform's rules differ from rules/guandan.md, ours decide: docs/gateways.md
lists every difference.
"""

from arena.gateways.guandan_ws.actions import (
    check_index,
    decode,
    encode,
    encode_all,
    parse_answer,
    to_action,
)
from arena.gateways.guandan_ws.cards import card_of, code, hand_codes, rank_index, rank_letter
from arena.gateways.guandan_ws.messages import (
    Message,
    PlatformSeat,
    act,
    beginning,
    episode_over,
    game_over,
    game_result,
    notifications,
)

__all__ = [
    "Message",
    "PlatformSeat",
    "act",
    "beginning",
    "card_of",
    "check_index",
    "code",
    "decode",
    "encode",
    "encode_all",
    "episode_over",
    "game_over",
    "game_result",
    "hand_codes",
    "notifications",
    "parse_answer",
    "rank_index",
    "rank_letter",
    "to_action",
]
