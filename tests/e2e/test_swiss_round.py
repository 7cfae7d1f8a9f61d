"""End to end: registration, the Swiss start, negotiation, games read from Lichess, the next
round — all through the real command tree, the fake Lichess server and a fake clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from bot.clock import FakeClock
from bot.config import Config
from db.models import Match, MatchState, Player, Round
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID, add_player
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.running import RunningBot

PAIRINGS = 3100
NAMES = ["Ann", "Ben", "Cid", "Dee"]
DISCORD = {name: 700 + i for i, name in enumerate(NAMES)}


async def register(h: DiscordHarness, fake: FakeLichess, name: str) -> None:
    user = DISCORD[name]
    record = await h.slash("register", user=user, options={"lichess_username": name})
    code = record.text[record.text.index("`acwc-") + 1 :].split("`")[0]
    fake.set_profile(name, bio=code)
    verify = h.buttons(record.last)[0]["custom_id"]
    await h.press(verify, user=user, message=record.last)
    review = h.dms_to(TD_ID)[-1]
    approved = await h.press(h.buttons(review)[0]["custom_id"], user=TD_ID, message=review, dm=True)
    assert "approved" in approved.text


async def test_a_swiss_round_from_registration_to_the_next_pairing(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    cfg = config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )
    for index, name in enumerate(NAMES):
        add_player(fake, name, rating=2200 - 100 * index)
    async with running_bot(cfg) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for name in NAMES:
            h.add_member(DISCORD[name], name.lower())
            await register(h, fake, name)

        # Four players: a round robin of three rounds (a Swiss would need as many).
        # Registration is still open: the TD closes it from the refusal, then publishes.
        refusal = await h.slash("td round start", user=TD_ID)
        assert "Registration is still open" in refusal.text
        close = next(b for b in h.buttons(refusal.last) if b["label"].startswith("Close"))
        preview = await h.press(close["custom_id"], user=TD_ID, message=refusal.last)
        assert "Preview of Swiss round 1" in preview.text
        [field] = h.in_channel(ANNOUNCE_CHANNEL)
        assert "1. [Ann](<https://lichess.org/@/Ann>)" in field.text
        publish = next(b for b in h.buttons(preview.last) if b["label"] == "Publish round 1")
        await h.press(publish["custom_id"], user=TD_ID, message=preview.last)
        assert any("round 1 of 3 is out" in m.text for m in h.in_channel(ANNOUNCE_CHANNEL))

        clock.set(datetime(2019, 9, 30, 9, 0, tzinfo=UTC))
        async with bot.sessions() as session:
            matches = (await session.scalars(select(Match).order_by(Match.board))).all()
        real = [m for m in matches if m.player_b_id is not None]
        assert len(real) == 2
        start = datetime(2019, 9, 30, 18, 0, tzinfo=UTC)
        by_id = {}
        for match in real:
            async with bot.sessions() as session:
                a = await session.get(Player, match.player_a_id)
                b = await session.get(Player, match.player_b_id)
            assert a is not None and b is not None
            by_id[match.id] = (a, b)
            offer = await h.slash("offer", user=a.discord_id, options={"times": "2019-09-30 18:00"})
            assert offer.ephemeral, offer.text
            await bot.outbox.flush()
            # the offer's one copy: the match thread's post mentioning b, with Accept
            thread = h.in_channel(match.thread_id or 0)
            offered = thread[-1]
            assert f"<@{b.discord_id}>" in offered.text
            assert not [m for m in h.dms_to(b.discord_id) if "offers" in m.text]
            accepted = await h.press(
                h.buttons(offered)[0]["custom_id"], user=b.discord_id, message=offered
            )
            assert "18:00" in accepted.text

        # Match time: the game links are created, then the games come in from Lichess.
        clock.set(start + timedelta(minutes=1))
        await bot.svc.results.run_once()
        assert len(fake.challenges) == 2
        for a, b in by_id.values():
            for game in range(6):  # 6-0: the match stops at 5.5 (rule III.E.1)
                created = start + timedelta(minutes=2 + 12 * game)
                white, black = (a, b) if game % 2 == 0 else (b, a)
                fake.add_game(
                    white=white.lichess_username,
                    black=black.lichess_username,
                    created_at=created,
                    last_move_at=created + timedelta(minutes=10),
                    winner="white" if white is a else "black",
                    status="variantEnd",
                )
        clock.set(start + timedelta(hours=2))
        await bot.svc.results.run_once()
        await bot.deliver()

        async with bot.sessions() as session:
            decided = (await session.scalars(select(Match).where(Match.id.in_(list(by_id))))).all()
            rounds = (await session.scalars(select(Round).order_by(Round.number))).all()
        assert all(m.state is MatchState.FINISHED for m in decided)
        assert all((m.score_a, m.points_a) == (6.0, 1.0) for m in decided)
        assert [r.number for r in rounds] == [1, 2]  # paired as soon as round 1 was done
        # each round's post, and each match's thread: two boards a round (docs/MESSAGES.md)
        assert len(h.threads) == 2 * (1 + 2)
        standings = await h.slash("standings", user=DISCORD["Ann"])
        assert "Qualification standings" in standings.text
