"""A balance report knows what it measured: how often each option came into play
(:mod:`arena.sim.exercise`), differences that measure no option, ``--until-resolved``
stopping when a swept option never applies, and the deals its margin needs."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import bots
from arena.cards import SMALL_JOKER
from arena.chance import derive_seed
from arena.commands.balance import add_parser, run_balance, variant_specs
from arena.commands.balance_report import Label, figures, render_text
from arena.commands.balance_until import (
    DEFAULT_MARGIN,
    Z95,
    margin_deals,
    widest_rate_deals,
)
from arena.games import Observation, make
from arena.games.shengji.order import TRUMP
from arena.games.shengji.state import ShengjiState
from arena.match import deal_seed, play_deal
from arena.sim import balance
from arena.sim.balance import Summary, plan_jobs
from arena.sim.exercise import MIN_USES, deals_needed, exercise

SCHEMA = json.loads((Path(__file__).parents[1] / "docs/balance-report.schema.json").read_text())

TWOS_VARIANTS = (
    "--variant",
    "shengji-1",
    "--variant",
    "shengji-1",
    "--option",
    "constant_twos=true",
)
"""shengji-1 against itself with constant twos (SJ-2), the option the planted tests use."""


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="arena")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["balance", *argv])


def run(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    """``arena balance --local … --json``: its exit code and its report (schema-checked)."""
    out = tmp_path / "b.json"
    code = run_balance(
        parse("--local", "--db", str(tmp_path / "a.sqlite"), *argv, "--json", str(out))
    )
    data = json.loads(out.read_text())
    jsonschema.validate(data, SCHEMA)
    return code, data


def option(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(o for o in data["exercise"] if o["option"] == name)


# ------------------------------------------------------------------ planted effects


class SeatOneWeakened:
    """Heuristic play, except that seats 1 and 3 play at random wherever the deal's
    public facts say ``constant_twos``: a variant with constant_twos hides an advantage
    for seat 0 and its partner (the win rates are a team's)."""

    def __init__(self, seed: int) -> None:
        self.heuristic = bots.HeuristicBot(seed)
        self.random = bots.RandomBot(seed)

    def act(self, observation: Observation) -> Any:
        if observation.seat % 2 == 1 and observation.public.get("constant_twos"):
            return self.random.act(observation)
        return self.heuristic.act(observation)


def test_a_variant_with_a_hidden_advantage_for_one_seat_is_reported_significant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SJ-2: constant_twos comes into play (a 2 played as a trump by it) and, planted,
    weakens seats 1 and 3: the report finds seats 0 and 2 winning more, significantly."""
    monkeypatch.setitem(bots._FACTORIES, "weakened", SeatOneWeakened)
    code, data = run(
        tmp_path, "--bots", "weakened", "--deals", "200", "--batch", "100", *TWOS_VARIANTS
    )
    assert code == 0
    (seats_02,) = [d for d in data["differences"] if d["row_text"] == "seats 0 and 2"]
    assert seats_02["significant"] and seats_02["low"] > 0, "seats 0 and 2 win more"
    twos = option(data, "constant_twos")["variants"]
    assert [row["status"] for row in twos] == ["off", "measured"]
    assert not any("not_exercised" in d for d in data["differences"])


def test_an_option_that_never_applies_is_not_exercised_and_stops_until_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The usage patched so that constant_twos (SJ-2/constant_twos) never applies: the
    report says it was not exercised, its differences measure nothing (never
    significant, shown as such), and --until-resolved stops after its first round,
    saying why and after how many of the deals allowed."""
    applied = balance.rules_applied
    monkeypatch.setattr(
        balance, "rules_applied", lambda *deal: applied(*deal) - {"SJ-2/constant_twos"}
    )
    argv = ["--bots", "random", "--deals", "200", "--batch", "20", "--until-resolved"]
    code, data = run(tmp_path, *argv, *TWOS_VARIANTS, "--html", str(tmp_path / "b.html"))
    assert code == 0
    until = data["until_resolved"]
    assert until["stopped"] == "not_exercised" and until["deals_allowed"] == 200
    assert until["never_used"] == [{"option": "constant_twos", "use": "SJ-2/constant_twos"}]
    assert [v["deals"] for v in data["variants"]] == [20, 20], "stopped after its first round"
    rows = option(data, "constant_twos")["variants"]
    assert [row["status"] for row in rows] == ["off", "not exercised"]
    assert rows[1]["deals_needed"] == math.ceil(MIN_USES / rows[1]["high"])
    assert data["differences"] and all(
        d["not_exercised"] == ["constant_twos"] and not d["significant"]
        for d in data["differences"]
    )
    assert figures(data, str) == [], "no difference drawn as if it measured something"
    page = (tmp_path / "b.html").read_text()
    assert "Rules in play" in page and "NOT EXERCISED" in page
    assert "not exercised: constant_twos" in page
    text = capsys.readouterr().out
    assert (
        "until resolved: stopped after 20 of 200 deals per variant because constant_twos "
        "never came into play: no deal had a 2 played as a trump only by constant_twos "
        "(SJ-2/constant_twos)" in text
    )
    assert "+0.0" not in text and "not exercised: constant_twos" in text
    assert "NOT EXERCISED" in text


@pytest.mark.parametrize("population", ["first", "heuristic:risk=0"])
def test_a_population_that_never_risks_a_throw_does_not_exercise_throw_penalty(
    tmp_path: Path, population: str
) -> None:
    """SJ-17: bots that never lead a throw (first) or only safe ones (a cautious
    heuristic) never fail one, so throw_penalty never comes into play: not a
    difference of zero."""
    variants = ["--variant", "shengji-1", "--sweep", "throw_penalty=0,20"]
    code, data = run(tmp_path, "--bots", population, "--deals", "30", "--batch", "30", *variants)
    assert code == 0
    rows = option(data, "throw_penalty")["variants"]
    assert [(row["count"], row["status"]) for row in rows] == [(0, "off"), (0, "not exercised")]
    assert all(d["not_exercised"] == ["throw_penalty"] for d in data["differences"])


def test_until_resolved_says_after_its_first_round_the_deals_its_margin_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SJ-17 exercised (random bots fail throws): after the first 20 deals the run
    prints the deals a margin of half a decision per deal needs at the spread seen, more
    than the 100 allowed, keeps the estimate, and stops at its maximum saying so."""
    variants = ["--variant", "shengji-1", "--sweep", "throw_penalty=0,20"]
    argv = ["--bots", "random", "--deals", "100", "--batch", "20", "--until-resolved"]
    code, data = run(tmp_path, *argv, *variants, "--ask", "means.length", "--margin", "0.5")
    assert code == 0
    until = data["until_resolved"]
    assert until["deals_needed"] > 100 and until["stopped"] == "maximum"
    captured = capsys.readouterr()
    assert (
        "until resolved: at the spread of the first 20 deals, a margin of ±0.5 needs about "
        f"{until['deals_needed']:,} deals per variant, more than the 100 allowed"
        in " ".join(captured.err.split())
    )
    assert all(row["count"] > 0 for row in option(data, "throw_penalty")["variants"])
    assert (
        "until resolved: stopped after 100 of 100 deals per variant: the most deals allowed "
        "were played, 1 question still open (the margin needs about "
        f"{until['deals_needed']:,} deals per variant at the first round's spread)"
    ) in captured.out


def test_until_resolved_with_one_variant_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run_balance(parse("--local", "--variant", "shengji-1", "--until-resolved"))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--until-resolved answers differences between variants: name two or more" in err


# ------------------------------------------------------------------ counts from events


def constant_two_played(state: ShengjiState) -> bool:
    """A 2 of a suit other than the trump's played as a trump (SJ-2 with constant_twos),
    read from the deal's play events."""
    order = state.order
    assert order is not None
    if not order.constant_twos or order.level == 0:
        return False
    return any(
        card < SMALL_JOKER
        and card >> 2 == 0
        and order.suits[card] == TRUMP
        and (card & 3) != order.trump
        for event in state.events
        if event.kind == "play"
        for card in event.cards
    )


def test_every_count_of_rules_in_play_is_the_engines_events(tmp_path: Path) -> None:
    """The deals the report says each option came into play in (SJ-17 failed throws,
    SJ-2 constant twos), per variant, recounted from the events of the same deals played
    again here; the failed-throw row of the play section too."""
    argv = ["--bots", "random", "--deals", "30", "--batch", "15", "--seed", "5"]
    variants = [
        "--variant", "shengji-1",
        "--variant", "shengji-1", "--option", "constant_twos=true", "--option", "throw_penalty=10",
    ]  # fmt: skip
    code, data = run(tmp_path, *argv, *variants)
    assert code == 0
    specs = variant_specs(parse(*variants).balance_items)
    counted = [{"throw_penalty": 0, "constant_twos": 0} for _ in specs]
    for job in plan_jobs(specs, 30, 15, 5, bots.lineup(["random"])):
        game = make(job.game, **job.options)
        policies = [bots.make(b, derive_seed(job.seed, "bot", p)) for p, b in enumerate(job.bots)]
        setup = game.first_setup()
        for number in range(job.deals):
            state = game.new_deal(setup, seed=deal_seed(job.seed, number))
            play_deal(state, policies)
            assert isinstance(state, ShengjiState)
            failed = any(event.kind == "throw_failed" for event in state.events)
            counted[job.variant]["throw_penalty"] += failed
            counted[job.variant]["constant_twos"] += constant_two_played(state)
            setup = state.outcome().next_setup or game.first_setup()
    for name in ("throw_penalty", "constant_twos"):
        rows = option(data, name)["variants"]
        assert [row["count"] for row in rows] == [c[name] for c in counted]
        assert all(row["n"] == 30 for row in rows)
    failed_rows = [v["play"]["failed_throw"]["count"] for v in data["variants"]]
    assert failed_rows == [c["throw_penalty"] for c in counted]
    assert counted[1]["constant_twos"] > 0 and counted[0]["throw_penalty"] > 0


# ------------------------------------------------------------------ the criteria


def summary(uses: int, deals: int) -> Summary:
    return Summary("shengji-1", {"deals": deals, "rules/SJ-17/failed": uses})


@pytest.mark.parametrize(
    ("uses", "status", "needed"),
    [
        (0, "not exercised", math.ceil(MIN_USES / 0.0126)),
        (3, "too rare", 3000),
        (30, "measured", None),
    ],
)
def test_an_option_used_too_rarely_says_the_deals_it_needs(
    uses: int, status: str, needed: int | None
) -> None:
    """SJ-17: a throw penalty used in 3 deals of 300 needs 3,000 deals to be seen 30
    times; never used, at least 30 over the rate's 95% upper bound."""
    options = {**make("shengji-1").options, "throw_penalty": 10}
    found = exercise([("v", "shengji-1", options, summary(uses, 300))])
    (row,) = found[0]["variants"]
    assert found[0]["option"] == "throw_penalty" and not found[0]["differs"]
    assert row["status"] == status
    if needed is None:
        assert row["deals_needed"] is None
    else:
        assert row["deals_needed"] == pytest.approx(needed, rel=0.01)
    assert deals_needed(uses, 300, row["high"]) == row["deals_needed"] or status == "measured"


def test_options_at_their_defaults_and_alike_are_not_listed() -> None:
    defaults = make("guandan").options
    assert (
        exercise(
            [
                ("a", "guandan", defaults, Summary("guandan")),
                ("b", "guandan", defaults, Summary("guandan")),
            ]
        )
        == []
    )


def test_the_default_margin_is_reachable_within_the_default_deals() -> None:
    """At a rate's widest spread (50%), the default margin needs fewer deals than the
    default --deals allows."""
    from arena.commands.balance import DEFAULT_DEALS

    assert widest_rate_deals(DEFAULT_MARGIN) <= DEFAULT_DEALS
    assert widest_rate_deals(1.0) > DEFAULT_DEALS, "1 point would not be"


def rate_cell(p: float, n: int) -> dict[str, Any]:
    return {"rate": p, "n": n, "count": round(p * n)}


@given(st.floats(0.05, 0.95), st.floats(0.05, 0.95), st.floats(0.5, 10.0), st.integers(50, 5000))
@example(0.5, 0.5, Z95, 50)  # exactly 5,000 deals: a rounding error once asked for 5,001
def test_the_deals_a_margin_needs_are_the_fewest_that_reach_it(
    p: float, q: float, margin: float, n: int
) -> None:
    """At the deals estimated, the normal 95% half-width of the difference of two rates
    is within the margin; one deal fewer, it is not."""
    label = Label("wins.dealer_team", "dealer's team")
    sections = [
        (Label("section.wins", "wins"), [(label, [rate_cell(p, n), rate_cell(q, n)], "rate")])
    ]
    needed = margin_deals(sections, ["wins.dealer_team"], margin)
    assert needed is not None

    def half_width(deals: int) -> float:
        return 100 * Z95 * math.sqrt((p * (1 - p) + q * (1 - q)) / deals)

    assert half_width(needed) <= margin * (1 + 1e-9)
    assert needed == 1 or half_width(needed - 1) > margin


def test_a_report_stored_before_rules_were_counted_still_reads(tmp_path: Path) -> None:
    """A report without ``exercise`` nor the stop's deals allowed (written by an older
    version, read back by --open) shows its differences and why it stopped as before."""
    variants = ["--variant", "shengji-1", "--sweep", "throw_penalty=0,20"]
    argv = ["--bots", "random", "--deals", "20", "--batch", "20", "--until-resolved"]
    _, data = run(tmp_path, *argv, *variants, "--margin", "50")
    del data["exercise"]
    for key in ("deals_allowed", "deals_needed", "never_used"):
        del data["until_resolved"][key]
    text = render_text(data)
    assert "until resolved: stopped after 20 deals per variant: " in text
    assert "Rules in play" not in text and "not exercised" not in text
