"""Other platforms' bot protocols in front of the arena's seats: convert at the edge,
decide nothing."""
