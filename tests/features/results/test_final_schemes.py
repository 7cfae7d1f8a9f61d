"""The Final under later editions' schemes, read game by game through the running bot: the
2022-2024 tiebreak games (a tie after 12, four more games, still tied: the Armageddon) and
the 2021 repeated weeks (a tied week of 12 is played again); and equal Armageddon bids under
2020-2024's rock-paper-scissors, whose winner the TD records."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from bot.clock import FakeClock
from bot.config import Config
from bot.format.model import FinalMatchStage
from bot.rules import final_schemes
from db.models import Match, MatchState, Setting
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.features.results.test_final import (
    CHALLENGER,
    CHAMPION,
    add_games,
    announced,
    final_match,
    state,
)
from tests.results_helpers import AGREED
from tests.running import RunningBot

BASE = (120, 5)


def with_final(config: Config, *, equal_bids: str | None = None, **final: Any) -> Config:
    """`config` with its final stage's settings changed (and the format's equal-bid rule)."""
    stages = tuple(
        stage.model_copy(update=final) if isinstance(stage, FinalMatchStage) else stage
        for stage in config.format.stages
    )
    update: dict[str, Any] = {"stages": stages}
    if equal_bids is not None:
        update["equal_bids"] = equal_bids
    fmt = type(config.format).model_validate({**config.format.model_dump(), **update})
    return config.model_copy(update={"format": fmt})


async def test_tiebreak_games_then_the_armageddon(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """6-6 after 12: four tiebreak games (2022-2024), 2-2 in them: the Armageddon, at the
    match's clock until then; the bids, the 3+0 link, and the Armageddon decides."""
    cfg = with_final(config, scheme="tiebreak_games", tiebreak_games=4)
    assert cfg.final_format().scheme is final_schemes.FinalScheme.TIEBREAK_GAMES
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()  # the game link
        sixteen = [1.0, 0.0] * 8  # 6-6 after 12, then 2-2 in the tiebreak games
        add_games(fake, sixteen, clocks=[BASE] * 16)
        clock.set(AGREED + timedelta(minutes=10 * 16 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.IN_PROGRESS and (match.score_a, match.score_b) == (8, 8)
        posts = [m.text for m in h.in_channel(ROUND_THREAD) if "👑 Final, game" in m.text]
        assert len(posts) == 16
        twelfth = posts[11]
        assert "Equal after 12 games: **4 tiebreak games** follow: games 13–16." in twelfth
        assert "Game 13 is **2+5**." in twelfth and "new game link" not in twelfth
        assert "rule III.G.3" not in twelfth  # no lead-by-two extension
        assert (
            f"👑 Final, game 14 (tiebreak game 2 of 4): **{CHAMPION}** 7–7 **{CHALLENGER}**; "
            "the tiebreak games 1–1." in posts[13]
        )
        last = posts[15]
        assert "Equal after 16 games: an **Armageddon** game decides the Final" in last
        assert "Game 17 is the Armageddon." in last
        assert len(fake.challenges) == 1  # one link for all sixteen games: one clock
        ask = next(m for m in h.dms_to(701) if "Armageddon" in m.text)
        assert "after 16 games" in ask.text and h.buttons(ask)[0]["label"] == "Bid for White"

        await bot.svc.bids.submit_bid(discord_id=701, match_id=match_id, text="2:30")
        await bot.svc.bids.submit_bid(discord_id=702, match_id=match_id, text="2:00")
        clock.set(AGREED + timedelta(minutes=10 * 17))
        await bot.svc.results.run_once()
        form = fake.challenges[-1]["form"]
        assert (form["clock.limit"], form["clock.increment"]) == ("180", "0")
        later = timedelta(minutes=10)  # after the reveal
        add_games(fake, [0.0], first=17, clocks=[(180, 0)], champion_white=False, after=later)
        clock.set(AGREED + timedelta(minutes=10 * 18 + 5))
        await bot.svc.results.run_once()
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.FINISHED and (match.points_a, match.points_b) == (0, 1)
        assert any(f"**{CHALLENGER}** is the" in p for p in await announced(bot.sessions))
        table = await bot.svc.tables.standings()
        assert table.rows[-2][1] == "Armageddon"
        assert "Games 1–12: 6-6; tiebreak games 13–16: 2-2." in table.footnote


async def test_a_tied_week_is_played_again(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """2021: 6-6 in week 1, the week is played again; 7-5 in week 2 decides it."""
    cfg = with_final(config, scheme="week_repeats", weeks=3)
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()
        week_1 = [1.0, 0.0] * 6
        add_games(fake, week_1, clocks=[BASE] * 12)
        clock.set(AGREED + timedelta(minutes=10 * 12 + 5))
        await bot.svc.results.run_once()
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.IN_PROGRESS and (match.score_a, match.score_b) == (6, 6)
        week_2 = [1.0, 0.0] * 5 + [1.0, 1.0]
        add_games(fake, week_2, first=13, clocks=[BASE] * 12)
        clock.set(AGREED + timedelta(minutes=10 * 24 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)
        posts = [m.text for m in h.in_channel(ROUND_THREAD) if "👑 Final, game" in m.text]
        twelfth = next(p for p in posts if "👑 Final, game 12:" in p)
        assert (
            "Equal after week 1: the week is **played again** as week 2: games 13–24. Whoever "
            "scores more in week 2 wins the Final; still equal after it, week 3 follows"
        ) in twelfth, twelfth
        assert twelfth.startswith("<@701> <@702>")  # a change of the match notifies both
        fourteenth = next(p for p in posts if "👑 Final, game 14 " in p)
        assert (
            f"(week 2, game 2 of 12): **{CHAMPION}** 1–1 **{CHALLENGER}** this week; 7–7 over "
            "all games." in fourteenth
        )
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.FINISHED and (match.points_a, match.points_b) == (1, 0)
        assert any(f"**{CHAMPION}** is the" in p for p in await announced(bot.sessions))
        assert len(fake.challenges) == 1
        table = await bot.svc.tables.standings()
        assert "Week 1 (games 1–12): 6-6; Week 2 (games 13–24): 7-5." in table.footnote


async def test_equal_bids_go_to_rock_paper_scissors_recorded_by_the_td(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """2020-2024: equal bids, a game of rock-paper-scissors; the TD's button records the
    winner (a second press changes nothing and says so), who plays White."""
    cfg = with_final(config, equal_bids="rock_paper_scissors", scheme="tiebreak_games")
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()
        add_games(fake, [1.0, 0.0] * 8, clocks=[BASE] * 16)
        clock.set(AGREED + timedelta(minutes=10 * 16 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)
        ask = next(m for m in h.dms_to(702) if "Armageddon" in m.text)
        assert "equal bids: you play a game of rock-paper-scissors" in ask.text, ask.text

        # the TD's command before any equal bids: refused, nothing recorded
        early = await h.slash("td armageddon rps", user=TD_ID, options={"winner": CHALLENGER})
        assert early.ephemeral and "No Armageddon is waiting" in early.text, early.text

        for user_id in (701, 702):
            await bot.svc.bids.submit_bid(discord_id=user_id, match_id=match_id, text="2:00")
        await bot.outbox.flush(limit=None)
        equal = next(m for m in h.in_channel(ROUND_THREAD) if "Armageddon bids:" in m.text)
        assert "the bids are **equal**" in equal.text and "rock-paper-scissors" in equal.text
        assert equal.text.startswith("<@701> <@702>")
        links = len(fake.challenges)
        clock.set(AGREED + timedelta(minutes=10 * 16 + 10))
        await bot.svc.results.run_once()
        assert len(fake.challenges) == links  # no link before White is known

        td_ask = next(m for m in h.dms_to(TD_ID) if "rock-paper-scissors" in m.text)
        buttons = {b["label"]: str(b["custom_id"]) for b in h.buttons(td_ask)}
        assert set(buttons) == {f"{CHAMPION} won", f"{CHALLENGER} won"}
        assert all(c.startswith("acwc:armageddon-rps:") for c in buttons.values())

        async def white_recorded() -> str | None:
            assert bot.sessions is not None
            async with bot.sessions() as session:
                row = await session.get(Setting, f"armageddon:{match_id}")
                assert row is not None
                return str(row.value)

        before = await white_recorded()
        bad = await h.slash("td armageddon rps", user=TD_ID, options={"winner": "nobody"})
        assert bad.ephemeral and "`nobody` is not one of the two finalists" in bad.text, bad.text
        assert await white_recorded() == before

        pressed = await h.press(buttons[f"{CHALLENGER} won"], user=TD_ID, message=td_ask, dm=True)
        assert pressed.ephemeral and f"Recorded: **{CHALLENGER}** won" in pressed.text
        again = await h.press(buttons[f"{CHAMPION} won"], user=TD_ID, message=td_ask, dm=True)
        assert again.ephemeral and again.text == (
            f"Already recorded: **{CHALLENGER}** plays White. Nothing changed."
        )
        await bot.outbox.flush(limit=None)
        reveal = [
            m.text
            for m in h.in_channel(ROUND_THREAD)
            if "Armageddon bids:" in m.text and "plays White (" in m.text
        ]
        assert len(reveal) == 1
        assert (
            f"**{CHALLENGER}** plays White (equal bids: {CHALLENGER} won rock-paper-scissors)"
            in reveal[0]
        ), reveal[0]
        clock.set(AGREED + timedelta(minutes=10 * 17))
        await bot.svc.results.run_once()
        form = fake.challenges[-1]["form"]
        assert (form["clock.limit"], form["clock.increment"]) == ("180", "0")
        assert form["users"] == f"{CHALLENGER.lower()},{CHAMPION}"  # White first
        async with bot.sessions() as session:
            match = await session.scalar(select(Match).where(Match.id == match_id))
            assert match is not None and match.state is MatchState.IN_PROGRESS


async def test_equal_bids_in_2019_still_give_white_to_the_previous_champion(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """The default format's rule is unchanged: no rock-paper-scissors, no TD buttons."""
    cfg = with_final(config, scheme="tiebreak_games", tiebreak_games=0)
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()
        add_games(fake, [1.0, 0.0] * 6, clocks=[BASE] * 12)
        clock.set(AGREED + timedelta(minutes=10 * 12 + 5))
        await bot.svc.results.run_once()
        for user_id in (701, 702):
            await bot.svc.bids.submit_bid(discord_id=user_id, match_id=match_id, text="1:30")
        await bot.outbox.flush(limit=None)
        reveal = next(m for m in h.in_channel(ROUND_THREAD) if "Armageddon bids:" in m.text)
        assert f"**{CHAMPION}** plays White (equal bids: the previous champion)" in reveal.text
        assert not [m for m in h.dms_to(TD_ID) if "rock-paper-scissors" in m.text]
