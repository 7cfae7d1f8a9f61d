"""The setup checks when `acwc run` starts: what makes the bot useless stops the start, the
rest is logged and told to the TD alert channel once (not again at every restart)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

import discord
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config, Secrets
from bot.doctor.checks import CHECKS, Check, Setup, discord_lines, run_checks
from bot.doctor.lines import CheckLine
from bot.message_text import fit
from bot.outbox import enqueue_channel
from bot.startup import StartupRefused
from db.engine import transaction
from db.models import OutboxMessage

log = logging.getLogger(__name__)


async def check_at_start(
    client: discord.Client,
    config: Config,
    secrets: Secrets,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    *,
    checks: Sequence[Check] = CHECKS,
) -> list[CheckLine]:
    """Run every check for the logged-in `client`; raise StartupRefused on a fatal line that
    `/td setup` cannot fix. A fatal line it can fix (the pairings channel) does not stop the
    start: the caller sees it among the lines (`setup_needed`) and starts in setup mode."""
    lines = await run_checks(Setup(config, config.discord, secrets, client, clock.now()), checks)
    fatal = [line for line in lines if not line.ok and line.fatal and not line.setup]
    if fatal:
        raise StartupRefused(
            "The bot cannot start (`acwc doctor` shows every check): "
            + " | ".join(line.render() for line in fatal)
        )
    warnings = [line for line in lines if not line.ok and not line.setup]
    for line in setup_needed(lines):
        log.warning("setup mode: %s", line.render())
    for line in warnings:
        log.warning("setup: %s", line.render())
    channel_id = config.discord.td_alert_channel_id
    if warnings and channel_id is not None:
        await _tell_td_once(sessions, clock, channel_id, warnings)
    return lines


def setup_needed(lines: Sequence[CheckLine]) -> list[CheckLine]:
    """The lines that keep the bot in setup mode until `/td setup` fixes them."""
    return [line for line in lines if not line.ok and line.setup]


async def still_needs_setup(
    client: discord.Client, config: Config, secrets: Secrets, clock: Clock
) -> list[CheckLine]:
    """After a `/td setup` change: the Discord checks again, and what still needs setup."""
    lines = await run_checks(
        Setup(config, config.discord, secrets, client, clock.now()), (discord_lines,)
    )
    return setup_needed(lines)


def warnings_text(warnings: Sequence[CheckLine]) -> str:
    head = "The bot started, but its setup has problems (`acwc doctor` checks them again):"
    text = "\n".join([head, *(line.render() for line in warnings)])
    return fit(text)


async def _tell_td_once(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    channel_id: int,
    warnings: Sequence[CheckLine],
) -> None:
    """One message per distinct set of problems: a restart with the same ones sends none."""
    text = warnings_text(warnings)
    key = "setup-warnings:" + hashlib.sha256(text.encode()).hexdigest()[:40]
    async with transaction(sessions) as session:
        if await session.scalar(select(OutboxMessage.id).where(OutboxMessage.dedupe_key == key)):
            return
        enqueue_channel(session, channel_id=channel_id, now=clock.now(), content=text, key=key)
