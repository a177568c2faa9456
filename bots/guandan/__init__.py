"""The Guandan heuristic strategy, in small parts.

* :mod:`bots.guandan.partition` — split a hand into the combinations that shed it
  in the fewest plays (bombs kept aside, the wild card where it helps most);
* :mod:`bots.guandan.view` — what the observation says about the table and the players;
* :mod:`bots.guandan.decide` — the rules of thumb that choose a tribute, a return,
  a lead or a follow.

:class:`bots.guandan_bot.GuandanHeuristic` puts them together.
"""
