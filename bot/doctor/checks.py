"""The list of every setup check, and running it.

A check is one async function from `Setup` to its lines; adding a line to `acwc doctor`,
`acwc run` and `/td setup` at once is adding one function to `CHECKS`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import discord
from sqlalchemy import make_url, text
from sqlalchemy.exc import SQLAlchemyError

from bot.config import Config, DiscordConfig, Secrets
from bot.doctor.discord_checks import PORTAL, check_discord
from bot.doctor.edition import championship_started, edition_problems
from bot.doctor.lines import CheckLine, failed, passed
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError
from bot.lichess_token import token_problem
from db import schema
from db.engine import make_engine


@dataclass(frozen=True)
class Setup:
    """What the checks look at: the config, the effective Discord settings (the config's, or
    what a TD set with /td setup), the secrets, and a client logged in with the token (None
    when there is no valid token: the Discord checks are then left out)."""

    config: Config
    discord_config: DiscordConfig
    secrets: Secrets
    client: discord.Client | None
    now: datetime | None = None  # the clock's time; None: the system's


Check = Callable[[Setup], Awaitable[list[CheckLine]]]


async def discord_lines(setup: Setup) -> list[CheckLine]:
    if setup.client is None:
        return []
    needed = setup.config.fair_play.flag_public_accusations
    return await check_discord(setup.client, setup.discord_config, message_content=needed)


async def database_lines(setup: Setup) -> list[CheckLine]:
    """The database answers (`acwc run` stops without it, so a line that says it does not is
    fatal) and is at the latest schema, or behind it: `acwc run` migrates it at every start,
    so a fresh install's empty database passes, with what will happen and how to do it now."""
    title = "Database"
    url = setup.config.database.url
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database or "").parent
        if not folder.is_dir():
            detail = f"the folder of the SQLite file, {folder}, does not exist."
            fix = "create it, or change database.url / DATABASE_URL."
            return [failed(title, detail, fix, fatal=True)]
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as error:  # the URL may hold a password: not shown
        detail = f"cannot be reached ({type(error).__name__})."
        fix = "check database.url / DATABASE_URL and the server."
        return [failed(title, detail, fix, fatal=True)]
    finally:
        await engine.dispose()
    current, head = await schema.current_revision(url), await schema.head_revision()
    if current != head:
        detail = (
            f"reachable, at schema {current or 'none (empty: a fresh install)'}; `acwc run` "
            f"migrates it to the latest ({head}) when it starts, or run `acwc db upgrade` now."
        )
        return [passed(title, detail)]
    return [passed(title, f"reachable and at the latest schema ({head}).")]


async def lichess_lines(setup: Setup) -> list[CheckLine]:
    """The Lichess token, if one is set, is valid and has the scopes the config needs."""
    title = "Lichess token"
    token = setup.secrets.lichess_token
    if not token:
        detail = "not set: the bot reads Lichess anonymously (a token gives higher rate limits)."
        return [passed(title, detail)]
    lichess = setup.config.lichess
    client = LichessClient(
        base_url=lichess.base_url,
        token=token,
        timeout=lichess.timeout_seconds,
        rate_limit_pause=lichess.rate_limit_pause_seconds,
    )
    try:
        scopes = await client.token_scopes()
    except LichessError as error:
        detail = f"Lichess could not be asked ({error})."
        return [failed(title, detail, "check the network and run again.", fatal=True)]
    finally:
        await client.aclose()
    problem = token_problem(scopes, setup.config)
    if problem:
        return [failed(title, "refused.", problem + ".", fatal=True)]
    return [passed(title, f"valid, with the scopes {', '.join(sorted(scopes or ())) or 'none'}.")]


# In the order they are printed.
async def edition_lines(setup: Setup) -> list[CheckLine]:
    """The configuration is this year's edition (bot.doctor.edition)."""
    now = setup.now or datetime.now(UTC)
    started = await championship_started(setup.config.database.url)
    return edition_problems(setup.config, now, started=started)


CHECKS: tuple[Check, ...] = (discord_lines, lichess_lines, database_lines, edition_lines)


async def run_checks(setup: Setup, checks: Sequence[Check] = CHECKS) -> list[CheckLine]:
    lines: list[CheckLine] = []
    for check in checks:
        lines += await check(setup)
    return lines


async def log_in(client: discord.Client, token: str | None) -> CheckLine:
    """Log `client` in over REST (no gateway): the token line of the report."""
    title = "Discord token"
    if not token:
        fix = f"export DISCORD_TOKEN with the token from {PORTAL} → your app → Bot."
        return failed(title, "DISCORD_TOKEN is not set.", fix, fatal=True)
    try:
        data = await client.http.static_login(token.strip())
    except discord.LoginFailure:
        fix = f"reset it in {PORTAL} → your app → Bot → Reset Token, and export the new one."
        return failed(title, "the token is invalid (Discord answered 401).", fix, fatal=True)
    except (discord.HTTPException, aiohttp.ClientError, OSError) as error:
        detail = f"Discord could not be asked ({type(error).__name__}: {error})."
        return failed(title, detail, "check the network and run again.", fatal=True)
    client._connection.user = discord.ClientUser(state=client._connection, data=data)
    user = client._connection.user
    return passed(title, f"valid: logged in as {user.name} (application id {user.id}).")
