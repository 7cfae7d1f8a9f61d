"""Incidents (rule VI) through the real command tree, the due actions and the outbox."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from db.engine import transaction
from db.models import Match, MatchState, Player
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.running import ALICE, BOB, RunningBot

CAROL, DAVE = 104, 105
AGREED = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


async def setup(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, clock: FakeClock, fake: FakeLichess
) -> SeededRound:
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_member(CAROL, "carol")
    h.add_member(DAVE, "dave")
    for name in ("Alice", "Bob", "Carol", "Dave"):
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    assert bot.sessions is not None
    seeded = await seed_round(
        bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )
    async with transaction(bot.sessions) as session:
        for match_id in seeded.match_ids:
            m = await session.get(Match, match_id)
            assert m is not None
            m.agreed_time, m.state = AGREED, MatchState.SCHEDULED
    clock.set(AGREED + timedelta(minutes=2))
    return seeded


async def tick(bot: ChampionshipBot) -> None:
    assert bot.due is not None and bot.outbox is not None
    await bot.due.sweep()
    await bot.outbox.flush()


async def get_match(sessions: async_sessionmaker[AsyncSession] | None, ident: int) -> Match:
    assert sessions is not None
    async with sessions() as session:
        m = await session.get(Match, ident)
        assert m is not None
        return m


async def test_noshow_to_claim_through_buttons_and_td_overrule(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup(bot, h, config, clock, fake)
        carol = await h.slash("noshow", user=CAROL)  # Carol's match is another one
        assert carol.ephemeral
        rec = await h.slash("noshow", user=ALICE)
        assert rec.ephemeral and "tournament director has been told" in rec.text, rec.text
        assert any("first message" in m.text for m in h.dms_to(TD_ID))
        assert any("not shown up" in m.text for m in h.dms_to(BOB))

        clock.advance(timedelta(minutes=10))
        await tick(bot)
        question = h.dms_to(ALICE)[-1]
        labels = [b["label"] for b in h.buttons(question)]
        assert labels == ["Still absent", "They are here"]
        absent_id = str(h.buttons(question)[0]["custom_id"])
        assert absent_id.startswith("acwc:inc:absent:")

        pressed = await h.press(absent_id, user=ALICE, message=question, dm=True)
        assert pressed.ephemeral and "Claim the win" in pressed.text, pressed.text
        assert any("second message" in m.text for m in h.dms_to(TD_ID))
        choice = h.buttons(pressed)
        assert [b["label"] for b in choice] == ["Claim the win", "Reschedule"]

        claimed = await h.press(str(choice[0]["custom_id"]), user=ALICE, dm=True)
        assert claimed.ephemeral and "by forfeit" in claimed.text, claimed.text
        m = await get_match(bot.sessions, seeded.match_ids[0])
        assert m.state is MatchState.FORFEITED
        incident_id = int(absent_id.rsplit(":", 1)[1])

        refused = await h.slash(
            "td incident overrule", user=ALICE, options={"incident": incident_id, "reason": "no"}
        )
        assert refused.ephemeral
        assert (await get_match(bot.sessions, seeded.match_ids[0])).state is MatchState.FORFEITED
        done = await h.slash(
            "td incident overrule", user=TD_ID, options={"incident": incident_id, "reason": "lag"}
        )
        assert done.ephemeral and "overruled" in done.text, done.text
        m = await get_match(bot.sessions, seeded.match_ids[0])
        assert m.state is MatchState.NEGOTIATING
        # each told once: Bob, the accused, by the DM withdrawing the claim against him; Alice
        # by the thread's record of the ruling, which mentions her
        bob = [x.text for x in h.dms_to(BOB) if "overruled" in x.text]
        assert len(bob) == 1 and "against you" in bob[0] and "is withdrawn" in bob[0], bob
        said = "overruled the no-show claim by Alice against Bob"  # no row id (issue 32)
        ruling = [x.text for x in h.in_channel(ROUND_THREAD) if said in x.text]
        assert len(ruling) == 1 and f"<@{ALICE}>" in ruling[0] and f"<@{BOB}>" not in ruling[0]
        assert not [x for x in h.dms_to(ALICE) if "overruled" in x.text]


async def test_noshow_runs_rule_vi_d_two_clocks(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """A claim at 18:05 for an 18:00 match: Bob must start by 18:10 (the grace runs from the
    match time), and Alice's second message is due at 18:15 (10 minutes after her first)."""
    async with running_bot() as (bot, h):
        await setup(bot, h, config, clock, fake)
        clock.set(AGREED + timedelta(minutes=5))
        rec = await h.slash("noshow", user=ALICE)
        assert rec.ephemeral and "until <t:" in rec.text, rec.text
        assert "(2019-10-02 18:10 UTC) to come online" in rec.text, rec.text
        assert "At <t:" in rec.text and "(2019-10-02 18:15 UTC) I will ask you" in rec.text
        warned = h.dms_to(BOB)[-1].text
        assert "start the game by" in warned and "(2019-10-02 18:10 UTC)" in warned, warned
        assert "18:15" not in warned
        first = [m.text for m in h.dms_to(TD_ID) if "first message" in m.text]
        assert len(first) == 1 and "grace period runs until" in first[0], first
        assert "(2019-10-02 18:10 UTC)" in first[0]

        clock.set(AGREED + timedelta(minutes=10))  # Bob's grace is over, the wait is not
        await tick(bot)
        assert not any(h.buttons(m) for m in h.dms_to(ALICE))
        clock.set(AGREED + timedelta(minutes=15))
        await tick(bot)
        question = h.dms_to(ALICE)[-1]
        assert "still absent" in question.text, question.text
        assert [b["label"] for b in h.buttons(question)] == ["Still absent", "They are here"]


async def test_a_late_noshow_claim_tells_the_absent_player_their_grace_is_over(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """A claim at 18:25: the grace ended at 18:10 whatever the claim's time; Bob is told
    to start now and when the claim can be made, Alice is asked at 18:35."""
    async with running_bot() as (bot, h):
        await setup(bot, h, config, clock, fake)
        clock.set(AGREED + timedelta(minutes=25))
        rec = await h.slash("noshow", user=ALICE)
        assert "(2019-10-02 18:10 UTC) to come online; that grace period is over" in rec.text
        warned = h.dms_to(BOB)[-1].text
        assert "grace period ended at" in warned and "(2019-10-02 18:10 UTC)" in warned, warned
        assert "start the game now" in warned and "(2019-10-02 18:35 UTC)" in warned, warned
        clock.set(AGREED + timedelta(minutes=34))
        await tick(bot)
        assert not any(h.buttons(m) for m in h.dms_to(ALICE))
        clock.set(AGREED + timedelta(minutes=35))
        await tick(bot)
        assert [b["label"] for b in h.buttons(h.dms_to(ALICE)[-1])] == [
            "Still absent",
            "They are here",
        ]


async def test_break_and_left_through_commands(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup(bot, h, config, clock, fake)
        rec = await h.slash("break", user=BOB)
        assert rec.ephemeral and "break has started" in rec.text, rec.text
        again = await h.slash("break", user=BOB)
        assert again.ephemeral and "already used your break" in again.text
        clock.advance(timedelta(minutes=10))
        await tick(bot)
        over = [m.text for m in h.in_channel(ROUND_THREAD) if "break is over" in m.text]
        assert len(over) == 1 and f"<@{ALICE}>" in over[0] and f"<@{BOB}>" in over[0]
        assert not [m for m in h.dms_to(ALICE) if "break is over" in m.text]  # one copy

        clock.advance(timedelta(minutes=20))
        left = await h.slash("left", user=ALICE)
        assert left.ephemeral and "come back" in left.text, left.text
        assert any("already used their break" in m.text for m in h.dms_to(TD_ID))
        clock.advance(timedelta(minutes=10))
        await tick(bot)
        offer = h.dms_to(ALICE)[-1]
        assert [b["label"] for b in h.buttons(offer)] == ["Claim the win"]
        claimed = await h.press(
            str(h.buttons(offer)[0]["custom_id"]), user=ALICE, message=offer, dm=True
        )
        assert "by forfeit" in claimed.text, claimed.text
        m = await get_match(bot.sessions, seeded.match_ids[0])
        assert m.state is MatchState.FORFEITED


async def test_td_disqualify_and_reinstate(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup(bot, h, config, clock, fake)
        no = await h.slash(
            "td discipline disqualify",
            user=ALICE,
            options={"player": "Bob", "reason": "x", "engine": True},
        )
        assert no.ephemeral
        rec = await h.slash(
            "td discipline disqualify",
            user=TD_ID,
            options={"player": "Bob", "reason": "engine", "engine": True},
        )
        assert rec.ephemeral and "disqualified" in rec.text, rec.text
        assert bot.sessions is not None
        async with bot.sessions() as session:
            bob = await session.get(Player, seeded.player_ids["Bob"])
            assert bob is not None and bob.disqualified_at is not None
        back = await h.slash("td discipline reinstate", user=TD_ID, options={"player": "bob"})
        assert back.ephemeral and "reinstated" in back.text, back.text
        unknown = await h.slash("td discipline reinstate", user=TD_ID, options={"player": "nobody"})
        assert unknown.ephemeral and "no player" in unknown.text
