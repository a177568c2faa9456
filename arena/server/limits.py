"""Rate limits: a token bucket per connection (messages) and per owner (registrations)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["RateLimit"]


class RateLimit:
    """A token bucket: ``rate`` events per second on average, bursts up to ``burst``."""

    def __init__(
        self, rate: float, burst: float, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._now = now
        self._tokens = burst
        self._at = now()

    def allow(self) -> bool:
        """Take one token if there is one."""
        now = self._now()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
