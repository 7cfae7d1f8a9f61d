"""The fake Lichess's tokens and open challenges, as the API reference and lila have them.

* Tokens: a request with ``Authorization: Bearer <token>`` whose token the fake does not
  know (never made, revoked, expired) is answered **401** on every endpoint. Opening a
  challenge with a token that lacks ``challenge:write`` is answered **403**; without any
  token it is allowed (the endpoint needs none). ``POST /api/token/test`` (text body, tokens
  separated by commas) answers ``{token: {"userId", "scopes", "expires"} | null}``.
* ``POST /api/challenge/open``: ``users`` is two usernames, comma-separated, and **the first
  gets White**; ``clock.limit`` is one of Lichess's clock limits (0, 15, 30, 45, 60, 90 s,
  then whole minutes up to 180), ``clock.increment`` 0 to 60, both or neither; ``rated``
  needs a clock; an unknown variant is refused. Refusals are 400 with ``{"error": ...}``.
  The answer has the fields ``ChallengeOpenJson`` requires, ``open.userIds`` included.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable
from typing import Any

from aiohttp import web

from acwc_sim.lichess_games import speed_of

#: The clock limits (seconds) Lichess accepts for a real-time game.
CLOCK_LIMITS = frozenset({0, 15, 30, 45, 60, 90, *range(120, 180 * 60 + 1, 60)})
MAX_INCREMENT = 60
VARIANTS = {
    "standard": "Standard",
    "chess960": "Chess960",
    "crazyhouse": "Crazyhouse",
    "antichess": "Antichess",
    "atomic": "Atomic",
    "horde": "Horde",
    "kingOfTheHill": "King of the Hill",
    "racingKings": "Racing Kings",
    "threeCheck": "Three-check",
    "fromPosition": "From Position",
}


def _error(message: str, status: int) -> web.Response:
    return web.json_response({"error": message}, status=status)


class LichessAccess:
    """Tokens with their scopes, and open challenges with their colours."""

    users: dict[str, dict[str, Any]]
    seed: int | None
    keep_requests: bool
    challenges: list[dict[str, Any]]
    time_source: Callable[[], float]

    def _init_access(self) -> None:
        self.tokens: dict[str, tuple[str, frozenset[str]]] = {}  # token -> (user id, scopes)
        # Who gets White on each open challenge (challenge id -> (white, black)), kept even
        # with `keep_requests` off: two names per game link.
        self.challenge_colours_by_id: dict[str, tuple[str, str]] = {}
        #: fields of every challenge answer replaced (a test of a downgraded challenge)
        self.challenge_answer_changes: dict[str, Any] = {}

    # ----------------------------------------------------------------- setup API

    def add_token(self, token: str, *, user: str = "acwcbot", scopes: tuple[str, ...] = ()) -> None:
        """A token Lichess knows, with its scopes (`challenge:write` to open challenges)."""
        self.tokens[token] = (user.lower(), frozenset(scopes))

    def revoke_token(self, token: str) -> None:
        """The token stops working: every request that carries it gets 401."""
        self.tokens.pop(token, None)

    def challenge_colours(self, url_or_id: str) -> tuple[str, str] | None:
        """(White, Black) of an open challenge this fake created, by its id or URL."""
        cid = url_or_id.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
        return self.challenge_colours_by_id.get(cid)

    # ----------------------------------------------------------------- checks

    def _bearer(self, request: web.Request) -> str | None:
        header = request.headers.get("Authorization", "")
        return header[len("Bearer ") :].strip() if header.startswith("Bearer ") else None

    def auth_refusal(self, request: web.Request) -> web.Response | None:
        """401 for a request that carries a token Lichess does not know."""
        token = self._bearer(request)
        if token is not None and token not in self.tokens:
            return _error("No such token", 401)
        return None

    # ----------------------------------------------------------------- handlers

    async def _token_test(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        answer: dict[str, Any] = {}
        for token in (t.strip() for t in text.split(",")):
            if not token:
                continue
            known = self.tokens.get(token)
            answer[token] = (
                None
                if known is None
                else {"userId": known[0], "scopes": ",".join(sorted(known[1])), "expires": None}
            )
        return web.json_response(answer)

    async def _open_challenge(self, request: web.Request) -> web.StreamResponse:
        token = self._bearer(request)
        if token is not None and "challenge:write" not in self.tokens[token][1]:
            return _error("Missing scope: challenge:write", 403)
        form = await request.post()
        fields = {k: str(v) for k, v in form.items()}
        refused = self._challenge_problem(fields)
        if refused:
            return _error(refused, 400)
        cid = self.challenge_id(fields)
        url = f"https://lichess.org/{cid}"
        variant = fields.get("variant", "standard")
        rated = fields.get("rated", "false").lower() == "true"
        names = [n.strip() for n in fields["users"].split(",")] if "users" in fields else []
        if names:
            self.challenge_colours_by_id[cid] = (names[0], names[1])
        clock: tuple[int, int] | None = None
        if "clock.limit" in fields:
            clock = (int(fields["clock.limit"]), int(fields["clock.increment"]))
        speed = speed_of(clock)
        challenge: dict[str, Any] = {
            "id": cid,
            "url": url,
            "status": "created",
            "challenger": None,
            "destUser": None,
            "variant": {"key": variant, "name": VARIANTS[variant], "short": variant[:3]},
            "rated": rated,
            "speed": speed,
            "timeControl": (
                {
                    "type": "clock",
                    "limit": clock[0],
                    "increment": clock[1],
                    "show": f"{clock[0] / 60:g}+{clock[1]}",
                }
                if clock is not None
                else {"type": "unlimited"}
            ),
            "color": "random",
            "finalColor": "white",
            "perf": {"icon": "", "name": VARIANTS[variant] if variant != "standard" else speed},
            "open": {"userIds": [n.lower() for n in names]} if names else {},
            "urlWhite": f"{url}?color=white",
            "urlBlack": f"{url}?color=black",
        }
        challenge.update(self.challenge_answer_changes)
        if self.keep_requests:
            self.challenges.append({**challenge, "form": fields})
        return web.json_response(challenge)

    def _challenge_problem(self, fields: dict[str, str]) -> str | None:
        """Why Lichess would refuse this challenge form, or None."""
        if "users" in fields:
            names = [n.strip() for n in fields["users"].split(",")]
            if len(names) != 2 or not all(names) or names[0].lower() == names[1].lower():
                return "users: two different usernames, separated by a comma"
            unknown = [n for n in names if n.lower() not in self.users]
            if unknown:
                return f"users: no such user {unknown[0]}"
        if fields.get("variant", "standard") not in VARIANTS:
            return "variant: unknown variant"
        has_limit, has_increment = "clock.limit" in fields, "clock.increment" in fields
        if has_limit != has_increment:
            return "clock: give clock.limit and clock.increment together"
        if has_limit:
            try:
                limit, increment = int(fields["clock.limit"]), int(fields["clock.increment"])
            except ValueError:
                return "clock: whole seconds"
            if limit not in CLOCK_LIMITS:
                return f"clock.limit: {limit} is not an allowed clock"
            if not 0 <= increment <= MAX_INCREMENT:
                return f"clock.increment: at most {MAX_INCREMENT}"
            if limit == 0 and increment == 0:
                return "clock: 0+0 is not a clock"
        elif fields.get("rated", "false").lower() == "true":
            return "rated: a rated game needs a clock"
        return None

    def challenge_id(self, fields: dict[str, str]) -> str:
        """The same challenge asked for at the same moment gets the same id, in this process
        or in one restarted after a kill."""
        key = json.dumps([self.seed, sorted(fields.items()), self.time_source()])
        digest = hashlib.sha256(key.encode()).digest()
        alphabet = string.ascii_letters + string.digits
        return "".join(alphabet[b % len(alphabet)] for b in digest[:8])
