"""The Lichess token, checked before `acwc run` starts the bot.

A token is optional: without one the bot reads Lichess anonymously and opens game links as
anonymous open challenges. With one, every request carries it, so a bad token breaks every
call: Lichess answers 401 to all of them when it is invalid (revoked, expired), and 403 to
opening a challenge when it lacks the `challenge:write` scope. Finding that out on match day
is too late, so the start asks Lichess (`POST /api/token/test`) and refuses to go on with
one line that says what to do.
"""

from __future__ import annotations

import asyncio

from bot.config import Config
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError
from bot.startup import StartupRefused

#: The scope opening a game link needs when the request carries a token.
CHALLENGE_SCOPE = "challenge:write"
TOKEN_PAGE = "https://lichess.org/account/oauth/token"


def token_problem(scopes: frozenset[str] | None, config: Config) -> str | None:
    """What is wrong with a token whose scopes Lichess gave (None: an invalid token)."""
    if scopes is None:
        return (
            "Lichess says LICHESS_TOKEN is invalid (revoked, expired or mistyped): create a "
            f"token at {TOKEN_PAGE} with the `{CHALLENGE_SCOPE}` scope and set LICHESS_TOKEN "
            "to it, or unset LICHESS_TOKEN to run without one"
        )
    if config.match_day.create_challenge and CHALLENGE_SCOPE not in scopes:
        have = ", ".join(sorted(scopes)) or "none"
        return (
            f"LICHESS_TOKEN lacks the `{CHALLENGE_SCOPE}` scope (it has: {have}), so the bot "
            f"could not open game links: create a token at {TOKEN_PAGE} with "
            f"`{CHALLENGE_SCOPE}` and set LICHESS_TOKEN to it, unset LICHESS_TOKEN, or set "
            "match_day.create_challenge to false"
        )
    return None


async def check_token(client: LichessClient, config: Config) -> None:
    """Raise StartupRefused when the client's token would fail the bot's calls."""
    try:
        scopes = await client.token_scopes()
    except LichessError as exc:
        raise StartupRefused(
            f"Could not check LICHESS_TOKEN with Lichess ({exc}); try again, or unset "
            "LICHESS_TOKEN to start without it"
        ) from None
    problem = token_problem(scopes, config)
    if problem:
        raise StartupRefused(problem)


def check_token_at_start(config: Config, token: str | None) -> None:
    """`acwc run`: check the token, if one is set; StartupRefused says what to do."""
    if not token:
        return

    async def run() -> None:
        client = LichessClient(
            base_url=config.lichess.base_url,
            token=token,
            timeout=config.lichess.timeout_seconds,
            rate_limit_pause=config.lichess.rate_limit_pause_seconds,
        )
        try:
            await check_token(client, config)
        finally:
            await client.aclose()

    asyncio.run(run())
