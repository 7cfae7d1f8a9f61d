"""/td registration list with hundreds of entrants: the list is split over as many messages as
Discord's limits need (6,000 characters of embeds per message), and nobody is left out."""

from __future__ import annotations

from datetime import UTC, datetime

from db.engine import transaction
from db.models import Player, Registration, RegistrationState
from tests.conftest import TD_ID
from tests.running import RunningBot

NOW = datetime(2019, 9, 10, 12, 0, tzinfo=UTC)
ENTRANTS = 500


async def test_five_hundred_registrations_are_all_listed(running_bot: RunningBot) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:
            for i in range(ENTRANTS):
                player = Player(
                    lichess_id=f"entrant_number_{i:03d}",
                    lichess_username=f"Entrant_Number_{i:03d}",
                    discord_id=70_000 + i,
                    created_at=NOW,
                )
                session.add(player)
                await session.flush()
                session.add(
                    Registration(
                        player_id=player.id,
                        state=RegistrationState.APPROVED,
                        problems=[],
                        evidence={},
                        seeding_rating=2500.0 - i,
                        created_at=NOW,
                        updated_at=NOW,
                    )
                )
        listing = await h.slash("td registration list", user=TD_ID)
        assert listing.errors == [] and len(listing.responses) > 1
        assert all(r.ephemeral for r in listing.responses)
        text = "\n".join(r.text for r in listing.responses)
        assert "Something went wrong" not in text
        assert all(f"Entrant_Number_{i:03d}" in text for i in range(ENTRANTS))
        assert text.index("Entrant_Number_000") < text.index("Entrant_Number_499")
