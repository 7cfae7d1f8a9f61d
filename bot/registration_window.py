"""Whether registration is open, and whether the qualification has started.

Read by the registration feature (who may still enter) and by the rounds feature (round 1
waits until registration is closed), so it lives in the core: the configured window
(`registration.opens_at` to `closes_at`) unless the TD opened or closed it by hand (the
`registration_override` setting, written by `/td registration open|close`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.config import Config
from db.models import Setting, Stage

WINDOW_OVERRIDE_KEY = "registration_override"


@dataclass(frozen=True)
class WindowState:
    """The registration window as it stands now."""

    is_open: bool
    override: str | None  # "open", "closed" or None when the configured window decides
    opens_at: datetime
    closes_at: datetime
    # When it closed (the TD's close, else the configured close); None while open or not
    # yet opened.
    closed_at: datetime | None = None


async def read_window(session: AsyncSession, config: Config, now: datetime) -> WindowState:
    """The TD's override wins over the configured window."""
    setting = await session.get(Setting, WINDOW_OVERRIDE_KEY)
    reg = config.registration
    override = setting.value if setting else None
    closed_at: datetime | None = None
    if override is None:
        is_open = reg.opens_at <= now < reg.closes_at
        if now >= reg.closes_at:
            closed_at = reg.closes_at
    else:
        is_open = override == "open"
        if not is_open and setting is not None:
            closed_at = setting.updated_at
    return WindowState(is_open, override, reg.opens_at, reg.closes_at, closed_at)


async def swiss_stage(session: AsyncSession, config: Config) -> Stage | None:
    """The qualification, once round 1 is published (the Swiss stage is created with it, in
    one transaction); None before. The row of the format's Swiss (`bot.stage_kinds`)."""
    return await stage_kinds.swiss_row(session, config.format)


def td_named(config: Config) -> str:
    """The TD as a mention (users, else the role): for ephemeral replies, so no one is
    pinged, but the player sees whom to write to."""
    users = [f"<@{user_id}>" for user_id in config.discord.td_user_ids]
    if users:
        return " or ".join(users)
    if config.discord.td_role_id is not None:
        return f"<@&{config.discord.td_role_id}>"
    return "the tournament director"
