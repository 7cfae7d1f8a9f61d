"""A player's own time zone (/timezone): the zone /offer, /reschedule and /choose read
their times in when they give none. The rules record UTC (rule V.B), and every reply shows
the UTC time beside the Discord timestamp, so a zone only changes how a time is typed."""

from __future__ import annotations

from datetime import UTC, datetime, time

from bot.audit import Actor, record
from bot.errors import InvalidInput
from bot.features.matches.context import player_by_discord
from bot.features.negotiation import text as wording
from bot.features.negotiation.types import ZoneSetting
from bot.rules.timeinput import TimeInputError, available_zone_names, zone_named
from bot.service import Service
from db.engine import transaction

#: Most zone names offered while the player types (Discord shows at most 25).
ZONE_SUGGESTIONS = 25


class PlayerZones(Service):
    """/timezone: save, change or clear (UTC) the player's zone."""

    async def set_time_zone(self, *, discord_id: int, zone: str) -> ZoneSetting:
        """Save the zone; a name the tz database does not know changes nothing."""
        now = self.clock.now()
        try:
            found = zone_named(zone)
        except TimeInputError as exc:
            raise InvalidInput(wording.bad_zone(exc.message)) from None
        name = None if found.key == "UTC" else found.key
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            previous = player.time_zone
            player.time_zone = name
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="time_zone_set",
                subject_type="player",
                subject_id=player.id,
                details={"zone": name, "previous": previous},
            )
        day = now.astimezone(found).date()
        example = datetime.combine(day, time(18, 0), tzinfo=found).astimezone(UTC)
        return ZoneSetting(name, previous, example)

    def zone_suggestions(self, typed: str) -> list[str]:
        """Zone names containing what the player typed so far (any case), shortest first."""
        needle = typed.strip().lower()
        names = [n for n in available_zone_names() if needle in n.lower()]
        return sorted(names, key=lambda n: (len(n), n))[:ZONE_SUGGESTIONS]
