"""Generated package (see arena._proto)."""
