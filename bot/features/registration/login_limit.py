"""The login's rate limit (issue 33: "the OAuth endpoints rate-limited"): a token bucket per
client address, in memory. A person needs two requests per login (the link, Lichess's
redirect back), so a bucket of `BURST` refilled at `PER_MINUTE` a minute never stops one,
and stops a script guessing links or replaying callbacks after a few tries. It lives in
the process: a restart empties it, which costs an attacker nothing they could not get by
waiting a minute.

The address is the connection's, or, when that is the loopback (the reverse proxy on the
same machine: `web.host` is 127.0.0.1 by default), the last `X-Forwarded-For` entry, the
one the proxy itself wrote; entries before it come from the client and are not believed.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

BURST = 10
PER_MINUTE = 10.0
#: Addresses remembered at most; the least recently seen is forgotten first (memory stays
#: bounded whatever the number of addresses that knock).
MAX_ADDRESSES = 10_000


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimit:
    """`allow(address)` takes one token of that address's bucket, if it has one."""

    def __init__(
        self,
        burst: int = BURST,
        per_minute: float = PER_MINUTE,
        *,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self.now = now
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def allow(self, address: str) -> bool:
        now = self.now()
        bucket = self._buckets.pop(address, None) or _Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        self._buckets[address] = bucket
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def retry_after(self) -> int:
        """Whole seconds until one token is back."""
        return max(1, round(1 / self.rate))


def client_address(request: web.Request) -> str:
    """Who is asking, as far as can be believed (see the module's docstring)."""
    peer = request.remote or ""
    try:
        loopback = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        loopback = False
    forwarded = request.headers.get("X-Forwarded-For", "")
    if loopback and forwarded.strip():
        return forwarded.split(",")[-1].strip()
    return peer
