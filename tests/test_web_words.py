"""Every word a person reads is in the page's language: a variant is named (掼蛋,
"Shengji, 2 decks"), never shown as its id; a refused answer is said in player words
(arena/web/refusals.py), never in the engine's English; the action played when time ran
out is named as the page draws its cards; a person's own page speaks of a person, and a
click the table refused is no conduct of theirs."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from browser import Played, WebThread, build_played_store, serving
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import games
from arena.cards import format_cards
from arena.errors import IllegalActionError, ParseError
from arena.match import Conduct
from arena.sim.jobs import MatchJob
from arena.sim.worker import play_job
from arena.store import Store
from arena.web.i18n import LANGUAGES, catalog, variant_name
from arena.web.refusals import REASONS, action_text, in_person_words, refusal_text

RAW_VARIANT = re.compile(r"(?<![\w-])(?:guandan|sanfu|shengji(?:-\d)?)(?![\w-])")
"""A variant's id as a word of a page's text."""
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
ENGINE_WORDS = ("illegal action", "bad action", "seat ", "you hold", "allowed:")
RULE_ID = re.compile(r"\b(?:GD|SJ|SF)-\d+\b")
PERSON = "person:ann"


class Visible(HTMLParser):
    """The text a reader sees (no script, no style, no attribute)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible(html: str, ids: list[str]) -> str:
    """A page's visible text, the given match and tournament ids left out (an id may
    hold a variant's id: it is a name, not a word)."""
    reader = Visible()
    reader.feed(html)
    text = " ".join(reader.parts)
    for name in sorted(ids, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


# -- the one catalog of variant names ------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_variant_has_a_readable_name_in_each_language(lang: str) -> None:
    names = {variant: variant_name(lang, variant) for variant in games.names()}
    assert all(name != variant for variant, name in names.items()), names
    assert len(set(names.values())) == len(names), "two variants named alike"
    assert not any(RAW_VARIANT.search(name) for name in names.values()), names
    assert variant_name(lang, "guandan+options") == "guandan+options"  # unknown: as given


def test_the_names_people_read() -> None:
    assert variant_name("zh", "guandan") == "掼蛋"
    assert variant_name("zh", "shengji-2") == "升级（两副牌）"
    assert variant_name("en", "shengji-2") == "Shengji, 2 decks"
    assert variant_name("en", "shengji-1") == "Shengji, 1 deck"


# -- the site's pages in each language -----------------------------------------------------


def store_with_people(path: Path) -> Played:
    """The played store, with a person's matches: two casual ones in which the table
    refused four of their clicks and played one decision for them."""
    played = build_played_store(path)
    with Store.open(played.path) as store:
        for n, variant in enumerate(("guandan", "shengji-2")):
            job = MatchJob(f"people-{variant}", variant, {}, 70 + n, ("first", "random") * 2)
            report = play_job(replace(job, max_deals=1))
            seated = replace(report.job, players=(PERSON, "random", "first", "random"))
            record = {**report.record, "players": list(seated.players)}
            refused = (Conduct(illegal=3, malformed=1, timeouts=1), *report.conduct[1:])
            stored = replace(report, job=seated, record=record, conduct=refused)
            store.add_match(stored.stored(None))  # casual: stored, not rated
    return played


@pytest.fixture(scope="module")
def people_store(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return store_with_people(tmp_path_factory.mktemp("words") / "played.sqlite")


@pytest.fixture(scope="module")
def site(people_store: Played) -> Iterator[WebThread]:
    with serving(people_store) as web:
        yield web


def pages(played: Played) -> list[str]:
    tournament = played.tournament
    return [
        "/leaderboard",
        "/leaderboard?variant=shengji-2",
        "/leaderboard?variant=guandan&pool=people",
        f"/leaderboard?tournament={tournament}",
        "/matches",
        "/matches?variant=sanfu",
        "/tournaments",
        f"/tournaments/{tournament}",
        "/bots/heuristic",
        f"/bots/{PERSON}",
        "/reports",
        *(f"/matches/{played.matches[name]}" for name in ("guandan", "shengji-2", "sanfu")),
    ]


def ids_of(played: Played) -> list[str]:
    return [
        *played.all_ids(),
        played.tournament,
        "people-guandan",
        "people-shengji-2",
        "house-balance",
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_page_shows_a_variant_id_where_a_person_reads(
    site: WebThread, people_store: Played, lang: str
) -> None:
    """zh pages name 掼蛋, 升级（两副牌）…; en pages Guandan, Shengji, 2 decks…: in
    lists, tabs, titles, filters, a match's table page, a tournament, a bot's ratings."""
    seen: set[str] = set()
    names = [variant_name(lang, variant) for variant in games.names()]
    for path in pages(people_store):
        joiner = "&" if "?" in path else "?"
        response = httpx.get(f"{site.url}{path}{joiner}lang={lang}", timeout=60)
        assert response.status_code == 200, path
        text = visible(response.text, ids_of(people_store))
        assert not RAW_VARIANT.findall(text), f"{path} ({lang}): {RAW_VARIANT.findall(text)}"
        seen.update(name for name in names if name in text)
    assert set(names) <= seen


def test_a_report_names_its_variants_in_the_page_language(site: WebThread) -> None:
    html = httpx.get(f"{site.url}/reports?lang=zh", timeout=60).text
    listed = visible(html, ["house-balance"])
    assert not RAW_VARIANT.findall(listed)


# -- a person's page ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_persons_page_speaks_of_a_person_and_counts_no_refused_click(
    site: WebThread, lang: str
) -> None:
    html = httpx.get(f"{site.url}/bots/{PERSON}?lang={lang}", timeout=60).text
    text = visible(html, [])
    words = catalog(lang)
    assert words["bot.kinds.person"] in text
    assert words["person.incidents"] in text and words["bot.incidents"] not in text
    assert 'data-incident="illegal"' not in html and 'data-incident="malformed"' not in html
    assert words["bot.illegal"] not in text and words["bot.refused_in"] not in text
    assert words["person.incidents_note"] in text
    assert 'data-incident="automatic_plays"' in html  # their time is theirs to see
    if lang == "en":
        assert "bot" not in text.replace("bots", "").lower().split(), "a person called a bot"


def test_a_bots_page_still_counts_its_refused_answers(site: WebThread) -> None:
    html = httpx.get(f"{site.url}/bots/heuristic?lang=en", timeout=60).text
    assert 'data-incident="illegal"' in html and "Time and conduct" in html
    assert "built-in bot" in html


# -- refusals in player words ---------------------------------------------------------------

VERBS = {"declare": "declare", "bury": "bury", "tribute": "tribute", "return": "return"}


def refusals_of(variant: str, seed: int, tries: list[tuple[int, int, int]]) -> list[str]:
    """The engine's reasons for answers tried along a deal played by random legal
    actions: at each step, a verb (the phase's, pass or play) and some cards of the hand."""
    game = games.make(variant)
    state = game.new_deal(game.first_setup(), seed=seed)
    reasons = []
    for pick, size, choice in tries:
        if state.is_terminal():
            break
        hand = sorted(state.hand(state.to_act))
        verb = (VERBS.get(state.phase, "play"), "pass", "play")[pick % 3]
        cards = [hand[(choice + 7 * k) % len(hand)] for k in range(min(size, len(hand)))]
        text = verb if verb == "pass" else f"{verb} {format_cards(sorted(cards))}"
        try:
            state.parse_action(text)
        except (IllegalActionError, ParseError) as err:
            reasons.append(str(err))
        legal = list(state.legal_actions())
        state.apply(legal[choice % len(legal)])
    return reasons


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(games.names()),
    seed=st.integers(0, 10_000),
    tries=st.lists(
        st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(0, 500)), max_size=60
    ),
)
def test_every_refusal_is_said_in_player_words(
    variant: str, seed: int, tries: list[tuple[int, int, int]]
) -> None:
    """Real refusals of the engines: the zh text holds no English word, the en text
    none of the engine's own phrases, and each is a text the catalog knows by its shape
    (never the plain fallback)."""
    other = {lang: catalog(lang)["tables.refusal.other"] for lang in LANGUAGES}
    for reason in refusals_of(variant, seed, tries):
        zh, en = refusal_text("zh", reason), refusal_text("en", reason)
        assert not LATIN_WORD.search(RULE_ID.sub("", zh)), (reason, zh)
        assert set(RULE_ID.findall(zh)) == set(RULE_ID.findall(reason)), (reason, zh)
        assert not any(word in en for word in ENGINE_WORDS), (reason, en)
        assert zh != other["zh"] and en != other["en"], reason


def test_the_example_refusals() -> None:
    reason = "illegal action 'play 3c 6c': must play 2 cards of c: you hold 3 (SJ-19)"
    assert refusal_text("zh", reason) == "你还有 3 张♣ 梅花：须出其中 2 张。（SJ-19）"
    assert (
        refusal_text("en", reason) == "You still hold 3 cards of ♣ clubs: play 2 of them. (SJ-19)"
    )
    cited = "illegal action 'play 3c': a new rule (SJ-21)"
    assert refusal_text("en", cited).startswith("Not allowed: a player void in the led suit")
    assert refusal_text("zh", "whatever the server says") == catalog("zh")["tables.refusal.other"]
    stale = "unknown, closed or expired request id 'r-4': closed"
    assert refusal_text("zh", stale) == "这一步已经过去了。"


def test_every_reason_shape_has_words_in_both_catalogs() -> None:
    for _, key, _ in REASONS:
        assert all(f"tables.refusal.{key}" in catalog(lang) for lang in LANGUAGES), key


@pytest.mark.parametrize(
    ("lang", "action", "family", "phase", "said"),
    [
        ("zh", "play 3c 6c", "shengji", "play", "♣3 ♣6"),
        ("en", "play 3c 6c", "shengji", "play", "♣3 ♣6"),
        ("zh", "pass", "shengji", "declare", "不叫"),
        ("en", "pass", "shengji", "declare", "Don't declare"),
        ("zh", "pass", "guandan", "play", "不出"),
        ("en", "pass", "sanfu", "play", "Pass"),
        ("zh", "bury BJ", "shengji", "bury", "扣底 大王"),
        (
            "zh",
            "play 5s 5h 5d 6s 6h 6d as triple_run",
            "guandan",
            "play",
            "♠5 ♥5 ♦5 ♠6 ♥6 ♦6 · 钢板",
        ),
        ("en", "tribute Ah", "guandan", "tribute", "Tribute ♥A"),
    ],
)
def test_an_action_is_named_as_the_page_draws_it(
    lang: str, action: str, family: str, phase: str, said: str
) -> None:
    assert action_text(lang, action, family, phase) == said


def test_every_phase_with_a_pass_has_its_own_word() -> None:
    """A pass is offered while declaring (Shengji) and in the climbing games' play:
    not declaring is not passing a trick, in either language."""
    for lang in LANGUAGES:
        declare = action_text(lang, "pass", "shengji", "declare")
        play = action_text(lang, "pass", "guandan", "play")
        assert declare != play and declare == catalog(lang)["tables.verb.pass_declare"]
    assert action_text("zh", "pass", "shengji", "declare") == "不叫"


async def events_of(
    *events: tuple[str, dict[str, object]],
) -> AsyncIterator[tuple[str, dict[str, object]]]:
    for event in events:
        yield event


def test_a_seats_stream_is_said_in_the_page_language() -> None:
    """The refusal and the automatic play a seat's browser is sent (seat_pages' stream)."""
    import asyncio

    async def said() -> list[tuple[str, dict[str, object]]]:
        stream = events_of(
            ("decision", {"phase": "declare", "request_id": "r-1"}),
            ("refused", {"request_id": "r-1", "reason": "illegal action 'declare 2h': not a "
                         "declaration stronger than the standing one (SJ-8); allowed: 2s 2s"}),
            ("timed_out", {"request_id": "r-1", "action": "pass"}),
            ("decision", {"phase": "play", "request_id": "r-2"}),
            ("timed_out", {"request_id": "r-2", "action": "play 3c 6c"}),
            ("problem", {"message": "the server is stopping"}),
            ("problem", {"code": "INTERNAL", "message": "something unforeseen"}),
        )  # fmt: skip
        return [event async for event in in_person_words(stream, "zh", "shengji")]

    events = asyncio.run(said())
    assert events[1][1]["reason"] == "这次亮主不比已亮的更强。（SJ-8）"
    assert str(events[1][1]["engine_reason"]).startswith("illegal action")
    assert events[2][1]["action"] == "不叫"
    assert events[4][1]["action"] == "♣3 ♣6"
    assert events[5][1]["message"] == catalog("zh")["tables.trouble.stopping"]
    assert events[6][1]["message"] == catalog("zh")["tables.trouble.other"]
    assert events[6][1]["engine_message"] == "something unforeseen"


def test_the_person_store_is_a_real_one(people_store: Played) -> None:
    with Store.open(people_store.path, read_only=True) as store:
        assert store.conduct_totals(PERSON).illegal == 6  # stored: the page leaves it out


@settings(max_examples=60, deadline=None)
@given(cards=st.lists(st.integers(0, 53), min_size=1, max_size=12), level=st.integers(0, 12))
def test_why_cards_make_no_combination_is_said_in_each_language(
    cards: list[int], level: int
) -> None:
    """The reading a Guandan selection shows before it is sent (GD-8): in zh no English
    word, and never the plain fallback."""
    from arena.games.guandan.combos import no_combination_reason, play_readings
    from arena.web.refusals import combination_text

    if play_readings(cards, level):
        return
    reason = no_combination_reason(cards, level)
    zh, en = combination_text("zh", reason), combination_text("en", reason)
    assert not LATIN_WORD.search(zh), (reason, zh)
    assert zh != catalog("zh")["tables.refusal.no_combination"], reason
    assert en != catalog("en")["tables.refusal.no_combination"], reason
