"""How the fake Lichess misbehaves on request: errors, slowness, stalls, cut-off streams.

The fake server (:mod:`acwc_sim.fake_lichess`) inherits these controls; tests and the
simulation's faults use them to show that the bot survives a real Lichess's bad days.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Misbehaviour:
    """The pending faults of the fake server, each used up by the requests it hits."""

    def __init__(self) -> None:
        self._failures: list[list[Any]] = []  # [prefix, status, remaining]
        self._stalls: list[list[Any]] = []  # [prefix, seconds, remaining]
        self._stalling = 0  # requests being kept waiting right now
        self._truncations: list[list[Any]] = []  # [prefix, remaining]
        self._truncating: set[int] = set()  # id() of the requests to cut off, while they run
        self._delay = 0.0
        self._down = False

    def fail_next(self, path_prefix: str, status: int, times: int = 1) -> None:
        """Answer the next ``times`` requests whose path starts with ``path_prefix``
        with HTTP ``status``."""
        self._failures.append([path_prefix, status, times])

    def stall_next(self, path_prefix: str, seconds: float, times: int = 1) -> None:
        """Keep the next ``times`` matching requests waiting ``seconds`` (real time) before
        answering: longer than the client's timeout, that is a Lichess timeout."""
        self._stalls.append([path_prefix, seconds, times])

    def truncate_next(self, path_prefix: str, times: int = 1) -> None:
        """Cut the next ``times`` matching ndjson streams off in the middle of a line and
        drop the connection, as a Lichess restart or a network failure does."""
        self._truncations.append([path_prefix, times])

    @staticmethod
    def _take(pending: list[list[Any]], path: str) -> list[Any] | None:
        """The first pending control for `path`, used up by one."""
        for control in pending:
            if control[-1] > 0 and path.startswith(control[0]):
                control[-1] -= 1
                return control
        return None

    def set_delay(self, seconds: float) -> None:
        """Wait ``seconds`` before answering each request."""
        self._delay = seconds

    def set_down(self, down: bool) -> None:
        """While down, every request is answered 503."""
        self._down = down

    async def _stalled(self, request: web.Request, seconds: float) -> bool:
        """Wait `seconds`, as an overloaded Lichess does; False if the client hung up first
        (then the request is over for both sides, as it is for a real server)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        self._stalling += 1
        try:
            while loop.time() < until:
                if request.transport is None or request.transport.is_closing():
                    return False
                await asyncio.sleep(0.02)
            return True
        finally:
            self._stalling -= 1

    async def _answer_or_fail(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self._down:
            return web.json_response({"error": "Service Unavailable"}, status=503)
        failure = self._take(self._failures, request.path)
        if failure is not None:
            return web.json_response({"error": f"fake failure {failure[1]}"}, status=failure[1])
        if self._take(self._truncations, request.path) is not None:
            self._truncating.add(id(request))
        return await handler(request)
