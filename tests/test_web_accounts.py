"""People's accounts and rated tables: signing up, in and out (passwords kept as salted
hashes, tries limited per client and name, a new session at sign-in); a guest never plays under an
account's name; a rated table is for people signed in, and is rated in the variant's
people's pool, apart from the bots' league, whose ratings it leaves as they were."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser import Live, serving_live
from seated import WAIT, Seated, WaitingBot
from stores import new_store_target, on_sqlite_only

from arena.rating.pools import people_pool, pool_variant
from arena.store import PERSON_KIND, Store
from arena.web import accounts as accounts_module
from arena.web.account_pages import safe_next
from arena.web.accounts import (
    NAME_TRIES_BURST,
    TRIES_BURST,
    AccountProblem,
    Accounts,
    Client,
    hash_password,
    password_matches,
)
from arena.web.people import SESSION_COOKIE

BOTS = ("random", "first", "random")
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def live(
    module_backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Live]:
    """tests/browser.py's ``live`` server, its store on SQLite, then on PostgreSQL."""
    folder = tmp_path_factory.mktemp("live")
    with serving_live(new_store_target(request, module_backend, folder), 1) as served:
        yield served


def problem_of(text: str) -> str:
    found = re.search(r'id="problem">([^<]*)<', text)
    assert found is not None, "the page shows no problem"
    return found.group(1).replace("&#39;", "'")


def test_a_password_is_kept_as_a_salted_hash_that_only_it_matches() -> None:
    first, second = hash_password(PASSWORD), hash_password(PASSWORD)
    assert first != second  # each has its own salt
    assert PASSWORD not in first
    assert password_matches(PASSWORD, first)
    assert password_matches(PASSWORD, second)
    assert not password_matches(PASSWORD + "!", first)
    assert not password_matches(PASSWORD, "scrypt$1$2$garbled")
    assert not password_matches(PASSWORD, "md5$" + first.split("$", 1)[1])


def test_an_account_is_a_person_row_the_store_keeps(store_target: str) -> None:
    with Store.open(store_target) as store:
        assert store.add_person("person:ann", hash_password(PASSWORD))
        assert not store.add_person("person:ann", hash_password("another one"))
        bot = store.bot("person:ann")
        assert bot is not None and bot.kind == PERSON_KIND
        stored = store.password_hash("person:ann")
        assert stored is not None and password_matches(PASSWORD, stored)
        assert store.password_hash("person:nobody") is None


def test_people_are_rated_in_a_pool_of_their_own() -> None:
    assert people_pool("shengji-2") == "people:shengji-2"
    assert pool_variant(people_pool("shengji-2")) == "shengji-2"
    assert pool_variant("guandan") == "guandan"


def test_signing_in_leads_only_to_a_page_of_this_site() -> None:
    assert safe_next("/tables/t-1/join?invite=abc") == "/tables/t-1/join?invite=abc"
    for elsewhere in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "", None):
        assert safe_next(elsewhere) == "/tables/new"


def test_signing_up_in_and_out(live: Live, person: Seated) -> None:
    person.session("/account")
    guest_cookie = person.http.cookies[SESSION_COOKIE]
    short = person.http.post(
        "/account/sign-up", data={"csrf": person.csrf, "name": "ann", "password": "short"}
    )
    assert short.status_code == 400
    assert "at least 8 characters" in problem_of(short.text)
    made = person.account("ann", PASSWORD)
    assert made.status_code == 303 and made.headers["location"] == "/tables/new"
    # signing in gives a new session: the guest's cookie opens nothing now
    assert person.http.cookies[SESSION_COOKIE] != guest_cookie
    page = person.http.get("/account").text
    assert 'id="signed-in"' in page and "ann" in page
    stale = Seated(live.url)
    stale.http.cookies.set(SESSION_COOKIE, guest_cookie)
    assert 'id="signed-in"' not in stale.http.get("/account").text
    stale.close()

    other = Seated(live.url)
    taken = other.account("ann", "a different one")
    assert taken.status_code == 400
    assert "taken" in problem_of(taken.text)
    wrong = other.account("ann", "not the password", new=False)
    other.http.headers["accept-language"] = "zh"
    assert problem_of(other.account("ann", "not it either", new=False).text) == (
        "没有这个名字和密码的账户"
    )
    other.http.headers["accept-language"] = "en"
    unknown = other.account("nobody-here", PASSWORD, new=False)
    assert problem_of(wrong.text) == problem_of(unknown.text)  # no hint which is wrong
    assert other.account("ann", PASSWORD, new=False).status_code == 303
    other.close()

    person.session("/account")
    out = person.http.post("/account/sign-out", data={"csrf": person.csrf})
    assert out.status_code == 303
    assert 'id="signed-in"' not in person.http.get("/account").text


def seated_at(url: str, address: str) -> Seated:
    """A browser whose requests come from ``address`` (a loopback address of its own)."""
    seated = Seated(url)
    seated.http.close()
    seated.http = httpx.Client(
        base_url=url,
        timeout=WAIT,
        follow_redirects=False,
        headers={"accept-language": "en"},
        transport=httpx.HTTPTransport(local_address=address),
    )
    return seated


@on_sqlite_only
def test_sign_in_tries_are_limited_per_client_and_name(live: Live) -> None:
    """Two clients, two names: a guesser's spent tries at one name hold for it in any
    session (not a limit per session), leave it its tries at another name (not per address
    alone), and leave the owner at another address signing in at once (not per name alone)."""
    for name in ("bea", "cal"):
        owner = Seated(live.url)
        assert owner.account(name, PASSWORD).status_code == 303
        owner.close()
    guesser = seated_at(live.url, "127.0.0.2")
    problems = [
        problem_of(guesser.account("bea", f"guess-{n:04d}", new=False).text)
        for n in range(int(TRIES_BURST) + 1)
    ]
    assert all("too many tries" not in problem for problem in problems[:-1])
    assert "too many tries" in problems[-1]
    guesser.close()
    again = seated_at(live.url, "127.0.0.2")  # a new session from the same address
    refused = again.account("bea", PASSWORD, new=False)
    assert refused.status_code == 400 and "too many tries" in problem_of(refused.text)
    other_name = again.account("cal", "a wrong guess", new=False)
    assert "too many tries" not in problem_of(other_name.text)
    assert again.account("cal", PASSWORD, new=False).status_code == 303
    again.close()
    owner = seated_at(live.url, "127.0.0.3")
    assert owner.account("bea", PASSWORD, new=False).status_code == 303
    owner.close()


@pytest.fixture
def cheap_hash(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """The password hash made cheap and spied on: the cost parameters of each call."""
    calls: list[tuple[int, int, int]] = []

    def spy(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
        calls.append((n, r, p))
        return hashlib.sha256(salt + password.encode()).digest()

    monkeypatch.setattr(accounts_module, "_scrypt", spy)
    return calls


def test_an_unknown_name_costs_the_same_hash_as_a_known_one(
    tmp_path: Path, cheap_hash: list[tuple[int, int, int]]
) -> None:
    with Store.open(tmp_path / "arena.sqlite") as store:
        accounts = Accounts(store)
        accounts.sign_up("ann", PASSWORD)
        cost = cheap_hash.pop()
        answers = []
        for name in ("ann", "nobody"):
            with pytest.raises(AccountProblem) as refused:
                accounts.sign_in(name, "not the password", Client("10.0.0.1"))
            answers.append(refused.value.key)
            assert cheap_hash == [cost], name  # one hash of an account's cost, each
            cheap_hash.clear()
        assert answers[0] == answers[1]


def test_strangers_at_many_addresses_share_a_names_tries_the_owners_browser_passes(
    tmp_path: Path, cheap_hash: list[tuple[int, int, int]]
) -> None:
    """Guessing from many addresses is bounded per name; a browser the owner signed in
    from before is let past that bound, a forged device token is not."""
    with Store.open(tmp_path / "arena.sqlite") as store:
        accounts = Accounts(store, now=lambda: 0.0)
        accounts.sign_up("ann", PASSWORD)
        device = accounts.sign_in("ann", PASSWORD, Client("10.0.0.1"))
        answers = []
        for n in range(int(NAME_TRIES_BURST)):  # the owner's first sign-in took one
            with pytest.raises(AccountProblem) as refused:
                accounts.sign_in("ann", "a guess", Client(f"10.1.{n // 250}.{n % 250}"))
            answers.append(refused.value.key.rsplit(".", 1)[-1])
        assert answers == ["wrong"] * (int(NAME_TRIES_BURST) - 1) + ["too_many"]
        for stranger in (Client("10.2.0.1"), Client("10.2.0.1", "forged")):
            with pytest.raises(AccountProblem, match="too many"):
                accounts.sign_in("ann", PASSWORD, stranger)
        assert accounts.sign_in("ann", PASSWORD, Client("10.9.9.9", device)) == device


def test_a_guest_plays_under_no_accounts_name(live: Live, person: Seated) -> None:
    owner = Seated(live.url)
    assert owner.account("cai", PASSWORD).status_code == 303
    owner.close()
    person.session()
    response = person.open("guandan", BOTS, extra={"name": "cai"})
    assert response.status_code == 400
    assert "account" in problem_of(response.text)


@on_sqlite_only
def test_only_a_person_signed_in_opens_a_rated_table(live: Live, person: Seated) -> None:
    page = person.session()
    assert re.search(r'name="rated"[^>]*disabled', page)
    response = person.open("guandan", BOTS, extra={"rated": "1"})
    assert response.status_code == 400
    assert "sign in" in problem_of(response.text)


@pytest.mark.parametrize("variant", ["guandan", "shengji-2"])
def test_a_rated_table_is_rated_in_the_peoples_pool_not_the_bots_league(
    live: Live, person: Seated, variant: str
) -> None:
    name = f"dee-{variant}"
    assert person.account(name, PASSWORD).status_code == 303
    bots_before = {(r.bot, r.system, r.value) for r in live.store.ratings(variant)}
    response = person.open(variant, BOTS, extra={"rated": "1"})
    assert response.status_code == 303, response.text[:300]
    person.listen()
    _, seat = person.next("seat")
    assert seat["match"]["rated"] is True
    result = person.play_out()
    assert result["rated"] is True
    pool = people_pool(variant)
    mine = [c for c in result["rating_changes"] if c["bot"] == f"person:{name}"]
    assert {c["system"] for c in mine} >= {"elo", "openskill"}
    assert all(c["variant"] == pool for c in result["rating_changes"])
    if variant.startswith("shengji-"):
        assert "room" in {c["system"] for c in mine}
    rated = {r.bot for r in live.store.ratings(pool)}
    assert {f"person:{name}", "random", "first"} <= rated
    # the bots' league has not moved
    assert {(r.bot, r.system, r.value) for r in live.store.ratings(variant)} == bots_before
    listing = live.store.match_listing(person.table)
    assert listing is not None and listing.rated

    people_board = person.http.get(f"/leaderboard?variant={variant}&pool=people").text
    assert f'data-bot="person:{name}"' in people_board
    assert 'data-bot="random"' in people_board
    bots_board = person.http.get(f"/leaderboard?variant={variant}").text
    assert 'data-bot="person:' not in bots_board


def test_a_rated_tables_seats_are_for_accounts_each_in_one_seat(live: Live) -> None:
    host, guest, same = Seated(live.url), Seated(live.url), Seated(live.url)
    try:
        assert host.account("eve", PASSWORD).status_code == 303
        response = host.open("guandan", ("person", "random", "random"), extra={"rated": "1"})
        assert response.status_code == 303
        invite = re.search(
            r'id="invite"[^>]*value="([^"]+)"', host.http.get(f"/tables/{host.table}").text
        )
        assert invite is not None
        url = invite.group(1).replace("&amp;", "&")
        refused = guest.join(url, "guest-friend")
        assert refused.status_code == 400
        assert "rated" in problem_of(refused.text)
        # the invitation's page sends a guest to sign in, and back to the invitation
        link = re.search(r'href="(/account\?next=[^"]+)" id="sign-in-link"', refused.text)
        assert link is not None
        account = guest.http.get(link.group(1).replace("&amp;", "&"))
        back = re.search(r'name="next" value="([^"]+)"', account.text)
        assert back is not None
        assert back.group(1).replace("&amp;", "&") == url.replace(live.url, "")
        # the host signed in elsewhere holds their own seat, not a second one
        assert same.account("eve", PASSWORD, new=False).status_code == 303
        joining = same.http.get(url.replace(live.url, ""))
        assert joining.status_code == 303
        assert joining.headers["location"] == f"/tables/{host.table}"
        assert same.http.get(f"/tables/{host.table}").status_code == 200
        friend = Seated(live.url)
        assert friend.account("fay", PASSWORD).status_code == 303
        assert friend.join(url, "fay").status_code == 303
        friend.listen()
        _, seat = friend.next("seat")
        assert seat["player"] == 1
        assert seat["match"]["players"][:2] == ["person:eve", "person:fay"]
        friend.close()
    finally:
        for seated in (host, guest, same):
            seated.close()


def test_a_registered_bot_at_a_rated_table_is_rated_against_people_only(
    live: Live, person: Seated
) -> None:
    (token,) = live.arena.tokens("rated-own-bot")
    bot = WaitingBot(live, "rated-own-bot", token)
    assert person.account("gus", PASSWORD).status_code == 303
    response = person.open("guandan", ("rated-own-bot", "random", "random"), extra={"rated": "1"})
    assert response.status_code == 303, response.text[:300]
    person.listen()
    result = person.play_out()
    assert result["rated"] is True
    assert bot.played().matches == 1
    pools = {r.variant for r in live.store.bot_ratings("rated-own-bot")}
    assert pools == {people_pool("guandan")}


def test_signing_in_as_another_account_takes_none_of_the_first_ones_seats(
    live: Live, person: Seated
) -> None:
    other = Seated(live.url)
    assert other.account("hal", PASSWORD).status_code == 303
    other.close()
    assert person.account("ida", PASSWORD).status_code == 303
    waiting = person.open("guandan", ("person", "random", "random"), extra={"rated": "1"})
    assert waiting.status_code == 303
    assert person.http.get(f"/tables/{person.table}").status_code == 200
    assert person.account("hal", PASSWORD, new=False).status_code == 303
    assert person.http.get(f"/tables/{person.table}").status_code == 403
    assert person.account("ida", PASSWORD, new=False).status_code == 303
    assert person.http.get(f"/tables/{person.table}").status_code == 200  # the account's seat
