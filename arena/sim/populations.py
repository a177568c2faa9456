"""Several populations of bots, one balance question: does each rule change's effect hold
in every population, or does it depend on the style of play?

A balance run may name several populations (``--bots`` more than once, e.g. cautious
and aggressive heuristic bots). Each is played as a run of its own, on the same variants,
deals and seeds, and reports its differences from the baseline (a variant against the
first one, per row of the comparison: :mod:`arena.sim.differences`). :func:`style_rows`
lines those differences up, row by row and variant by variant, one per population, and
gives each a verdict:

* ``holds`` — significant in every population, in the same direction;
* ``depends`` — significant in some populations and not in others, or significant in
  opposite directions: the effect depends on the style;
* ``none`` — significant in no population;
* ``not_exercised`` — the variant's options came into play in no population (neither
  in the variant nor in the baseline: the report of each population says so of its
  differences, ``not_exercised``). A population where they never came into play is
  named (``not_exercised``) and left out of the verdict and of the tests: a difference
  measured without the option in play says nothing of the option. A population with no
  figure for a row (a bucket none of its deals reached) counts as showing no effect.

Which differences are significant is decided again across populations: by Holm's
procedure over every difference of every population together (rows × variants ×
populations), at the same family-wise error rate as a single report, so the chance that
any difference called significant in the whole section is not real stays at most
:data:`arena.sim.differences.FAMILY_ERROR`. A population's own report corrects over its
own differences only, so a borderline difference may be significant there and not here.

``depends`` says where the effect was shown, not that the effects differ: an effect
significant in one population and not in another may be the same effect measured with
less precision. Each row therefore also tests whether the populations' effects differ
(``differs``): the two-sided p-value of the largest gap between two populations'
differences (a z-test on their difference, each difference's standard error read from
its 95% interval, Bonferroni over the pairs), corrected by Holm over the rows. The
populations play the same shuffles, which can only correlate their differences
positively; the test treats them as independent, which only widens it (conservative).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from statistics import NormalDist
from typing import Any, Final

from arena.plural import counted
from arena.sim.differences import holm

__all__ = ["VERDICTS", "differs", "style_rows", "verdict", "verdict_words"]

VERDICTS: Final = {
    "holds": "holds in every population",
    "depends": "depends on the style",
    "none": "in no population",
    "not_exercised": "not exercised in any population",
}
"""A verdict's key and its words."""

_Z95: Final = NormalDist().inv_cdf(0.975)
_KEYS: Final = ("section", "section_text", "row", "row_text", "kind", "baseline", "variant")
"""The fields of a difference record that say which difference it is."""


def style_rows(
    reports: Sequence[Mapping[str, Any]], populations: Sequence[str]
) -> list[dict[str, Any]]:
    """Each difference of the populations' ``reports`` (their ``differences`` records)
    with, per population (named by ``populations``), its figures and whether it is
    significant across populations, and the row's verdict; a variant's rows together,
    in the reports' order (a row only some populations have, a bucket, after the row it
    follows there).

    A variant whose records name the options they do not measure (``not_exercised``:
    those came into play in neither the variant nor the baseline) is not exercised in
    that population, in every row (a cell of its own with the options' names), and is
    left out of the tests."""
    unused: dict[tuple[int, str], list[str]] = {}
    found: dict[tuple[Any, ...], list[dict[str, Any] | None]] = {}
    order: list[tuple[Any, ...]] = []
    for index, data in enumerate(reports):
        after = -1  # where this population's previous row is in ``order``
        for record in data.get("differences", []):
            key = tuple(record[name] for name in _KEYS)
            if record.get("not_exercised"):
                unused[(index, record["variant"])] = list(record["not_exercised"])
            if key in found:
                after = order.index(key)
            else:
                after += 1
                order.insert(after, key)
                found[key] = [None] * len(reports)
            found[key][index] = record
    variants = list(dict.fromkeys(key[6] for key in order))  # a variant's rows together
    order.sort(key=lambda key: variants.index(key[6]))
    tested = [  # the family: every difference measured with the options in play
        cell
        for key, cells in found.items()
        for index, cell in enumerate(cells)
        if cell is not None and (index, key[6]) not in unused
    ]
    significant = dict(zip(map(id, tested), holm([cell["p"] for cell in tested]), strict=True))
    rows = []
    for key in order:
        shown = []
        for index, (name, cell) in enumerate(zip(populations, found[key], strict=True)):
            options = unused.get((index, key[6]))
            shown.append(
                {"population": name, "exercised": not options}
                | ({"not_exercised": options} if options else {})
                | (
                    {k: cell[k] for k in ("diff", "low", "high", "p")}
                    | {"significant": significant.get(id(cell), False)}
                    if cell is not None
                    else {"diff": None}
                )
            )
        rows.append(
            {
                **dict(zip(_KEYS, key, strict=True)),
                "populations": shown,
                **verdict(shown),
                "differs_p": differs(shown),
            }
        )
    gapped = [row for row in rows if row["differs_p"] is not None]
    for row in rows:
        row["differs"] = False
    for row, differ in zip(gapped, holm([row["differs_p"] for row in gapped]), strict=True):
        row["differs"] = differ
    return rows


def verdict(cells: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A row's verdict from its cells (one per population): its key, its words, and the
    populations where the variant's options never came into play."""
    unused = [cell["population"] for cell in cells if not cell["exercised"]]
    measured = [cell for cell in cells if cell["exercised"]]  # with a figure or none
    if not measured:
        key = "not_exercised"
    else:
        signs = {c["diff"] > 0 for c in measured if c.get("significant")}
        shown = sum(1 for c in measured if c.get("significant"))
        if shown == len(measured) and len(signs) == 1:
            key = "holds"
        elif shown == 0:
            key = "none"
        else:
            key = "depends"
    text = verdict_words(key, cells)
    if unused and measured:
        text += f"; not exercised in {', '.join(unused)}"
    return {"verdict": key, "verdict_text": text, "not_exercised": unused}


def verdict_words(key: str, cells: Sequence[Mapping[str, Any]]) -> str:
    """A verdict's words; ``holds`` says in how many populations when some did not bring
    the options into play."""
    exercised = sum(1 for cell in cells if cell["exercised"])
    if key == "holds" and exercised < len(cells):
        return f"holds where exercised ({exercised} of {counted(len(cells), 'population')})"
    return VERDICTS[key]


def differs(cells: Sequence[Mapping[str, Any]]) -> float | None:
    """The p-value that the populations' differences are not all the same: the smallest
    two-sided z-test p-value over the pairs of populations (each difference's standard
    error read from its 95% interval), times the number of pairs (Bonferroni); None with
    fewer than two differences with a spread."""
    measured = [
        (c["diff"], (c["high"] - c["low"]) / (2 * _Z95))
        for c in cells
        if c["exercised"] and c.get("diff") is not None and c["high"] > c["low"]
    ]
    pairs = list(combinations(measured, 2))
    if not pairs:
        return None
    gaps = [abs(a - b) / math.hypot(sa, sb) for (a, sa), (b, sb) in pairs]
    return min(1.0, len(pairs) * 2.0 * (1.0 - NormalDist().cdf(max(gaps))))
