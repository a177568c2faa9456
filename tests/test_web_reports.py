"""The site's balance report pages: the rules in play (SJ-17/failed, GD-17/a_fail), the
differences no option came into play in, and a report of several populations, over
real small runs (``--local``, a few deals), in English and in Chinese; then the same
pages in Chromium on a desktop and a phone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import jsonschema
import pytest
from browser import DESKTOP, PHONE, Pages, WebThread, shoot

from arena.cli import main as arena_main
from arena.commands.balance_report import format_cell
from arena.games.usage import OPTION_USES
from arena.sim.exercise import MIN_USES
from arena.sim.populations import VERDICTS
from arena.store import Store
from arena.web.i18n import LANGUAGES, catalog, translate, variant_name
from arena.web.report_populations import populations_view
from arena.web.reports import report_view, status_text, until_view

if TYPE_CHECKING:
    from playwright.sync_api import Page

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


class Table(HTMLParser):
    """The rows of the table with id ``table_id``: each a list of (cell tag, class, text)."""

    def __init__(self, html: str, table_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.table_id = table_id
        self.depth = 0  # >0 inside the table
        self.rows: list[list[tuple[str, str, str]]] = []
        self.cell: list[str] | None = None
        self.cell_tag = self.cell_class = ""
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and (self.depth or found.get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in ("td", "th"):
            self.cell, self.cell_tag, self.cell_class = [], tag, found.get("class") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            text = " ".join("".join(self.cell).split())
            self.rows[-1].append((self.cell_tag, self.cell_class, text))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def texts(html: str, table_id: str) -> list[list[str]]:
    """The table's rows as their cells' texts."""
    return [[text for _, _, text in row] for row in Table(html, table_id).rows]


# -- fixtures: real small runs ---------------------------------------------------------------


def balance(*words: str) -> None:
    assert arena_main(["balance", *words, "--local"]) == 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Reports of real runs: a swept SJ-17 penalty (``swept``), a GD-17 limit random bots
    never reach (``unused``), two populations (``populations``); a stored run (``kept``)
    in ``runs.sqlite`` beside the folder."""
    folder = tmp_path_factory.mktemp("reports")
    db = str(folder.parent / "runs.sqlite")
    balance("--variant", "shengji-2", "--sweep", "throw_penalty=0,10", "--deals", "16",
            "--json", str(folder / "swept.json"), "--db", db)  # fmt: skip
    balance("--variant", "guandan", "--variant", "guandan", "--option", "a_fail_limit=2",
            "--deals", "6", "--bots", "random", "--json", str(folder / "unused.json"),
            "--db", db)  # fmt: skip
    balance("--variant", "shengji-2", "--sweep", "throw_penalty=0,10", "--deals", "8",
            "--bots", "heuristic", "--bots", "heuristic:risk=0.9",
            "--json", str(folder / "populations.json"), "--db", db)  # fmt: skip
    balance("--variant", "guandan", "--variant", "guandan", "--option", "a_fail_limit=2",
            "--deals", "4", "--bots", "random", "--name", "kept", "--db", db)  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def site(folder: Path) -> Iterator[str]:
    with Store.open(folder.parent / "runs.sqlite", read_only=True) as store:
        web = WebThread(store, folder)
        try:
            yield web.url
        finally:
            web.close()


def page(site: str, path: str) -> str:
    response = httpx.get(site + path, timeout=60)
    assert response.status_code == 200, f"{path}: {response.status_code}\n{response.text[:2000]}"
    return response.text


def report(folder: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / f"{name}.json").read_text())
    return data


# -- the rules in play ---------------------------------------------------------------


def option_of(data: dict[str, Any], row: dict[str, Any]) -> str:
    """The option whose rules-in-play record ``row`` is."""
    (name,) = [o["option"] for o in data["exercise"] if any(r is row for r in o["variants"])]
    return name


def exercise_rows(html: str, table_id: str = "exercise") -> list[list[str]]:
    """The rules in play's variant rows (the option headings left out)."""
    return [row for row in texts(html, table_id)[1:] if len(row) == 5]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", ["swept", "unused"])
def test_the_rules_in_play_show_the_reports_figures(
    site: str, folder: Path, name: str, lang: str
) -> None:
    """SJ-17/failed, GD-17/a_fail: every option's row per variant shows the JSON's deals
    with the use, of those played, its share with its interval, its status and the deals
    it needs, in either language."""
    data = report(folder, name)
    assert data["exercise"], "the run differs by an option"
    expected = [row for option in data["exercise"] for row in option["variants"]]
    shown = exercise_rows(page(site, f"/reports/{name}?lang={lang}"))
    assert len(shown) == len(expected)
    for (variant, value, deals, share, status), row in zip(shown, expected, strict=True):
        assert variant == variant_name(lang, row["variant"])
        assert value.startswith(f"{row['value']}".join((f"{option_of(data, row)}=", "")))
        count = translate(lang, "reports.exercise_count", count=row["count"], n=row["n"])
        assert deals == count
        assert share == format_cell(row, "rate")
        assert status == status_text(row, lang)
        if row["deals_needed"] is not None:
            assert f"{row['deals_needed']:,}" in status and str(MIN_USES) in status
    headings = [row[0] for row in texts(page(site, f"/reports/{name}?lang={lang}"), "exercise")]
    for option in data["exercise"]:
        assert any(option["option"] in h and option["use"] in h for h in headings)


def test_a_status_reads_as_its_words_in_each_language() -> None:
    """Each status of the rules in play has its words in both catalogs, the deals needed
    and the uses within them; the Chinese ones without English."""
    for status, needed in (("measured", None), ("off", None), ("too rare", 1234),
                           ("not exercised", 5678), ("not exercised", None)):  # fmt: skip
        row = {"status": status, "deals_needed": needed}
        en, zh = status_text(row, "en"), status_text(row, "zh")
        assert not CJK.search(en) and CJK.search(zh) and not LATIN_WORD.search(zh)
        if needed is not None:
            assert f"{needed:,}" in en and f"{needed:,}" in zh
    assert status_text({"status": "not exercised", "deals_needed": None}, "zh") == "未触发"


def test_every_option_use_has_words_in_each_catalog() -> None:
    """Each use an option is said to come into play by (OPTION_USES: SJ-17/failed,
    GD-17/a_fail, ...) has its words in both catalogs: none is shown as a bare id."""
    uses = {use for options in OPTION_USES.values() for use in options.values()}
    assert "SJ-17/failed" in uses and "GD-17/a_fail" in uses
    for lang in LANGUAGES:
        missing = {use for use in uses if f"reports.use.{use}" not in catalog(lang)}
        assert not missing, (lang, missing)


def chinese_leftovers(text: str, names: list[str]) -> list[str]:
    """The English words of ``text`` once the report's own names (variants, options,
    values, rule ids, bots) are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"\b[A-Z]{2}-\d+(/\w+)?", " ", text)  # rule ids and uses
    text = re.sub(r"\b\w+=\w+", " ", text)  # option=value
    return LATIN_WORD.findall(text)


def report_names(data: dict[str, Any]) -> list[str]:
    names = [v["name"] for v in data["variants"]]
    names += [option["option"] for option in data.get("exercise", [])]
    return [*names, "Wilson", "Holm"]


@pytest.mark.parametrize("name", ["swept", "unused"])
def test_the_chinese_rules_in_play_have_no_english(site: str, folder: Path, name: str) -> None:
    """The rules in play's headings, rows and status on a Chinese page: no English word
    left once the report's own names are taken out (SJ-17/failed, GD-17/a_fail)."""
    html = page(site, f"/reports/{name}?lang=zh")
    part = html.split('<h2 id="rules-in-play"', 1)[1].split("</table>", 1)[0]
    shown = unescape(re.sub(r"<[^>]+>", " ", "<h2 " + part))
    assert CJK.search(shown)
    assert not chinese_leftovers(shown, report_names(report(folder, name)))


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "not exercised: a_fail_limit"), ("zh", "未触发：a_fail_limit")]
)
def test_a_difference_no_option_came_into_play_in_says_so_in_the_page_language(
    site: str, folder: Path, lang: str, words: str
) -> None:
    """GD-17/a_fail never reached by random bots: the comparison's difference cells say
    not exercised, in the page's language, instead of a figure."""
    data = report(folder, "unused")
    assert all(row["count"] == 0 for row in data["exercise"][0]["variants"])
    rows = texts(page(site, f"/reports/unused?lang={lang}"), "report")[1:]  # no heading
    differences = [row[2] for row in rows if len(row) == 3 and row[2] != "—"]
    assert differences and all(cell == words for cell in differences)


def test_a_stored_run_shows_its_rules_in_play(site: str, folder: Path) -> None:
    """A run of the store (no file) shows its rules in play (GD-17/a_fail) too."""
    listed = page(site, "/reports?lang=en")
    assert 'href="/reports/kept"' in listed
    for lang in LANGUAGES:
        shown = exercise_rows(page(site, f"/reports/kept?lang={lang}"))
        named = variant_name(lang, "guandan")
        assert [row[0] for row in shown] == [named, f"{named} a_fail_limit=2"]
        assert shown[0][2] == translate(lang, "reports.exercise_count", count=0, n=4)


def test_a_report_before_rules_were_counted_has_no_rules_in_play(folder: Path) -> None:
    data = report(folder, "swept")
    del data["exercise"]
    assert report_view(data, "zh").exercise == []


# -- several populations -------------------------------------------------------------


def test_a_report_of_populations_is_listed_as_one(site: str, folder: Path) -> None:
    listed = page(site, "/reports?lang=en")
    row = listed.split('data-report="populations"', 1)[1].split("</tr>", 1)[0]
    assert 'href="/reports/populations"' in row and "cannot be read" not in row
    assert "heuristic, heuristic:risk=0.9" in row and "Shengji, 2 decks throw_penalty=10" in row


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_report_of_populations_shows_its_verdicts_and_each_population(
    site: str, folder: Path, lang: str
) -> None:
    """Every difference of the JSON's ``style`` is a row: a figure per population and its
    verdict in the page's language; then each population's own report, its rules in play
    (SJ-17/failed) among it."""
    data = report(folder, "populations")
    html = page(site, f"/reports/populations?lang={lang}")
    rows = Table(html, "verdicts").rows
    shown = [row for row in rows if row and row[-1][1] == "verdict"]
    assert len(shown) == len(data["style"])
    for row, record in zip(shown, data["style"], strict=True):
        cells = [text for _, _, text in row]
        assert len(cells) == len(data["population_names"]) + 2
        for cell, figures in zip(cells[1:-1], record["populations"], strict=True):
            if figures.get("diff") is not None and figures["exercised"]:
                scale, digits = (100, 1) if record["kind"] == "rate" else (1, 2)
                assert cell.startswith(f"{scale * figures['diff']:+.{digits}f}"), (cell, figures)
        verdict = translate(lang, f"reports.verdict_{record['verdict']}")
        assert cells[-1].startswith(verdict)
    across = html.split('id="population-1"', 1)[0]
    assert across.count('class="interval-dots"') >= 1, "a figure of the populations' differences"
    for index, population in enumerate(data["populations"], start=1):
        section = html.split(f'id="population-{index}"', 1)[1]
        expected = [row for option in population["exercise"] for row in option["variants"]]
        ex = exercise_rows(section, f"population-{index}-exercise")
        assert [row[2] for row in ex] == [
            translate(lang, "reports.exercise_count", count=row["count"], n=row["n"])
            for row in expected
        ]


def test_the_populations_rows_keep_their_own_labels(folder: Path) -> None:
    """Rows that share a key (``wins.team`` for each team, ``change.defenders`` for each
    step) keep their own labels: as many labels as the JSON has rows, in each language."""
    data = report(folder, "populations")
    for lang in LANGUAGES:
        view = populations_view(data, lang)
        for group in view.groups:
            for _, rows in group.sections:
                labels = [row.label for row in rows]
                assert len(set(labels)) == len(labels), labels


def test_until_resolved_questions_keep_their_own_labels(folder: Path) -> None:
    """The same for ``--until-resolved``'s questions: two rows of one key, two labels."""
    data = report(folder, "swept")
    seats = [d for d in data["differences"] if d["row"] == "wins.team"]
    assert len(seats) == 2
    questions = [
        {**d, "status": "open", "level": 0.025, "look": 1, "kind": d["kind"]} for d in seats
    ]
    data["until_resolved"] = {"stopped": "maximum", "rounds": 1, "questions": questions}
    lines = until_view(data, "zh")
    assert "0、2 号座位一方" in lines[1] and "1、3 号座位一方" in lines[2]


def test_the_chinese_populations_page_has_no_english(site: str, folder: Path) -> None:
    """The verdicts' table, its notes and headings on a Chinese page: no English word
    left once the report's own names are taken out."""
    data = report(folder, "populations")
    html = page(site, "/reports/populations?lang=zh")
    part = html.split("<h1", 1)[1].split('id="population-1"', 1)[0]
    shown = unescape(re.sub(r"<[^>]+>", " ", "<h1" + part))
    shown = re.sub(r"again|arena balance.*", " ", shown.split("重新运行")[0])
    names = [*report_names(data["populations"][0]), *data["population_names"], "populations"]
    assert not chinese_leftovers(shown, names)
    assert all(words not in html for words in VERDICTS.values())


def test_a_report_of_populations_that_is_broken_is_listed_with_why(
    site: str, folder: Path, tmp_path: Path
) -> None:
    data = report(folder, "populations")
    del data["populations"][0]["variants"]
    (folder / "halfpop.json").write_text(json.dumps(data))
    try:
        listed = page(site, "/reports?lang=en")
        row = listed.split('data-report="halfpop"', 1)[1].split("</tr>", 1)[0]
        assert "cannot be read" in row and "variants" in row
        assert httpx.get(site + "/reports/halfpop", timeout=60).status_code == 404
    finally:
        (folder / "halfpop.json").unlink()


# -- in a browser --------------------------------------------------------------------


def overflow(page: Page, selector: str) -> int:
    """How far the element reaches beyond the page's width, in CSS pixels."""
    reach: int = page.eval_on_selector(
        selector, "e => Math.ceil(e.getBoundingClientRect().right - window.innerWidth)"
    )
    return reach


def overlaps(page: Page, selector: str) -> list[str]:
    """The cells of a table whose text runs out of the cell (over its neighbour) or that
    overlap another cell of their row."""
    found: list[str] = page.eval_on_selector(
        selector,
        """table => [...table.querySelectorAll('tr')].flatMap(tr => {
            const cells = [...tr.children].map(c => [c, c.getBoundingClientRect()]);
            const over = cells.filter(([c]) => c.scrollWidth > c.clientWidth + 1)
                .map(([c]) => 'runs out: ' + c.textContent.trim());
            return over.concat(cells.flatMap(([a, r], i) => cells.slice(i + 1).filter(
                ([b, s]) => r.left < s.right - 1 && s.left < r.right - 1 &&
                    r.top < s.bottom - 1 && s.top < r.bottom - 1
            ).map(([b]) => a.textContent.trim() + ' / ' + b.textContent.trim())));
        })""",
    )
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_report_pages_fit_a_phone_and_a_desktop(pages: Pages, site: str, lang: str) -> None:
    """On a 390 px phone the rules in play and the populations' verdicts fit the screen
    (no sideways scrolling for the words that matter); screenshots of each page on a
    desktop and a phone go to build/screenshots/."""
    for name, selector in (
        ("swept", "#exercise"),
        ("unused", "#exercise"),
        ("populations", "#verdicts"),
    ):
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            shown = pages.open(viewport=viewport)
            shown.goto(f"{site}/reports/{name}?lang={lang}")
            assert overflow(shown, selector) <= 0, (name, label)
            assert not overlaps(shown, selector), (name, label)
            shoot(shown, f"report-{name}-{lang}-{label}")


# -- the documented schema -------------------------------------------------------------


SCHEMA = Path(__file__).parents[1] / "docs" / "balance-report.schema.json"


@pytest.mark.parametrize("name", ["swept", "unused", "populations"])
def test_the_reports_rules_follow_the_documented_schema(folder: Path, name: str) -> None:
    """Each variant's ``rules`` (SJ-17/failed, GD-17/a_fail ...: a rate per rule id or
    use) is described by the schema: the real reports validate, and a rule counted under
    a name that is no rule id, or as a bare number, does not."""
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    data = report(folder, name)
    jsonschema.validate(data, schema)
    single = data["populations"][0] if name == "populations" else data
    assert single["variants"][0]["rules"], "the rules of each variant are counted"
    rules = single["variants"][0]["rules"]
    a_rate = next(iter(rules.values()))
    for broken in ({"throw": a_rate}, {next(iter(rules)): 0.5}):
        variant = {**single["variants"][0], "rules": broken}
        changed = {**single, "variants": [variant, *single["variants"][1:]]}
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(changed, schema)


def test_a_population_that_never_used_the_option_is_named_in_the_page_language(
    folder: Path,
) -> None:
    """SJ-17/failed never applied in one population: its cells say not exercised, the
    variant's heading names it, and a verdict that holds says where it was exercised."""
    data = report(folder, "populations")
    first = data["population_names"][0]
    for row in data["style"]:
        row["populations"][0] = {
            "population": first,
            "exercised": False,
            "not_exercised": ["throw_penalty"],
            "diff": None,
        }
        row["verdict"] = "holds"
    zh, en = populations_view(data, "zh"), populations_view(data, "en")
    (group,) = zh.groups
    unused = f"在 {first} 中未触发：throw_penalty 在两种玩法中都没有起作用"
    assert group.unused == [unused + "（该群体的差值说明不了它的影响）"]
    row = group.sections[0][1][0]
    assert row.cells[0] == "未触发"
    assert row.verdict.startswith(f"在触发的群体中成立（2 个中的 1 个）；在 {first} 中未触发")
    english = en.groups[0].sections[0][1][0]
    assert english.cells[0] == "not exercised"
    assert english.verdict.startswith(
        f"holds where exercised (1 of 2 populations); not exercised in {first}"
    )
