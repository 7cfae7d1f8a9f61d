"""Stage transitions through the real command tree: the TD's tie buttons, /withdraw mid-stage."""

from __future__ import annotations

from sqlalchemy import select

from bot.clock import FakeClock
from bot.config import Config
from db.models import AuditEntry, Match, MatchState, Player, Stage, StageKind
from tests.conftest import TD_ID
from tests.entrants import add_entrants
from tests.features.rounds.test_stages import HARNESS, NOW, game, one_round_swiss, play
from tests.running import RunningBot


async def test_the_td_breaks_a_drawn_tiebreak_with_a_button(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    clock.set(NOW)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        sessions, rounds = bot.sessions, bot.svc.rounds
        HARNESS[id(rounds)] = h
        await one_round_swiss(sessions, config)
        swiss = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 5, 5)}
        await play(rounds, sessions, StageKind.SWISS, swiss)
        await play(rounds, sessions, StageKind.TIEBREAK, game("Eve", "Fay", 5, 5))
        await bot.outbox.flush()
        ask = next(m for m in h.dms_to(TD_ID) if "leave to you" in m.text)
        buttons = {b["label"]: str(b["custom_id"]) for b in h.buttons(ask)}
        assert set(buttons) == {"Eve", "Fay"}

        async with sessions() as session:
            assert (
                await session.scalar(select(Stage).where(Stage.kind == StageKind.CANDIDATES))
                is None
            )

        pressed = await h.press(buttons["Fay"], user=TD_ID, message=ask, dm=True)
        assert pressed.ephemeral and "Fay goes through" in pressed.text, pressed.text
        async with sessions() as session:
            stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.CANDIDATES))
            assert stage is not None
            field = [
                (await session.get(Player, pid)).lichess_username  # type: ignore[union-attr]
                for pid in stage.seeding
            ]
        assert field == ["Ann", "Cid", "Fay", "Ogul1"]
        again = await h.press(buttons["Eve"], user=TD_ID, message=ask, dm=True)
        assert again.ephemeral and "no tie waiting" in again.text, again.text


async def test_withdraw_during_the_swiss_says_what_it_does_then_does_it(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    clock.set(NOW)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        players = await add_entrants(bot.sessions, clock, 4)
        await bot.svc.rounds.start(td_id=TD_ID)
        leaver = players[3]
        assert leaver.discord_id is not None
        h.add_member(leaver.discord_id, "p04")
        ask = await h.slash("withdraw", user=leaver.discord_id)
        assert ask.ephemeral and "rule VIII.A.1" in ask.text, ask.text
        async with bot.sessions() as session:
            mine = await session.scalar(
                select(Match).where(
                    (Match.player_a_id == leaver.id) | (Match.player_b_id == leaver.id)
                )
            )
            assert mine is not None and mine.state is MatchState.NEGOTIATING
        done = await h.press(
            str(h.buttons(ask)[0]["custom_id"]), user=leaver.discord_id, message=ask.last
        )
        assert "withdrawn" in done.text, done.text
        async with bot.sessions() as session:
            match = await session.get(Match, mine.id)
            gone = await session.get(Player, leaver.id)
        assert match is not None and match.state is MatchState.FORFEITED
        assert match.forfeit_winner_id not in (None, leaver.id)
        assert gone is not None and gone.withdrawn_at is not None
        # The opponent hears at once that they won, and why; the audit log says "withdrew".
        async with bot.sessions() as session:
            winner = await session.get(Player, match.forfeit_winner_id)
            reasons = [
                e.details.get("reason")
                for e in (await session.scalars(select(AuditEntry))).all()
                if e.action == "match_forfeited" and e.subject_id == match.id
            ]
        assert winner is not None and winner.discord_id is not None
        assert bot.outbox is not None
        await bot.outbox.flush()
        told = [m.text for m in h.dms_to(winner.discord_id) if "withdrew" in m.text]
        # the match by its place, not its row id (issue 32: this asserted "match {id}")
        place = f"(Swiss round 1, board {match.board})"
        assert len(told) == 1 and f"withdrew: you win your match against them {place}" in told[0]
        assert "(rule VIII.A.1)" in told[0]
        assert reasons == ["opponent withdrew (rule VIII.A.1)"], reasons
