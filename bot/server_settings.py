"""The server's channels and TD role, set from Discord with `/td setup`, over the config file.

Which one wins: **a value set with `/td setup` wins over the config file**; choosing "use the
config file" for it drops the Discord value and the file's applies again. The TD sets up the
server where they see it, and a wrong id in a file never silently beats what they picked.
The guild and the TD user ids stay in the config file (the guild is where the bot runs; a
TD user id is what lets the first TD in).

The values live in the settings table (`discord:<field>`) and are applied to the running
bot's `config.discord`, the one object every service reads, so a change takes effect at once
and again at every start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import DiscordConfig
from db.engine import transaction
from db.models import Setting

PREFIX = "discord:"
Field = Literal[
    "announcement_channel_id", "pairings_channel_id", "td_alert_channel_id", "td_role_id"
]
FIELDS: tuple[Field, ...] = (
    "announcement_channel_id",
    "pairings_channel_id",
    "td_alert_channel_id",
    "td_role_id",
)
LABELS: dict[Field, str] = {
    "announcement_channel_id": "Announcements channel",
    "pairings_channel_id": "Pairings channel",
    "td_alert_channel_id": "TD alerts channel",
    "td_role_id": "TD role",
}
Source = Literal["discord", "config", "unset"]


@dataclass(frozen=True)
class SettingValue:
    """One setting as the bot uses it, and where it comes from."""

    field: Field
    value: int | None
    source: Source
    file_value: int | None  # what the config file says (shown when Discord overrides it)


class ServerSettings:
    """Reads, changes and applies the settings `/td setup` owns."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Clock, live: DiscordConfig
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.live = live  # the running bot's config.discord: changed in place
        self.file_values: dict[Field, int | None] = {f: getattr(live, f) for f in FIELDS}
        self.overrides: dict[Field, int] = {}

    async def load(self) -> None:
        """At start-up: apply what was set with /td setup over the config file."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(select(Setting).where(Setting.key.startswith(PREFIX)))
            ).all()
        stored = {row.key.removeprefix(PREFIX): int(row.value) for row in rows}
        self.overrides = {f: stored[f] for f in FIELDS if f in stored}
        self._apply()

    def current(self) -> list[SettingValue]:
        """Every setting with its value and its source, in the order /td setup shows them."""
        values = []
        for f in FIELDS:
            if f in self.overrides:
                values.append(SettingValue(f, self.overrides[f], "discord", self.file_values[f]))
            else:
                file_value = self.file_values[f]
                source: Source = "config" if file_value is not None else "unset"
                values.append(SettingValue(f, file_value, source, file_value))
        return values

    async def set(self, field: Field, value: int | None, *, td_id: int) -> SettingValue:
        """Set `field` from Discord, or with None go back to the config file's value."""
        now = self.clock.now()
        key = PREFIX + field
        async with transaction(self.sessions) as session:
            await session.execute(delete(Setting).where(Setting.key == key))
            if value is not None:
                session.add(Setting(key=key, value=str(value), updated_at=now))
            record(
                session,
                at=now,
                actor=Actor.td(td_id),
                action="server_setting",
                subject_type="settings",
                subject_id=None,
                details={"setting": field, "value": value, "from": "discord" if value else "file"},
            )
        if value is None:
            self.overrides.pop(field, None)
        else:
            self.overrides[field] = value
        self._apply()
        return next(v for v in self.current() if v.field == field)

    def _apply(self) -> None:
        for value in self.current():
            setattr(self.live, value.field, value.value)
