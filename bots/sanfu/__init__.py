"""The parts of the sanfu heuristic (:mod:`bots.sanfu_bot`): the hand's plan of
combinations, what the seat knows, the rules for leading and for following, and
the step from a chosen play to a legal action."""
