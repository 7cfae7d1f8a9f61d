"""`acwc doctor` and `acwc invite-url`: log in over REST only (no gateway), run the checks,
print them and the invite URL."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import discord

from bot.config import Config, Secrets
from bot.doctor.checks import CHECKS, Setup, log_in, run_checks
from bot.doctor.lines import render_report
from bot.doctor.permissions import (
    BOT_PERMISSIONS,
    SCOPES,
    application_id_from_token,
    invite_url,
)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
NO_APPLICATION_ID = (
    "The invite URL needs the application id: set DISCORD_TOKEN to the bot's token (it "
    "carries the id), or pass --client-id ID (the Application ID on the Developer Portal's "
    "General Information page)."
)


@asynccontextmanager
async def rest_client() -> AsyncIterator[discord.Client]:
    """A client that is never connected to the gateway, closed afterwards."""
    client = discord.Client(intents=discord.Intents.none())
    try:
        yield client
    finally:
        await client.close()


ClientFactory = Callable[[], AbstractAsyncContextManager[discord.Client]]


def invite_line(application_id: int) -> str:
    scopes = ", ".join(SCOPES)
    return f"Invite URL (scopes {scopes}; permissions {BOT_PERMISSIONS.value}): " + invite_url(
        application_id
    )


async def doctor(
    config: Config, secrets: Secrets, *, client_id: int | None, connect: ClientFactory | None = None
) -> int:
    """Print every check and the invite URL; 0 when every line passed, 1 otherwise."""
    async with (connect or rest_client)() as client:
        token_line = await log_in(client, secrets.discord_token)
        logged_in = client if token_line.ok else None
        setup = Setup(config, config.discord, secrets, logged_in)
        lines = [token_line, *await run_checks(setup, CHECKS)]
        application_id = logged_in.user.id if logged_in and logged_in.user else client_id
    if application_id is None:  # Discord out of reach: the token itself carries the id
        application_id = application_id_from_token(secrets.discord_token)
    print(render_report(lines))
    print(invite_line(application_id) if application_id else NO_APPLICATION_ID)
    return EXIT_OK if all(line.ok for line in lines) else EXIT_FAILURE


async def invite(
    secrets: Secrets, *, client_id: int | None, connect: ClientFactory | None = None
) -> int:
    """Print only the invite URL: for `--client-id`, or for the token's application (read
    from the token itself when it carries the id, else by logging in)."""
    if client_id is None:
        client_id = application_id_from_token(secrets.discord_token)
    if client_id is None and not secrets.discord_token:
        print(NO_APPLICATION_ID, file=sys.stderr)
        return EXIT_USAGE
    if client_id is None:
        async with (connect or rest_client)() as client:
            token_line = await log_in(client, secrets.discord_token)
            if not token_line.ok or client.user is None:
                print(token_line.render(), file=sys.stderr)
                return EXIT_FAILURE
            client_id = client.user.id
    print(invite_url(client_id))
    return EXIT_OK
