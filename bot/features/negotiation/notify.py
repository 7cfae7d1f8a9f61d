"""A player's reminders (/notify): the match reminders before an agreed time (a mention in
the match's thread) and the DM about an offer unanswered for a day can be muted. They only
repeat what the player was already told; decisions that concern the player (a forfeit, a TD
ruling, a choice that binds them) are not reminders and always reach them (docs/MESSAGES.md)."""

from __future__ import annotations

from bot.audit import Actor, record
from bot.features.matches.context import player_by_discord
from bot.features.negotiation.types import ReminderSetting
from bot.service import Service
from db.engine import transaction
from db.models import Player


def wants_reminders(player: Player) -> bool:
    """Whether `player` gets reminder DMs (they did not mute them with /notify)."""
    return not player.reminders_muted


class PlayerNotifications(Service):
    """/notify: turn the player's reminder DMs on or off."""

    async def set_reminders(self, *, discord_id: int, on: bool) -> ReminderSetting:
        """Store the choice; saying the same twice changes nothing but is answered."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            was_on = not player.reminders_muted
            player.reminders_muted = not on
            if was_on != on:
                record(
                    session,
                    at=now,
                    actor=Actor.player(discord_id),
                    action="reminders_set",
                    subject_type="player",
                    subject_id=player.id,
                    details={"reminders": "on" if on else "off"},
                )
        return ReminderSetting(on=on, changed=was_on != on)
