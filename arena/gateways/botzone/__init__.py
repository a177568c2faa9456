"""Botzone's Tractor (升级) bots as seats: ``arena bot run --botzone "CMD"``.

:mod:`~arena.gateways.botzone.cards` numbers cards as Botzone does,
:mod:`~arena.gateways.botzone.view` turns a seat's observations into Botzone's requests
and its responses into actions, :mod:`~arena.gateways.botzone.bot` runs the program in
Botzone's simple or long-running mode.
"""

from arena.gateways.botzone.bot import KEEP_RUNNING, BotzoneBot

__all__ = ["KEEP_RUNNING", "BotzoneBot"]
