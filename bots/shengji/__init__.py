"""The Shengji heuristic's parts: memory of the deal, card values, and one module per
kind of decision (declaring, burying, leading, following)."""
