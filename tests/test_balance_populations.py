"""Balance runs of several populations (``--bots`` more than once): each population a
stored run of its own, and a verdict per difference: it holds in every population, it
depends on the style, it shows in none, or its options were not exercised."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.commands.arguments import ArenaParser
from arena.commands.balance import add_parser, run_balance
from arena.sim import balance
from arena.sim.balance import BalanceJob, Summary
from arena.sim.populations import style_rows, verdict
from arena.store import Store

CAUTIOUS, BOLD = "heuristic:risk=0", "heuristic:risk=1"
POPULATIONS = ["--bots", CAUTIOUS, "--bots", BOLD]
SWEEP = ["--variant", "sanfu", "--sweep", "deals=8,9"]
RUN = ["--local", "--deals", "60", "--batch", "30", "--seed", "3", *SWEEP]
SCHEMA = json.loads((Path(__file__).parents[1] / "docs/balance-report.schema.json").read_text())
PLAY = balance.play_balance_batch

PLANTED = {  # (population, the key of a sum) -> its shift per deal in variant deals=9
    (CAUTIOUS, "decisions"): 40,  # only the cautious bots' deals get longer: depends
    (CAUTIOUS, "points"): 60,  # both populations' winners score more: holds
    (BOLD, "points"): 60,
    (CAUTIOUS, "gain"): 2,  # the stake moves one way for one, the other way for the other
    (BOLD, "gain"): -2,
}
"""The planted effects: every other figure is the same in both variants (both play the
baseline's deals), so no other difference shows anywhere."""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    yield


def parse(*argv: str) -> argparse.Namespace:
    parser = ArenaParser(prog="arena")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["balance", *argv])


def shifted(summary: Summary, key: str, shift: int) -> None:
    """Every value of the sum ``key`` in ``summary`` moved by ``shift`` (its sum of
    squares kept consistent)."""
    n = summary["points_n" if key == "points" else "scored" if key == "gain" else "deals"]
    total = summary[key]
    summary.add(key, shift * n)
    summary.add(f"{key}_sq", 2 * shift * total + shift * shift * n)


def planted(played: list[tuple[str, int, int]] | None = None) -> Callable[..., Summary]:
    """A batch player that plays every variant as the baseline (``deals=8``) and plants
    :data:`PLANTED` in variant ``deals=9``; each batch played is noted in ``played``."""

    def play(job: BalanceJob, on_deal: Any = None) -> Summary:
        if played is not None:
            played.append((job.bots[0], job.variant, job.index))
        summary = PLAY(replace(job, options={**job.options, "deals": 8}), on_deal)
        if job.options["deals"] == 9:
            for (population, key), shift in PLANTED.items():
                if job.bots[0] == population:
                    shifted(summary, key, shift)
        return summary

    return play


def verdicts(data: dict[str, Any]) -> dict[str, str]:
    return {row["row_text"]: row["verdict"] for row in data["style"]}


@pytest.fixture(scope="module")
def two_populations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("populations")
    files = ["--json", str(out / "b.json"), "--html", str(out / "b.html")]
    text = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(text):
        patch.setattr(balance, "play_balance_batch", planted())
        code = run_balance(parse(*RUN, *POPULATIONS, *files, "--db", str(out / "runs.sqlite")))
    assert code == 0
    return {
        "json": json.loads((out / "b.json").read_text()),
        "html": (out / "b.html").read_text(),
        "text": text.getvalue(),
    }


def test_an_effect_of_one_style_depends_on_the_style_and_one_of_both_holds(
    two_populations: dict[str, Any],
) -> None:
    data = two_populations["json"]
    found = verdicts(data)
    assert found["decisions per deal"] == "depends"  # significant in one population only
    assert found["winners' points"] == "holds"  # in both, the same way
    assert found["stake won"] == "depends"  # in both, opposite ways
    others = {row: v for row, v in found.items() if row not in {"decisions per deal",
              "winners' points", "stake won"}}  # fmt: skip
    assert others and set(others.values()) == {"none"}, "nothing else was planted"
    rows = {row["row_text"]: row for row in data["style"]}
    decisions = rows["decisions per deal"]["populations"]
    assert [cell["population"] for cell in decisions] == [CAUTIOUS, BOLD]
    assert decisions[0]["significant"] and decisions[0]["diff"] == pytest.approx(40)
    assert not decisions[1]["significant"] and decisions[1]["diff"] == 0
    assert rows["decisions per deal"]["differs"] and not rows["winners' points"]["differs"]
    text = two_populations["text"]
    assert "Across populations (heuristic:risk=0, heuristic:risk=1)" in text
    line = next(line for line in text.splitlines() if line.startswith("  decisions per deal")
                and "depends" in line)  # fmt: skip
    assert "+40.00" in line and "+0.00" in line and line.rstrip().endswith("effects differ")
    assert "holds in every population" in text and "in no population" in text
    assert text.count("population 1 of 2") == 1 and "population 2 of 2" in text


def test_each_population_is_reported_whole_and_the_json_follows_its_schema(
    two_populations: dict[str, Any],
) -> None:
    data = two_populations["json"]
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA)
    assert data["population_names"] == [CAUTIOUS, BOLD] and data["complete"]
    assert [p["bots"] for p in data["populations"]] == [[CAUTIOUS] * 4, [BOLD] * 4]
    for population in data["populations"]:
        jsonschema.validate(population, SCHEMA)
        assert "--bots" in population["command"] and "populations" not in population
    assert data["command"].count("--bots") == 2
    test = data["style_test"]
    measured = sum(
        1 for row in data["style"] for cell in row["populations"] if cell["diff"] is not None
    )
    assert test["procedure"] == "holm" and test["differences"] == measured
    broken = {**data, "style": [{"verdict": "maybe"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA)
    html = two_populations["html"]
    assert "<h2>Across populations</h2>" in html and html.count("<svg") >= 3
    assert 'id="population-1"' in html and 'id="population-2"' in html
    assert html.count("<html") == 1 and html.count("</body>") == 1


def test_the_populations_resume_each_where_it_stopped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Interrupted in the second population: the first is stored finished, the second
    plays only its missing batches, and the figures are those of a run never stopped."""
    monkeypatch.setattr(balance, "play_balance_batch", planted())
    assert run_balance(parse(*RUN, *POPULATIONS, "--db", "whole.sqlite", "--json", "w.json")) == 0
    played: list[tuple[str, int, int]] = []
    play = planted(played)

    def interrupting(job: BalanceJob, on_deal: Any = None) -> Summary:
        if len(played) == 5:  # the first population's 4 batches and one of the second's
            raise KeyboardInterrupt
        return play(job, on_deal)

    monkeypatch.setattr(balance, "play_balance_batch", interrupting)
    assert run_balance(parse(*RUN, *POPULATIONS, "--json", "cut.json")) == 130
    cut = json.loads(Path("cut.json").read_text())
    assert not cut["complete"] and [p["complete"] for p in cut["populations"]] == [True, False]
    with Store.open("arena.sqlite") as store:
        runs = {run.definition["bots"][0]: run for run in store.balance_runs()}
    assert runs[CAUTIOUS].status == "finished" and runs[BOLD].status == "interrupted"
    assert runs[BOLD].batches == 1
    played.clear()
    capsys.readouterr()
    monkeypatch.setattr(balance, "play_balance_batch", play)
    assert run_balance(parse(*RUN, *POPULATIONS, "--json", "again.json")) == 0
    err = capsys.readouterr().err
    assert "is finished: its stored report" in err and "1 of 4 batches stored already" in err
    assert len(played) == 3 and {bot for bot, _, _ in played} == {BOLD}, "only what was missing"
    again, whole = (
        json.loads(Path("again.json").read_text()),
        json.loads(Path("w.json").read_text()),
    )
    assert again["style"] == whole["style"] and again["complete"]
    assert [p["variants"] for p in again["populations"]] == [
        p["variants"] for p in whole["populations"]
    ]


def test_a_population_that_never_brings_the_option_into_play_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bold population's deals never reach a match's end (SF-17, the rule the swept
    ``deals`` option changes): its differences measure nothing of the option and are
    reported as not exercised there, while the cautious population's effect holds."""
    play = planted()

    def never_ending(job: BalanceJob, on_deal: Any = None) -> Summary:
        summary = play(job, on_deal)
        if job.bots[0] == BOLD:
            summary.counts.pop("rules/SF-17", None)
        return summary

    monkeypatch.setattr(balance, "play_balance_batch", never_ending)
    assert run_balance(parse(*RUN, *POPULATIONS, "--json", "b.json")) == 0
    data = json.loads(Path("b.json").read_text())
    rows = {row["row_text"]: row for row in data["style"]}
    points = rows["winners' points"]
    assert points["verdict"] == "holds" and points["not_exercised"] == [BOLD]
    assert points["verdict_text"] == (
        f"holds where exercised (1 of 2 populations); not exercised in {BOLD}"
    )
    assert [cell["exercised"] for cell in points["populations"]] == [True, False]
    assert rows["decisions per deal"]["verdict"] == "holds", "the bold population is left out"
    assert data["style_test"]["differences"] == len(rows), "one population's differences"
    line = next(line for line in capsys.readouterr().out.splitlines() if "winners' points" in
                line and "exercised" in line)  # fmt: skip
    assert "not exercised" in line


def test_an_interrupt_in_the_first_population_compares_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played: list[tuple[str, int, int]] = []
    play = planted(played)

    def interrupting(job: BalanceJob, on_deal: Any = None) -> Summary:
        if len(played) == 1:
            raise KeyboardInterrupt
        return play(job, on_deal)

    monkeypatch.setattr(balance, "play_balance_batch", interrupting)
    assert run_balance(parse(*RUN, *POPULATIONS, "--json", "cut.json")) == 130
    cut = json.loads(Path("cut.json").read_text())
    assert cut["style"] == [] and cut["population_names"] == [CAUTIOUS] and not cut["complete"]
    jsonschema.validate(cut, SCHEMA)
    out, err = capsys.readouterr()
    assert "interrupted in the first population, nothing to compare" in out
    assert "interrupted in population 1 of 2: the same command again plays" in err


def test_one_population_is_a_run_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """One --bots writes the report of one run (no populations), stored under the name
    the same command always gave (so runs stored before resume)."""
    monkeypatch.setattr(balance, "play_balance_batch", planted())
    assert run_balance(parse(*RUN, "--bots", CAUTIOUS, "--json", "one.json")) == 0
    one = json.loads(Path("one.json").read_text())
    assert "populations" not in one and one["bots"] == [CAUTIOUS] * 4
    jsonschema.validate(one, SCHEMA)
    assert run_balance(parse(*RUN, *POPULATIONS, "--json", "two.json")) == 0
    two = json.loads(Path("two.json").read_text())
    assert two["populations"][0]["variants"] == one["variants"]
    with Store.open("arena.sqlite") as store:
        assert len(store.balance_runs()) == 2, "the first population's run was the same run"


def test_named_populations_are_stored_as_name_dot_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(balance, "play_balance_batch", planted())
    argv = [*RUN, "--deals", "10", "--batch", "10", *POPULATIONS, "--name", "risk"]
    assert run_balance(parse(*argv)) == 0
    with Store.open("arena.sqlite") as store:
        assert sorted(run.id for run in store.balance_runs()) == ["risk.1", "risk.2"]
    assert run_balance(parse("--resume", "risk.2", "--local", "--json", "r.json")) == 0
    assert json.loads(Path("r.json").read_text())["bots"] == [BOLD] * 4
    assert run_balance(parse("--resume", "risk", "--local", "--json", "both.json")) == 0
    both = json.loads(Path("both.json").read_text())
    assert both["population_names"] == [CAUTIOUS, BOLD]
    assert run_balance(parse("--open", "risk", "--json", "open.json")) == 0
    opened = json.loads(Path("open.json").read_text())
    assert opened["style"] == both["style"] and opened["command"] == both["command"]
    assert "--name risk" not in opened["command"] and opened["command"].count("--bots") == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "random", "--bots", "random,random"], "--bots random,random: the same players"),
        (["--bots", "random", "--bots", "nobot"], "unknown bot 'nobot'"),
    ],
)
def test_bad_populations_are_refused_before_any_is_played(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_balance(parse("--local", "--deals", "2", *SWEEP, *argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    if Path("arena.sqlite").exists():
        with Store.open("arena.sqlite") as store:
            assert not store.balance_runs(), "nothing played"


# ------------------------------------------------------------------ verdicts alone


def record(variant: str, diff: float, p: float, **more: Any) -> dict[str, Any]:
    return {
        "section": "section.means", "section_text": "Means", "row": "means.length",
        "row_text": "decisions per deal", "kind": "mean", "baseline": "base",
        "variant": variant, "diff": diff, "low": diff - 1, "high": diff + 1, "p": p,
        "significant": p < 0.05, **more,
    }  # fmt: skip


def test_a_population_where_the_options_never_came_into_play_is_named_not_measured() -> None:
    unused = {"not_exercised": ["throw_penalty"], "significant": False}
    reports = [
        {"differences": [record("v", 5.0, 1e-9)]},
        {"differences": [record("v", 0.0, 1.0, **unused)]},
    ]
    [row] = style_rows(reports, ["bold", "cautious"])
    assert row["verdict"] == "holds" and row["not_exercised"] == ["cautious"]
    assert (
        row["verdict_text"]
        == "holds where exercised (1 of 2 populations); not exercised in cautious"
    )
    assert not row["populations"][1]["exercised"] and row["differs_p"] is None
    [never] = style_rows([{"differences": [record("v", 0.0, 1.0, **unused)]}] * 2, ["a", "b"])
    assert never["verdict"] == "not_exercised"
    assert never["verdict_text"] == "not exercised in any population"


def test_significance_is_corrected_over_every_population_together() -> None:
    """p = 0.02 is significant in a report of its own, not among 4 differences: Holm
    over rows × populations."""
    reports = [{"differences": [record("v", 1.0, 0.02), record("w", 0.0, 1.0)]}] * 2
    rows = style_rows(reports, ["a", "b"])
    assert [row["verdict"] for row in rows] == ["none", "none"]
    assert all(not cell["significant"] for row in rows for cell in row["populations"])


cell_strategy = st.fixed_dictionaries(
    {
        "exercised": st.booleans(),
        "diff": st.one_of(st.none(), st.floats(-5, 5)),
        "significant": st.booleans(),
    }
)


@given(st.lists(cell_strategy, min_size=1, max_size=4))
def test_a_verdict_follows_its_definition(cells: list[dict[str, Any]]) -> None:
    for index, cell in enumerate(cells):
        cell["population"] = f"p{index}"
        if cell["diff"] is None or not cell["exercised"]:
            cell["significant"] = False
    found = verdict(cells)
    measured = [c for c in cells if c["exercised"]]
    shown = [c for c in measured if c["significant"]]
    signs = {c["diff"] > 0 for c in shown}
    expected = (
        "not_exercised" if not measured
        else "holds" if len(shown) == len(measured) and len(signs) == 1
        else "none" if not shown
        else "depends"
    )  # fmt: skip
    assert found["verdict"] == expected
    assert found["not_exercised"] == [c["population"] for c in cells if not c["exercised"]]


def test_a_row_of_one_population_keeps_its_place_and_its_populations_exercise() -> None:
    """A bucket only the bold population reached comes after the row it follows there,
    and the cautious population, which never brought the variant's options into play,
    is not exercised in it either (not a missing figure counted as no effect)."""
    unused = {"not_exercised": ["throw_penalty"], "significant": False}
    first, third = record("v", 0.0, 1.0, **unused), record("v", 0.0, 1.0, **unused)
    third["row_text"] = "c"
    bucket = {**record("v", 3.0, 1e-9), "row_text": "b"}
    bold = [
        {**first, "not_exercised": None, "p": 1e-9, "diff": 2.0},
        bucket,
        {**third, "not_exercised": None},
    ]
    rows = style_rows(
        [{"differences": [first, third]}, {"differences": bold}], ["cautious", "bold"]
    )
    assert [row["row_text"] for row in rows] == ["decisions per deal", "b", "c"]
    [_, middle, _] = rows
    assert [cell["exercised"] for cell in middle["populations"]] == [False, True]
    assert middle["populations"][0]["diff"] is None
    assert middle["verdict"] == "holds" and middle["not_exercised"] == ["cautious"]


def test_a_variants_rows_stay_together() -> None:
    """A report lists each row's variants together; across populations each variant's
    rows come together, in the report's order."""
    second = {**record("v", 0.0, 1.0), "row_text": "second"}
    interleaved = [record("v", 0.0, 1.0), record("w", 0.0, 1.0), second, {**second, "variant": "w"}]
    rows = style_rows([{"differences": interleaved}] * 2, ["a", "b"])
    assert [(row["variant"], row["row_text"]) for row in rows] == [
        ("v", "decisions per deal"), ("v", "second"), ("w", "decisions per deal"), ("w", "second"),
    ]  # fmt: skip
