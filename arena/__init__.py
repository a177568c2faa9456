"""arena: bots play Chinese partnership card games against each other.

Rules engines (``arena.games``), a match driver with records and replays
(``arena.match``, ``arena.replay``) and the ``arena`` command line.
"""

from arena.compiled import install

install()  # first: the engine modules imported below load compiled when current

from arena.cards import Card, format_cards, parse_cards, pretty_cards
from arena.errors import ArenaError, ConfigError, IllegalActionError, ParseError
from arena.games import Action, Game, Observation, Outcome, State, make
from arena.match import MatchResult, Policy, play_deal, play_match
from arena.replay import MatchRecord, verify

__all__ = [
    "Action",
    "ArenaError",
    "Card",
    "ConfigError",
    "Game",
    "IllegalActionError",
    "MatchRecord",
    "MatchResult",
    "Observation",
    "Outcome",
    "ParseError",
    "Policy",
    "State",
    "format_cards",
    "make",
    "parse_cards",
    "play_deal",
    "play_match",
    "pretty_cards",
    "verify",
]

__version__ = "0.1.0"
