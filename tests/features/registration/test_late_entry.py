"""Nobody enters once registration is closed or the qualification has started: /register
and the Verify button are refused with a message that says why and names the TD, and
nothing is recorded."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.clock import FakeClock
from db.models import OwnershipChallenge, Registration
from tests.conftest import TD_ID, add_player
from tests.entrants import add_entrants
from tests.fakes.lichess import FakeLichess
from tests.features.registration.test_cog import code_in
from tests.running import ALICE, BOB, RunningBot


async def count(bot: object, model: type) -> int:
    async with bot.sessions() as session:  # type: ignore[attr-defined]
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def test_register_and_verify_after_round_one_are_refused_naming_the_td(
    running_bot: RunningBot, fake: FakeLichess, clock: FakeClock
) -> None:
    add_player(fake, "Alice")
    add_player(fake, "Bob")
    async with running_bot() as (bot, h):
        await add_entrants(bot.sessions, clock, 4, close_registration=False)
        # Bob got his code while registration was open and verifies too late.
        started = await h.slash("register", user=BOB, options={"lichess_username": "Bob"})
        fake.set_profile("Bob", bio=code_in(started.text))
        refusal = await h.slash("td round start", user=TD_ID)
        preview = await h.press(
            refusal.last.buttons[0]["custom_id"], user=TD_ID, message=refusal.last
        )
        await h.press(preview.last.buttons[0]["custom_id"], user=TD_ID, message=preview.last)
        registrations = await count(bot, Registration)
        challenges = await count(bot, OwnershipChallenge)

        late = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert late.ephemeral
        assert "The qualification has started" in late.text
        assert "could never be paired" in late.text
        assert "write to the TD (<@900>)" in late.text
        assert "Welcome" not in late.text and "acwc-" not in late.text

        verify = next(b for b in started.last.buttons if b["label"] == "Verify")
        pressed = await h.press(verify["custom_id"], user=BOB, message=started.last)
        assert pressed.ephemeral
        assert "The qualification has started" in pressed.text and "<@900>" in pressed.text
        assert "verified" not in pressed.text

        assert await count(bot, Registration) == registrations == 4
        assert await count(bot, OwnershipChallenge) == challenges
        assert (await h.slash("status", user=BOB)).text.startswith("You have not registered")


async def test_verify_after_the_td_closed_registration_is_refused(
    running_bot: RunningBot, fake: FakeLichess, clock: FakeClock
) -> None:
    add_player(fake, "Bob")
    async with running_bot() as (bot, h):
        started = await h.slash("register", user=BOB, options={"lichess_username": "Bob"})
        fake.set_profile("Bob", bio=code_in(started.text))
        await h.slash("td registration close", user=TD_ID)
        closed_at = int(clock.now().timestamp())
        verify = next(b for b in started.last.buttons if b["label"] == "Verify")
        pressed = await h.press(verify["custom_id"], user=BOB, message=started.last)
        # The TD's close date, not the configured one (29 September, still to come).
        assert f"Registration closed on <t:{closed_at}:F>" in pressed.text
        assert "write to the TD (<@900>)" in pressed.text
        assert await count(bot, Registration) == 0
        again = await h.slash("register", user=BOB, options={"lichess_username": "Bob"})
        assert f"Registration closed on <t:{closed_at}:F>" in again.text


async def test_the_td_role_is_named_when_no_td_user_is_configured(
    running_bot: RunningBot, fake: FakeLichess, config, clock: FakeClock
) -> None:
    add_player(fake, "Alice")
    role_only = config.model_copy(
        update={"discord": config.discord.model_copy(update={"td_user_ids": ()})}
    )
    async with running_bot(role_only) as (_bot, h):
        await h.slash("td registration close", user=103)  # the deputy, by the TD role
        late = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "write to the TD (<@&2000>)" in late.text
