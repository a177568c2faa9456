"""A Botzone Tractor program for the tests, written from Botzone's format: it rebuilds its
hand from the requests and its answers, calls with a level card when nobody has, buries
the kitty as delivered, leads its first card and follows with the first legal follow
(the arena's rules oracle picks it, so a wrong card number shows as a refusal).
``--long`` keeps running (Botzone's long-running mode); every input line is appended
to the file named by ``--log``; ``--garbage-once FILE`` answers its first play with
garbage (once: FILE marks it done); ``--exit-at N`` exits at its Nth turn."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from arena.games.shengji.moves import LIST_LIMIT, follow_actions
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import decompose
from arena.gateways.botzone.cards import LEVELS, card_of

args = sys.argv[1:]
option = {k: args[i + 1] if i + 1 < len(args) else "" for i, k in enumerate(args) if k[:2] == "--"}


def respond(requests, responses):
    hold = []
    for request, response in zip(requests, [*responses, None], strict=True):
        hold += request.get("deliver", [])
        if request["stage"] in ("cover", "play") and response:
            hold = [n for n in hold if n not in response]
    now, level_char = requests[-1], requests[-1]["global"]["level"]
    banking, level = now["global"]["banking"], LEVELS.index(level_char)
    if now["stage"] == "deal":
        new = now["deliver"][0]
        calls = banking["called"] == -1 and card_of(new) < 52 and card_of(new) >> 2 == level
        return [new] if calls else []
    if now["stage"] == "cover":
        return now["deliver"]
    if "--garbage-once" in option and not os.path.exists(option["--garbage-once"]):
        open(option["--garbage-once"], "w").close()
        return "no cards here"
    trick = now["history"][1]
    if not trick:
        return [hold[0]]
    major = banking["major"]
    order = TrumpOrder(level, None if major == "n" else "shdc".index(major), False, False)
    lead = [card_of(n) for n in trick[0]]
    hand = sorted(card_of(n) for n in hold)
    plays, _, _ = follow_actions(
        hand, decompose(lead, order), order.suits[lead[0]], len(lead), order, 2, LIST_LIMIT
    )
    answer = []
    for card in plays[0].cards:
        answer.append(next(n for n in hold if card_of(n) == card and n not in answer))
    return answer


log = open(option["--log"], "a") if "--log" in option else None  # noqa: SIM115 - open till exit
line = sys.stdin.readline()
first = json.loads(line)
requests, responses = first["requests"], first["responses"]
turn = 0
while True:
    turn += 1
    if log:
        log.write(line)
        log.flush()
    if "--exit-at" in option and turn == int(option["--exit-at"]):
        sys.exit(5)
    response = respond(requests, responses)
    responses.append(response)
    print(json.dumps({"response": response}), flush=True)
    if "--long" not in option:
        break
    print(">>>BOTZONE_REQUEST_KEEP_RUNNING<<<", flush=True)
    line = sys.stdin.readline()
    if not line:
        break
    requests.append(json.loads(line))
