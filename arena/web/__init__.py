"""The web face: leaderboards, bots, tournaments, matches, the drawn card table (replays
and live), balance reports, in Chinese and English.

It reads only through :mod:`arena.web.viewer`, which calls the same viewer-safe
operations as the gRPC Spectate and Leaderboard services; it never opens a second path
to hidden cards.
"""
