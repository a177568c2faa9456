"""Balance testing: deal facts per game, summaries, statistics, the command's outputs."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import arena
import bots
from arena.cards import BIG_JOKER
from arena.chance import derive_seed, shuffled_deck
from arena.commands import balance as balance_command
from arena.commands.balance import add_parser, run_balance, variant_specs
from arena.commands.balance_report import comparison, figures, format_cell, lineup_label
from arena.errors import ConfigError
from arena.games import Game, State, make, team_of
from arena.games.base import Outcome
from arena.games.guandan.state import GuandanSetup
from arena.games.shengji.scoring import points_in
from arena.match import play_deal
from arena.sim import balance
from arena.sim.balance import (
    BalanceJob,
    Summary,
    VariantSpec,
    deal_facts,
    plan_jobs,
    play_balance_batch,
    report,
    run_local,
    run_on_ray,
)
from arena.sim.runner import Runner
from arena.store import Store


def finish(state: State, seed: int = 0) -> tuple[Outcome, int]:
    """Play a deal to its end with random bots: its outcome and number of decisions."""
    policies = [bots.make("random", derive_seed(seed, p)) for p in range(4)]
    decisions = len(play_deal(state, policies))
    return state.outcome(), decisions


def facts_of(game: Game, state: State, seed: int = 0) -> dict[str, Any]:
    outcome, decisions = finish(state, seed)
    return deal_facts(game.name, state, outcome, decisions)


# ------------------------------------------------------------------ Guandan


def test_guandan_tribute_is_detected_in_the_second_deal() -> None:
    game = make("guandan")
    first = game.new_deal(game.first_setup(), seed=1)
    outcome, decisions = finish(first, 1)
    facts = deal_facts("guandan", first, outcome, decisions)
    assert facts["tribute"] == "first" and facts["dealer_team"] is None
    assert facts["decisions"] == decisions > 0
    second = game.new_deal(outcome.next_setup, seed=2)
    facts = facts_of(game, second, 2)
    winners = team_of(outcome.details["order"][0])
    assert facts["tribute"] != "first"
    assert facts["receiver_team"] == facts["dealer_team"] == winners
    tributes = [e for e in second.events if e.kind == "tribute"]
    expected = {"single": 1, "double": 2, "refused_single": 0, "refused_double": 0}
    assert len(tributes) == expected[facts["tribute"]]
    won = facts["winner_team"] == winners
    assert facts["receiver_gain"] == (facts["gain"] if won else -facts["gain"])


def _guandan_hands(giver_big_jokers: int) -> list[list[int]]:
    """A shuffled deal in which seat 3 holds ``giver_big_jokers`` big jokers."""
    cards = shuffled_deck(2, 5)
    hands = [cards[i * 27 : (i + 1) * 27] for i in range(4)]
    for seat in range(3):
        while BIG_JOKER in hands[seat]:
            hands[seat].remove(BIG_JOKER)
            hands[3].append(BIG_JOKER)
            swap = next(c for c in hands[3] if c != BIG_JOKER)
            hands[3].remove(swap)
            hands[seat].append(swap)
    while hands[3].count(BIG_JOKER) > giver_big_jokers:
        hands[3].remove(BIG_JOKER)
        swap = next(c for c in hands[0] if c != BIG_JOKER)
        hands[0].remove(swap)
        hands[0].append(BIG_JOKER)
        hands[3].append(swap)
    return hands


@pytest.mark.parametrize(("jokers", "kind"), [(2, "refused_single"), (0, "single")])
def test_guandan_single_tribute_paid_or_refused(jokers: int, kind: str) -> None:
    """GD-15: the last finisher (seat 3) holding both big jokers refuses the tribute."""
    game = make("guandan")
    setup = GuandanSetup(levels=(1, 0), level_team=0, previous_order=(0, 1, 2, 3))
    state = game.new_deal(setup, hands=_guandan_hands(jokers))
    facts = facts_of(game, state)
    assert facts["tribute"] == kind
    assert facts["receiver_team"] == 0
    summary = Summary("guandan")
    summary.add_facts(facts)
    assert summary[f"tribute/{kind}/deals"] == 1
    section = report(summary, VariantSpec("guandan"), game.options)["tribute"]
    assert section["refused"]["count"] == (1 if kind.startswith("refused") else 0)


# ------------------------------------------------------------------ Shengji


def test_shengji_kitty_multiplier_matches_the_last_bonus() -> None:
    """SJ-25: the multiplier read from the last trick's winning play times the kitty's
    points is the bonus the engine gave; no multiplier when the declarers won it."""
    game = make("shengji-2")
    seen = {"defenders": 0, "declarers": 0}
    for seed in range(40):
        state = game.new_deal(game.first_setup(), seed=seed)
        facts = facts_of(game, state, seed)
        if facts["defenders_won_last"]:
            multiplier = facts["kitty_multiplier"]
            assert multiplier in (2, 4, 8, 16, 32, 64)
            assert facts["last_bonus"] == facts["kitty_points"] * multiplier
            if facts["kitty_points"]:
                seen["defenders"] += 1
        else:
            assert facts["kitty_multiplier"] is None and facts["last_bonus"] == 0
            seen["declarers"] += 1
        assert facts["kitty_points"] == points_in(state._buried)
        if all(seen.values()):
            break
    assert all(seen.values()), seen


def test_shengji_four_decks_count_the_widest_set() -> None:
    game = make("shengji-4")
    state = game.new_deal(game.first_setup(), seed=3)
    facts = facts_of(game, state)
    assert facts["kitty_multiplier"] in (1, 2, 3, 4)
    summary = Summary("shengji-4")
    summary.add_facts(facts)
    kitty = report(summary, VariantSpec("shengji-4"), game.options)["kitty"]
    assert [b["multiplier"] for b in kitty["multipliers"]] == [facts["kitty_multiplier"]]


def test_shengji_dealer_team_is_the_declarers() -> None:
    game = make("shengji-1")
    state = game.new_deal(game.first_setup(), seed=8)
    outcome, _ = finish(state)
    facts = deal_facts("shengji-1", state, outcome)
    assert facts["dealer_team"] == outcome.details["declarer_team"]
    assert facts["winner_team"] == (
        1 - facts["dealer_team"] if outcome.details["take_over"] else facts["dealer_team"]
    )
    assert facts["points"] == outcome.details["defender_points"]


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2", "shengji-4"])
def test_shengji_failed_throws_and_room_points_per_deal(variant: str) -> None:
    """SJ-17: every failed throw is counted, the declarers' apart (none with 4 decks,
    which forbid throws); SJ-32: each declarer's room points are +1 per level gained
    plus 1 (at most 4), or -(2 + the defenders' levels) when they take over."""
    game = make(variant)
    seen = 0
    for seed in range(12):
        state = game.new_deal(game.first_setup(), seed=seed)
        outcome, _ = finish(state, seed)
        facts = deal_facts(variant, state, outcome)
        failed = [e for e in state.events if e.kind == "throw_failed"]
        declarers = outcome.details["declarer_team"]
        assert facts["failed_throws"] == len(failed)
        assert facts["declarers_failed_throws"] == sum(team_of(e.seat) == declarers for e in failed)
        seen += len(failed)
        gain = outcome.details["gain"]  # the first deal: levels from 2, never capped at A
        expected = -(2 + gain) if outcome.details["take_over"] else min(1 + gain, 4)
        assert facts["room_points"] == expected
    assert (seen == 0) == (variant == "shengji-4"), "random leads try throws that fail"


def test_guandan_double_down_is_the_winners_out_first_and_second() -> None:
    """GD-16: the partner of the first out second → +3 (双下 of the other team)."""
    game = make("guandan")
    kinds = set()
    for seed in range(12):
        state = game.new_deal(game.first_setup(), seed=seed)
        outcome, _ = finish(state, seed)
        facts = deal_facts("guandan", state, outcome)
        order = outcome.details["order"]
        assert facts["double_down"] == (team_of(order[0]) == team_of(order[1]))
        assert facts["double_down"] == (outcome.details["gain"] == 3)
        kinds.add(facts["double_down"])
    assert kinds == {True, False}


# ------------------------------------------------------------------ sanfu


def _sanfu_hands() -> list[list[int]]:
    order = shuffled_deck(3, 11)
    return [order[seat::4] for seat in range(4)]  # dealt one at a time from seat 0


def test_sanfu_same_receiver_rate_is_counted() -> None:
    """SF-3/SF-4: both turned cards to one player (indices 0 and 4 go to seat 0):
    nobody moves; cards to two players (0 and 1): counted apart."""
    game = make("sanfu")
    summary = Summary("sanfu")
    both = game.new_deal(game.first_setup(), hands=_sanfu_hands(), turned=[0, 4])
    facts = facts_of(game, both)
    assert facts["turned"] == 2 and facts["same_receiver"] and not facts["swapped"]
    assert facts["dealer_team"] == team_of(0)  # seat 0 received the first card and leads
    summary.add_facts(facts)
    apart = game.new_deal(game.first_setup(), hands=_sanfu_hands(), turned=[0, 1])
    facts = facts_of(game, apart)
    assert facts["turned"] == 2 and not facts["same_receiver"] and facts["swapped"]
    summary.add_facts(facts)
    assert summary["reveal/two_cards"] == 2 and summary["reveal/same_receiver"] == 1
    reveal = report(summary, VariantSpec("sanfu"), game.options)["reveal"]
    assert reveal["same_receiver"]["rate"] == 0.5
    assert reveal["same_receiver"]["low"] < 0.5 < reveal["same_receiver"]["high"]


def test_sanfu_one_card_reveal_after_a_sweep() -> None:
    """SF-5: consecutive deals reach a one-card reveal, counted with its receiver."""
    summary = play_balance_batch(BalanceJob(0, "sanfu", {}, 4, 24, 0))
    assert summary["reveal/one_card"] == summary["deals"] - summary["reveal/two_cards"]
    assert summary["reveal/one_card"] > 0
    assert summary["sweep"] > 0


# ------------------------------------------------------------------ summaries


def test_summary_merge_is_associative() -> None:
    a, b, c = (play_balance_batch(BalanceJob(0, "guandan", {}, seed, 4, 0)) for seed in (1, 2, 3))
    assert (a + b) + c == a + (b + c)
    assert a + b == b + a
    assert a + Summary("guandan") == a
    assert ((a + b) + c)["deals"] == 12
    with pytest.raises(ValueError, match="cannot merge"):
        _ = a + Summary("sanfu")


def test_a_batch_seats_the_bots_asked_each_with_its_own_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[str, int]] = []
    real = bots.make

    def record(name: str, seed: int = 0) -> Any:
        made.append((name, seed))
        return real(name, seed)

    monkeypatch.setattr(bots, "make", record)
    lineup = ("heuristic", "first", "heuristic", "random")
    (job,) = plan_jobs([VariantSpec("guandan")], deals=2, batch=2, seed=4, players=lineup)
    assert job.bots == lineup
    played = play_balance_batch(job)
    assert made == [(bot, derive_seed(job.seed, "bot", p)) for p, bot in enumerate(lineup)]
    assert played == play_balance_batch(job), "the same bots and seeds: the same deals"
    assert played != play_balance_batch(replace(job, bots=("random",) * 4))


def test_a_plan_needs_a_bot_for_each_player() -> None:
    with pytest.raises(ConfigError, match="a bot for each of the 4 players, not 3"):
        plan_jobs([VariantSpec("guandan")], deals=2, players=("random",) * 3)


def test_plan_interleaves_variants_on_the_same_seeds() -> None:
    specs = [VariantSpec("guandan"), VariantSpec("sanfu")]
    jobs = plan_jobs(specs, deals=250, batch=100, seed=3)
    assert [(j.variant, j.deals) for j in jobs] == [
        (0, 100),
        (1, 100),
        (0, 100),
        (1, 100),
        (0, 50),
        (1, 50),
    ]
    assert jobs[0].seed == jobs[1].seed != jobs[2].seed


def test_batches_are_deterministic_and_the_same_on_ray(ray_session: None) -> None:
    jobs = plan_jobs([VariantSpec("guandan")], deals=6, batch=3, seed=2)
    local = [summary for _, summary, _ in run_local(jobs)]
    assert local == [summary for _, summary, _ in run_local(jobs)]
    with Runner() as runner:
        remote = {job.index: summary for job, summary, _ in run_on_ray(jobs, runner)}
    assert [remote[job.index] for job in jobs] == local


# ------------------------------------------------------------------ the command


@pytest.fixture(autouse=True)
def in_a_folder_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run is stored: the default store lands in the test's own folder."""
    monkeypatch.chdir(tmp_path)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="arena")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["balance", *argv])


def test_each_variant_takes_the_options_after_it() -> None:
    args = parse(
        "--variant", "shengji-2", "--variant", "shengji-2", "--option", "constant_twos=true",
        "--variant", "shengji-2",
    )  # fmt: skip
    specs = variant_specs(args.balance_items)
    assert [(s.game, dict(s.options), s.name) for s in specs] == [
        ("shengji-2", {}, "shengji-2"),
        ("shengji-2", {"constant_twos": "true"}, "shengji-2 constant_twos=true"),
        ("shengji-2", {}, "shengji-2 (#2)"),
    ]


def test_sweeps_give_one_variant_per_value_and_per_combination() -> None:
    args = parse(
        "--variant", "shengji-2", "--option", "two_colour=true",
        "--sweep", "throw_penalty=0, 10", "--sweep", "constant_twos=false,true",
        "--variant", "guandan",
    )  # fmt: skip
    specs = variant_specs(args.balance_items)
    assert [s.name for s in specs] == [
        "shengji-2 two_colour=true throw_penalty=0 constant_twos=false",
        "shengji-2 two_colour=true throw_penalty=0 constant_twos=true",
        "shengji-2 two_colour=true throw_penalty=10 constant_twos=false",
        "shengji-2 two_colour=true throw_penalty=10 constant_twos=true",
        "guandan",
    ]
    assert dict(specs[2].options) == {
        "two_colour": "true",
        "throw_penalty": 10,
        "constant_twos": "false",
    }


def test_a_sweep_reports_a_row_per_value(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "3", "--bots", "random", "--json", str(out)]
    assert run_balance(parse(*argv, "--variant", "sanfu", "--sweep", "deals=4,8,12")) == 0
    data = json.loads(out.read_text())
    assert [v["name"] for v in data["variants"]] == [
        "sanfu deals=4",
        "sanfu deals=8",
        "sanfu deals=12",
    ]
    assert [v["options"]["deals"] for v in data["variants"]] == [4, 8, 12]
    assert {d["variant"] for d in data["differences"]} == {"sanfu deals=8", "sanfu deals=12"}


VARIANTS = ["guandan", "shengji-2", "shengji-2 constant_twos=true", "sanfu"]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("balance")
    args = parse(
        "--local", "--deals", "40", "--batch", "20", "--seed", "5",
        "--variant", "guandan", "--variant", "shengji-2",
        "--variant", "shengji-2", "--option", "constant_twos=true", "--variant", "sanfu",
        "--json", str(out / "b.json"), "--html", str(out / "b.html"),
        "--db", str(out / "runs.sqlite"),
    )  # fmt: skip
    code = run_balance(args)
    return {
        "code": code,
        "json": json.loads((out / "b.json").read_text()),
        "html": (out / "b.html").read_text(encoding="utf-8"),
    }


def _intervals(node: Any) -> list[dict[str, Any]]:
    """Every rate or mean in a report."""
    found = []
    if isinstance(node, dict):
        if "rate" in node or "mean" in node:
            found.append(node)
        for value in node.values():
            found += _intervals(value)
    elif isinstance(node, list):
        for value in node:
            found += _intervals(value)
    return found


def test_json_has_every_section_with_intervals(outputs: dict[str, Any]) -> None:
    assert outputs["code"] == 0
    data = outputs["json"]
    assert data["bots"] == ["heuristic"] * 4  # the default
    assert data["complete"] and data["deals_per_variant"] == 40
    assert [v["name"] for v in data["variants"]] == VARIANTS
    own = {"guandan": "tribute", "shengji-2": "kitty", "sanfu": "reveal"}
    for variant in data["variants"]:
        assert variant["deals"] == 40
        sections = {"dealer_team", "seats", "level_changes", "gain", "length", own[variant["game"]]}
        if variant["game"] != "guandan":
            sections.add("points")
        assert sections <= set(variant)
        assert len(variant["seats"]) == 4
        assert sum(b["count"] for b in variant["level_changes"]["buckets"]) == 40
        for section in sections:
            assert _intervals(variant[section]), section
        for cell in _intervals(variant):
            middle = cell.get("rate", cell.get("mean"))
            if middle is not None:
                assert cell["low"] <= middle <= cell["high"]
    assert data["variants"][2]["options"]["constant_twos"] is True


def test_the_run_is_estimated_before_it_starts(
    outputs: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    estimate = outputs["json"]["estimate"]
    assert len(estimate["seconds_per_deal"]) == len(VARIANTS)
    assert all(seconds > 0 for seconds in estimate["seconds_per_deal"])
    assert estimate["workers"] == 1  # --local
    assert estimate["seconds"] == pytest.approx(sum(estimate["seconds_per_deal"]) * 40)
    assert run_balance(parse("--local", "--deals", "2", "--variant", "guandan")) == 0
    assert "estimate: about " in capsys.readouterr().err


def test_the_json_follows_its_documented_schema(outputs: dict[str, Any]) -> None:
    schema = json.loads((Path(__file__).parents[1] / "docs/balance-report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(outputs["json"], schema)
    broken = {**outputs["json"], "bots": ["random"] * 3}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_html_embeds_plots_and_names_the_variants(outputs: dict[str, Any]) -> None:
    page = outputs["html"]
    assert page.count('<svg class="interval-dots"') >= 3  # rows shared across the games
    assert "<rect" not in page, "dots with intervals, no bars from zero"
    assert f"<th>{VARIANTS[0]} (baseline)</th>" in page
    for name in VARIANTS[1:]:
        assert f"<th>{name} − baseline</th>" in page
    assert "Holm" in page


def test_text_report_compares_the_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_balance(
        parse("--local", "--deals", "3", "--variant", "guandan", "--variant", "sanfu")
    )
    out = capsys.readouterr().out
    assert code == 0
    header = next(line for line in out.splitlines() if "guandan" in line and "sanfu" in line)
    assert header.split() == ["guandan", "(baseline)", "sanfu", "−", "baseline"]
    assert "dealer's team" in out and "Guandan: tribute" in out and "sanfu: partner" in out
    assert re.search(r"^played 6 deals in [0-9.]+ s: [0-9,]+ deals/s on 1 worker, busy", out, re.M)


def test_bots_per_team_are_named_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "2", "--variant", "sanfu", "--json", str(out), "--html"]
    code = run_balance(parse(*argv, str(tmp_path / "b.html"), "--bots", "heuristic, random"))
    assert code == 0
    assert json.loads(out.read_text())["bots"] == ["heuristic", "random"] * 2
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("balance: heuristic (players 0 and 2) against random (1 and 3), ")
    assert "Bots: heuristic (players 0 and 2) against random (1 and 3);" in (
        tmp_path / "b.html"
    ).read_text(encoding="utf-8")


def test_variants_are_shown_as_differences_from_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two decks make a deal last about twice as many decisions as one: found, in that
    direction; the baseline again differs by nothing (the same shuffles and bots)."""
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "60", "--bots", "random", "--json", str(out)]
    variants = ["--variant", "shengji-1", "--variant", "shengji-2", "--variant", "shengji-1"]
    assert run_balance(parse(*argv, *variants)) == 0
    text = capsys.readouterr().out
    assert "shengji-1 (baseline)" in text and "shengji-2 − baseline" in text
    assert "family-wise error rate" in text
    data = json.loads(out.read_text())
    found = {(d["variant"], d["row"]): d for d in data["differences"]}
    longer = found[("shengji-2", "means.length")]
    assert longer["significant"] and longer["low"] > 30 and longer["baseline"] == "shengji-1"
    again = [d for d in data["differences"] if d["variant"] == "shengji-1 (#2)"]
    assert again and all(d["diff"] == 0 and not d["significant"] for d in again)
    length_line = next(line for line in text.splitlines() if "decisions per deal" in line)
    assert "] *" in length_line  # shengji-2's cell is marked significant


def test_the_recorded_command_plays_the_same_figures_again(tmp_path: Path) -> None:
    first, again = tmp_path / "first.json", tmp_path / "again.json"
    argv = ["--local", "--deals", "4", "--batch", "2", "--seed", "9", "--bots", "heuristic,random"]
    variants = ["--variant", "sanfu", "--sweep", "deals=4,8", "--variant", "guandan"]
    assert run_balance(parse(*argv, *variants, "--json", str(first))) == 0
    data = json.loads(first.read_text())
    words = shlex.split(data["command"])
    assert words[:2] == ["arena", "balance"] and "--bots" in words and "--local" in words
    assert run_balance(parse(*words[2:], "--json", str(again))) == 0
    repeated = json.loads(again.read_text())
    assert repeated["variants"] == data["variants"] and repeated["command"] == data["command"]
    assert data["versions"]["arena"] == arena.__version__
    assert {"python", "engines"} <= set(data["versions"])


def test_until_resolved_stops_once_a_known_effect_is_significant_in_its_direction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A penalty for failed throws costs random-bot dealers' teams deals (they lead and
    throw most); decisions per deal are the same deals' (the same shuffles and choices),
    answered at once within the margin."""
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "3000", "--batch", "100", "--bots", "random"]
    variants = ["--variant", "shengji-1", "--variant", "shengji-1", "--option", "throw_penalty=20"]
    asked = ["--until-resolved", "--ask", "wins.dealer_team", "--ask", "means.length"]
    assert run_balance(parse(*argv, *variants, *asked, "--margin", "3", "--json", str(out))) == 0
    data = json.loads(out.read_text())
    until = data["until_resolved"]
    assert until["stopped"] == "resolved" and until["rounds"] == 30
    played = data["variants"][0]["deals"]
    assert played < 3000 and played % 100 == 0, "stopped early, after whole rounds"
    found = {q["row"]: q for q in until["questions"]}
    assert found["wins.dealer_team"]["status"] == "significant"
    assert found["wins.dealer_team"]["high"] < 0, "the dealer's team wins less"
    assert found["means.length"]["status"] == "within margin"
    assert [q["level"] for q in until["questions"]] == pytest.approx([0.05 / 30] * 2)
    text = capsys.readouterr().out
    assert (
        f"until resolved: stopped after {played} of 3,000 deals per variant: every question" in text
    )
    assert "--until-resolved" in data["command"]
    schema = json.loads((Path(__file__).parents[1] / "docs/balance-report.schema.json").read_text())
    jsonschema.validate(data, schema)


def test_until_resolved_stops_at_the_most_deals_with_questions_open(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "40", "--batch", "20", "--bots", "random", "--json", str(out)]
    variants = ["--variant", "guandan", "--variant", "guandan", "--option", "a_fail_limit=3"]
    assert run_balance(parse(*argv, *variants, "--until-resolved", "--margin", "0.1")) == 0
    until = json.loads(out.read_text())["until_resolved"]
    assert until["stopped"] == "maximum"
    assert [q["status"] for q in until["questions"]] == ["open"]


def test_a_report_of_one_game_speaks_only_of_that_game(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    argv = ["--local", "--deals", "3", "--bots", "random", "--json", str(out)]
    assert run_balance(parse(*argv, "--variant", "shengji-2", "--variant", "shengji-3")) == 0
    labels = [
        label.text
        for title, rows in comparison(json.loads(out.read_text()))
        for label in [title, *(label for label, _, _ in rows)]
    ]
    words = " ".join(labels)
    assert "sanfu" not in words and "Guandan" not in words and "stake" not in words
    assert "Level change, share of deals" in labels and "defenders' points" in labels
    assert [label for label in labels if label.startswith("seats")] == [
        "seats 0 and 2",
        "seats 1 and 3",
    ], "a team's win rate once, not once per seat"


def test_a_figure_per_question_of_the_differences_from_the_baseline(
    outputs: dict[str, Any],
) -> None:
    data = outputs["json"]
    drawn = figures(data, str)
    sections = [title for title, _ in comparison(data)]
    means = [
        (title, label)
        for title, rows in comparison(data)
        for label, _, kind in rows
        if kind == "mean"
    ]
    rate_titles = [f.title for f in drawn if "percentage points" in f.axis]
    mean_titles = [f.title for f in drawn if "percentage points" not in f.axis]
    assert rate_titles == [t.text for t in sections if t.text in rate_titles]  # in order, once
    assert len(mean_titles) <= len(means)
    names = [v["name"] for v in data["variants"]]
    compared = {(d["variant"], d["row_text"]): d for d in data["differences"]}
    for figure in drawn:
        assert figure.zero and figure.series == names[1:]
        for dot in figure.dots:
            difference = compared[(names[1 + dot.series], dot.label)]
            assert dot.marked == difference["significant"]
            scale = 100 if "percentage points" in figure.axis else 1
            assert dot.value == pytest.approx(scale * difference["diff"])


def test_one_variant_is_drawn_as_its_own_figures() -> None:
    summary = play_balance_batch(BalanceJob(0, "sanfu", {}, 1, 4, 0))
    variant = balance.report(summary, VariantSpec("sanfu"), {})
    drawn = figures({"variants": [variant]}, str)
    assert drawn and not any(f.zero for f in drawn)
    win = next(f for f in drawn if f.title == "Win rate of the deal")
    labels = [d.label for d in win.dots]
    assert labels == ["dealer's team (see notes)", "seats 0 and 2", "seats 1 and 3"]
    assert win.dots[1].value == pytest.approx(100 * variant["seats"][0]["rate"])


@pytest.mark.parametrize(
    ("players", "text"),
    [
        ("random", "random bots"),
        (["first"] * 4, "first bots"),
        (["heuristic", "random"] * 2, "heuristic (players 0 and 2) against random (1 and 3)"),
        (
            ["heuristic", "random", "first", "random"],
            "player 0: heuristic, player 1: random, player 2: first, player 3: random",
        ),
    ],
)
def test_the_lineup_in_words(players: str | list[str], text: str) -> None:
    assert lineup_label(players).text == text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "guandan", "--bots", "nobot"], "unknown bot 'nobot'"),
        (
            [
                "--variant",
                "guandan",
                "--variant",
                "sanfu",
                "--until-resolved",
                "--ask",
                "kitty.bonus",
            ],
            "--ask kitty.bonus: no such row; rows that can be asked: wins.dealer_team",
        ),
        (["--variant", "guandan", "--bots", "random,random,random"], "name one bot for every"),
        (["--variant", "guandan", "--bots", "random,,first"], "--bots: must be comma-separated"),
        (["--variant", "guandan", "--bots", "search:depth=3"], "search"),
        (["--variant", "shengji-2", "--option", "constant_twos=maybe"], "constant_twos"),
        (["--variant", "guandan", "--option", "colour=red"], "unknown option"),
        (["--option", "a_fail_limit=3", "--variant", "guandan"], "before any --variant"),
        (["--sweep", "a_fail_limit=1,2", "--variant", "guandan"], "--sweep a_fail_limit=1,2 comes"),
        (["--variant", "guandan", "--sweep", "a_fail_limit"], "not KEY=VALUE,VALUE"),
        (["--variant", "guandan", "--sweep", "a_fail_limit=1,,2"], "not KEY=VALUE,VALUE"),
        (["--variant", "guandan", "--sweep", "=1,2"], "not KEY=VALUE,VALUE"),
        (["--variant", "guandan", "--sweep", "a_fail_limit=1,2,1"], "1 given twice"),
        (["--variant", "guandan", "--sweep", "a_fail_limit=1,x"], "a_fail_limit must be"),
        (
            ["--variant", "sanfu", "--option", "deals=4", "--sweep", "deals=8,12"],
            "option deals given twice",
        ),
        (["--variant", "guandan", "--option", "a_fail_limit"], "not KEY=VALUE"),
        (["--variant", "poker"], "unknown game"),
        ([], "at least one variant"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_balance(parse("--local", *argv))
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("arena: ") and message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "0"], "argument --deals: must be an integer from 1 to 1,000,000,000"),
        (["--margin", "0"], "argument --margin: must be"),
        (["--batch", "-1"], "argument --batch: must be an integer from 1"),
        (["--seed", "1e400"], "argument --seed: must be an integer from 0"),
        (["--json", "/no/such/dir/b.json"], "argument --json: no such directory: '/no/such/dir'"),
    ],
)
def test_bad_arguments_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as refused:
        parse("--local", "--variant", "guandan", *argv)
    assert refused.value.code == 2
    assert message in capsys.readouterr().err.splitlines()[-1]


def test_an_interrupt_reports_what_finished(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = balance.play_balance_batch
    played: list[int] = []

    def stop_at_the_second(job: BalanceJob, on_deal: Any = None) -> Summary:
        if played:
            raise KeyboardInterrupt
        played.append(job.index)
        return real(job, on_deal)

    monkeypatch.setattr(balance, "play_balance_batch", stop_at_the_second)
    out = tmp_path / "b.json"
    code = run_balance(
        parse("--local", "--deals", "6", "--batch", "3", "--variant", "guandan", "--json", str(out))
    )
    assert code == 130
    assert "interrupted" in capsys.readouterr().err
    data = json.loads(out.read_text())
    assert not data["complete"] and data["variants"][0]["deals"] == 3


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, batches: int) -> list[tuple[int, int]]:
    """Play ``batches`` batches, then interrupt the run (as Ctrl-C would): the list of
    the (variant, batch) pairs played, as they were played."""
    real = balance.play_balance_batch
    played: list[tuple[int, int]] = []

    def interrupting(job: BalanceJob, on_deal: Any = None) -> Summary:
        if len(played) == batches:
            raise KeyboardInterrupt
        played.append((job.variant, job.index))
        return real(job, on_deal)

    monkeypatch.setattr(balance, "play_balance_batch", interrupting)
    return played


PLAY = balance.play_balance_batch
RESUMED = ["--local", "--deals", "12", "--batch", "3", "--bots", "random", "--seed", "4"]
RESUMED_VARIANTS = ["--variant", "guandan", "--variant", "guandan", "--option", "a_fail_limit=2"]


def test_an_interrupted_run_resumes_where_it_stopped_with_the_figures_of_one_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.json"
    argv = [*RESUMED, *RESUMED_VARIANTS]
    assert run_balance(parse(*argv, "--db", "whole.sqlite", "--json", str(whole))) == 0
    played = _interrupt_after(monkeypatch, 3)
    assert run_balance(parse(*argv, "--json", "cut.json")) == 130
    cut = json.loads(Path("cut.json").read_text())
    assert [v["deals"] for v in cut["variants"]] == [6, 3] and not cut["complete"]
    err = capsys.readouterr().err
    name = err.split("--resume ")[1].split()[0]
    with Store.open("arena.sqlite") as store:
        run = store.balance_run(name)
        assert run is not None and run.status == "interrupted" and run.batches == 3
        assert run.report is not None and run.report["variants"] == cut["variants"]
    played.clear()
    monkeypatch.setattr(
        balance,
        "play_balance_batch",
        lambda job, on_deal=None: played.append((job.variant, job.index)) or PLAY(job, on_deal),
    )
    assert run_balance(parse(*argv, "--json", "again.json")) == 0  # the same command
    assert "3 of 8 batches stored already" in capsys.readouterr().err
    assert sorted(played) == [(0, 2), (0, 3), (1, 1), (1, 2), (1, 3)], "only what was missing"
    again, expected = json.loads(Path("again.json").read_text()), json.loads(whole.read_text())
    assert again["variants"] == expected["variants"] and again["complete"]
    assert again["differences"] == expected["differences"]
    with Store.open("arena.sqlite") as store:
        run = store.balance_run(name)
        assert run is not None and run.status == "finished" and run.batches == 8
        assert run.deals == 24


def test_resume_by_name_takes_the_stored_definition(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # throw_penalty comes into play in random bots' deals (SJ-17): the run is not stopped
    # for an option never used
    penalty = ["--variant", "shengji-1", "--variant", "shengji-1", "--option", "throw_penalty=20"]
    argv = [*RESUMED, "--until-resolved", "--margin", "50", *penalty]
    _interrupt_after(monkeypatch, 1)
    assert run_balance(parse(*argv, "--name", "tribute-limit")) == 130
    monkeypatch.setattr(balance, "play_balance_batch", PLAY)
    assert run_balance(parse("--resume", "tribute-limit", "--local", "--json", "r.json")) == 0
    data = json.loads(Path("r.json").read_text())
    assert data["until_resolved"]["stopped"] == "resolved"
    assert run_balance(parse(*argv, "--db", "whole.sqlite", "--json", "whole.json")) == 0
    whole = json.loads(Path("whole.json").read_text())
    assert data["variants"] == whole["variants"]
    assert data["until_resolved"] == whole["until_resolved"]
    deals = sum(v["deals"] for v in data["variants"])
    assert deals < 24, "stopped early"
    assert "--until-resolved" in data["command"] and "throw_penalty=20" in data["command"]
    capsys.readouterr()
    assert run_balance(parse("--list")) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("tribute-limit  finished") and f"{deals} of 24 deals" in listed
    assert run_balance(parse("--open", "tribute-limit", "--json", "o.json")) == 0
    assert json.loads(Path("o.json").read_text()) == data


def test_a_stored_name_with_another_definition_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_balance(parse(*RESUMED, "--variant", "sanfu", "--name", "mine")) == 0
    capsys.readouterr()
    assert run_balance(parse(*RESUMED, "--variant", "guandan", "--name", "mine")) == 2
    assert "balance run 'mine' exists with another definition" in capsys.readouterr().err
    assert run_balance(parse("--resume", "mine", "--variant", "sanfu")) == 2
    assert "give no --variant with it" in capsys.readouterr().err
    assert run_balance(parse("--open", "nothing")) == 2
    assert "no balance run 'nothing'" in capsys.readouterr().err
    assert run_balance(parse("--open", "mine", "--variant", "sanfu")) == 2
    assert "--open mine shows stored runs: give no --variant with it" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("per_deal", "deals", "variants", "workers", "until", "size"),
    [
        ([0.012, 0.014], 10_000, 2, 2, False, 500),  # heuristic bots: about 7 s a batch
        ([0.012], 200, 1, 8, False, 10),  # two batches for each of 8 workers
        ([0.012], 200, 1, 8, True, 20),  # a batch per variant at a time: ten looks
        ([0.012], 10_000, 2, 8, True, 500),
        ([0.001], 30, 2, 1, False, 30),  # never more than the deals
        ([0.003, 4.6], 10_000, 2, 2, False, 10),  # search bots: the slowest variant decides
        ([0.09], 10_000, 1, 2, False, 100),
    ],
)
def test_batches_are_sized_for_the_bots_speed(
    per_deal: list[float], deals: int, variants: int, workers: int, until: bool, size: int
) -> None:
    args = argparse.Namespace(until_resolved=until)
    assert balance_command.sized_batch(per_deal, deals, variants, workers, args) == size


def test_a_sized_batch_is_kept_by_the_run_and_its_resumption(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ["--local", "--deals", "40", "--bots", "random", "--variant", "sanfu"]
    monkeypatch.setattr(balance_command, "probe_seconds", lambda *_: [0.09])  # 100 deals
    _interrupt_after(monkeypatch, 1)
    assert run_balance(parse(*argv, "--json", "cut.json")) == 130
    cut = json.loads(Path("cut.json").read_text())
    assert cut["batch"] == 20 and "--batch 20" in cut["command"], "two batches per worker"
    monkeypatch.setattr(balance, "play_balance_batch", PLAY)
    monkeypatch.setattr(balance_command, "probe_seconds", lambda *_: [9.0])  # would be 10
    assert run_balance(parse(*argv, "--json", "again.json")) == 0
    again = json.loads(Path("again.json").read_text())
    assert again["batch"] == 20 and again["variants"][0]["deals"] == 40
    assert again["speed"]["deals"] == 20, "this session played the second batch"
    assert again["speed"]["workers"] == 1 and 0 < again["speed"]["busy"] <= 1.0


def test_a_mean_of_one_value_has_no_interval_rather_than_a_zero_width_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = balance.mean_interval(7, 49, 1)
    assert one["mean"] == 7 and one["low"] is None and one["high"] is None
    assert format_cell(one, "mean") == "7.00 [one value: no interval]"
    report = tmp_path / "one.html"
    code = run_balance(
        parse("--local", "--deals", "1", "--variant", "guandan", "--html", str(report))
    )
    out = capsys.readouterr().out
    assert code == 0 and "[one value: no interval]" in out
    assert report.read_text(encoding="utf-8").count('<svg class="interval-dots"') >= 1
