"""Knock-out and final matches each played by their own stage's match format
(`Config.match_format`), read game by game through the running bot: a Semifinal of the
2021-2024 format (10 games, over at 5.5, a tie goes to the Armageddon), a Grand Final and a
Third Place Playoff running at once under `tiebreak_games` (4 and 2 tiebreak games), equal
Armageddon bids in a Final the previous champion does not play (the TD's rock-paper-scissors).
The stage rows are built as the stage flow makes them: one KNOCKOUT row with one round and a
match per pairing (`board` = the pairing's number), one FINAL row per final-match stage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, with_preset
from bot.rules import final_schemes
from bot.rules.final import FINAL_2019, FinalFormat, FinalScheme
from db.engine import transaction
from db.models import (
    Match,
    MatchState,
    Player,
    Round,
    RoundState,
    Setting,
    Stage,
    StageKind,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_DEADLINE, ROUND_START
from tests.fakes.lichess import FakeLichess
from tests.features.results.test_final import state
from tests.results_helpers import AGREED
from tests.running import RunningBot

BASE = (120, 5)
THREADS = {1: 4101, 2: 4102}  # a thread per match


def edition(config: Config, preset: str = "acwc-2024", **format_changes: Any) -> Config:
    """`config` (the test server's) running the format and players of `preset`."""
    other = Config.model_validate(with_preset({"preset": preset}))
    fmt = other.format
    if format_changes:
        fmt = type(fmt).model_validate({**fmt.model_dump(), **format_changes})
    return config.model_copy(update={"format": fmt, "players": other.players})


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    discord_a: int
    discord_b: int


async def stage_with_matches(
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    config: Config,
    *,
    kind: StageKind,
    key: str,
    pairs: Sequence[Pair],
    threads: Sequence[int],
) -> list[int]:
    """A running stage row of the format stage `key` with one round; each pair a match
    (agreed for AGREED, in a thread of its own); a FINAL row per final-match stage has one."""
    spec = config.format.stage(key)
    async with transaction(sessions) as session:
        players = []
        for pair in pairs:
            for name, discord_id in ((pair.a, pair.discord_a), (pair.b, pair.discord_b)):
                player = Player(
                    lichess_id=name.lower(),
                    lichess_username=name,
                    discord_id=discord_id,
                    created_at=ROUND_START,
                )
                players.append(player)
        session.add_all(players)
        await session.flush()
        stage = Stage(
            kind=kind,
            key=key,
            name=spec.name,
            position=config.format.keys().index(key),
            state=StageState.RUNNING,
            total_rounds=1,
            seeding=[p.id for p in players],
            started_at=ROUND_START,
        )
        session.add(stage)
        await session.flush()
        round_ = Round(
            stage_id=stage.id,
            number=1,
            state=RoundState.PUBLISHED,
            starts_at=ROUND_START,
            deadline=ROUND_DEADLINE + timedelta(days=90),
            published_at=ROUND_START,
        )
        session.add(round_)
        await session.flush()
        ids = []
        for n, thread in enumerate(threads):
            match = Match(
                round_id=round_.id,
                board=n + 1,
                player_a_id=players[2 * n].id,
                player_b_id=players[2 * n + 1].id,
                state=MatchState.SCHEDULED,
                agreed_time=AGREED,
                td_assigns=False,
                score_a=0.0,
                score_b=0.0,
                thread_id=thread,
            )
            session.add(match)
            await session.flush()
            ids.append(match.id)
    for pair in pairs:
        for name in (pair.a, pair.b):
            fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    return ids


def games(
    fake: FakeLichess,
    a: str,
    b: str,
    results: Sequence[float],
    *,
    first: int = 1,
    clock: tuple[int, int] = BASE,
    a_white: bool | None = None,
    after: timedelta = timedelta(0),
) -> None:
    """Games `first`.. between a and b with a's results, colours alternating."""
    for offset, result in enumerate(results):
        number = first + offset
        white_a = number % 2 == 1 if a_white is None else a_white
        white, black = (a, b) if white_a else (b, a)
        if result == 0.5:
            winner, status = None, "draw"
        else:
            winner = "white" if (result == 1.0) == white_a else "black"
            status = "variantEnd"
        created = AGREED + timedelta(minutes=2 + 10 * (number - 1)) + after
        fake.add_game(
            white=white,
            black=black,
            created_at=created,
            last_move_at=created + timedelta(minutes=8),
            winner=winner,
            status=status,
            clock=clock,
        )


async def armageddon_state(sessions: async_sessionmaker[AsyncSession], match_id: int) -> str:
    async with sessions() as session:
        row = await session.get(Setting, f"armageddon:{match_id}")
        return "" if row is None else str(row.value)


SEMI_1 = Pair("Upper1", "Lower2", 801, 802)
SEMI_2 = Pair("Lower1", "Upper2", 803, 804)


async def test_a_semifinal_tied_5_5_goes_to_the_armageddon(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """2021-2024 Semifinals: Semifinal 2 is over at 5.5 (its result can no longer change);
    Semifinal 1, 5-5 after 10 games, goes to the Armageddon (no tiebreak games), with bids
    as the Final's, named "Semifinal 1" in every post; the Armageddon decides it."""
    cfg = edition(config)
    semis = cfg.match_format("semifinals")
    assert (semis.scheme, semis.base_games, semis.tiebreak_games) == (
        FinalScheme.TIEBREAK_GAMES,
        10,
        0,
    )
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        for thread in THREADS.values():
            h.add_text_channel(thread, f"semifinal-{thread}")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for pair in (SEMI_1, SEMI_2):
            h.add_member(pair.discord_a, pair.a)
            h.add_member(pair.discord_b, pair.b)
        one, two = await stage_with_matches(
            bot.sessions, fake, cfg, kind=StageKind.KNOCKOUT, key="semifinals",
            pairs=[SEMI_1, SEMI_2], threads=[THREADS[1], THREADS[2]],
        )  # fmt: skip
        await bot.svc.results.run_once()  # the game links
        games(fake, SEMI_2.a, SEMI_2.b, [1.0] * 5 + [0.5])  # 5.5-0.5: over
        games(fake, SEMI_1.a, SEMI_1.b, [1.0, 0.0] * 5)  # 5-5
        clock.set(AGREED + timedelta(minutes=10 * 10 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)

        decided = await state(bot.sessions, two)
        assert decided.state is MatchState.FINISHED
        assert (decided.score_a, decided.score_b, decided.points_a) == (5.5, 0.5, 1.0)
        tied = await state(bot.sessions, one)
        assert tied.state is MatchState.IN_PROGRESS and (tied.score_a, tied.score_b) == (5, 5)

        posts = [m.text for m in h.in_channel(THREADS[1]) if "👑" in m.text]
        assert len(posts) == 1, posts  # a knock-out match: only the game that changed it
        assert posts[0].startswith(
            f"👑 Semifinal 1, game 10: **{SEMI_1.a}** 5–5 **{SEMI_1.b}**. Equal after 10 "
            "games: an **Armageddon** game decides the Semifinal 1"
        ), posts[0]
        assert not [m for m in h.in_channel(THREADS[2]) if "👑" in m.text]
        ask = next(m for m in h.dms_to(SEMI_1.discord_a) if "Armageddon" in m.text)
        assert ask.text.startswith("⚖️ The Semifinal 1 is equal after 10 games"), ask.text
        assert "rock-paper-scissors" in ask.text  # 2024's equal bids
        assert h.buttons(ask)[0]["label"] == "Bid for White"

        await bot.svc.bids.submit_bid(discord_id=SEMI_1.discord_a, match_id=one, text="2:30")
        await bot.svc.bids.submit_bid(discord_id=SEMI_1.discord_b, match_id=one, text="2:00")
        clock.set(AGREED + timedelta(minutes=10 * 11))
        await bot.svc.results.run_once()
        form = fake.challenges[-1]["form"]
        assert (form["clock.limit"], form["clock.increment"]) == ("180", "0")
        assert form["users"] == f"{SEMI_1.b.lower()},{SEMI_1.a.lower()}"  # the lower bid White
        await bot.outbox.flush(limit=None)
        td_note = next(m for m in h.dms_to(TD_ID) if "bids revealed" in m.text)
        # the match by its name, no database id (issue 32)
        assert td_note.text.startswith("⚖️ Semifinal 1: Armageddon bids revealed"), td_note.text

        # a draw in the Armageddon is a win for Black (draw odds): side a
        games(fake, SEMI_1.a, SEMI_1.b, [0.5], first=11, clock=(180, 0), a_white=False,
              after=timedelta(minutes=10))  # fmt: skip
        clock.set(AGREED + timedelta(minutes=10 * 12 + 5))
        await bot.svc.results.run_once()
        match = await state(bot.sessions, one)
        assert match.state is MatchState.FINISHED
        assert (match.score_a, match.score_b, match.points_a, match.points_b) == (5.5, 5.5, 1, 0)


GRAND = Pair("Winner1", "Winner2", 811, 812)
THIRD = Pair("Loser1", "Loser2", 813, 814)


async def test_grand_final_and_third_place_playoff_at_once(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """2022-2024: the Grand Final (4 tiebreak games) and the Third Place Playoff (2) run at
    once, each by its own format and with its own name: 6-6 in both; the Grand Final is won
    in its tiebreak games, the Third Place Playoff goes on to the Armageddon, where equal
    bids wait for the TD's rock-paper-scissors winner, given with the match."""
    cfg = edition(config)
    assert cfg.match_format("grand_final").tiebreak_games == 4
    assert cfg.match_format("third_place").tiebreak_games == 2
    assert cfg.final_format() == cfg.match_format("grand_final")
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        for thread in THREADS.values():
            h.add_text_channel(thread, f"final-{thread}")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for pair in (GRAND, THIRD):
            h.add_member(pair.discord_a, pair.a)
            h.add_member(pair.discord_b, pair.b)
        (grand,) = await stage_with_matches(
            bot.sessions,
            fake,
            cfg,
            kind=StageKind.FINAL,
            key="grand_final",
            pairs=[GRAND],
            threads=[THREADS[1]],
        )
        (third,) = await stage_with_matches(
            bot.sessions,
            fake,
            cfg,
            kind=StageKind.FINAL,
            key="third_place",
            pairs=[THIRD],
            threads=[THREADS[2]],
        )
        await bot.svc.results.run_once()
        games(fake, GRAND.a, GRAND.b, [1.0, 0.0] * 6 + [1.0, 1.0, 0.5])  # 6-6, then 2.5-0.5
        games(fake, THIRD.a, THIRD.b, [1.0, 0.0] * 7)  # 6-6, then 1-1
        clock.set(AGREED + timedelta(minutes=10 * 15 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)

        won = await state(bot.sessions, grand)
        assert won.state is MatchState.FINISHED  # 2.5 of 4 tiebreak games: cannot change
        assert (won.score_a, won.score_b, won.points_a) == (8.5, 6.5, 1.0)
        grand_posts = [m.text for m in h.in_channel(THREADS[1]) if "👑" in m.text]
        assert grand_posts[0].startswith("👑 Grand Final, game 1: ")
        twelfth = next(p for p in grand_posts if "👑 Grand Final, game 12:" in p)
        assert "Equal after 12 games: **4 tiebreak games** follow: games 13–16." in twelfth
        assert "wins the Grand Final" in twelfth
        assert any("(tiebreak game 2 of 4)" in p for p in grand_posts)

        level = await state(bot.sessions, third)
        assert level.state is MatchState.IN_PROGRESS and (level.score_a, level.score_b) == (7, 7)
        third_posts = [m.text for m in h.in_channel(THREADS[2]) if "👑" in m.text]
        assert all(p.startswith(("👑 Third Place Playoff", "<@")) for p in third_posts)
        twelfth = next(p for p in third_posts if "👑 Third Place Playoff, game 12:" in p)
        assert "Equal after 12 games: **2 tiebreak games** follow: games 13–14." in twelfth
        last = next(p for p in third_posts if "👑 Third Place Playoff, game 14 " in p)
        assert "an **Armageddon** game decides the Third Place Playoff" in last
        assert not [m for m in h.dms_to(GRAND.discord_a) if "Bid for White" in str(m.text)]
        ask = next(m for m in h.dms_to(THIRD.discord_a) if "Armageddon" in m.text)
        assert ask.text.startswith("⚖️ The Third Place Playoff is equal after 14 games")

        for user_id in (THIRD.discord_a, THIRD.discord_b):
            await bot.svc.bids.submit_bid(discord_id=user_id, match_id=third, text="2:00")
        await bot.outbox.flush(limit=None)
        td_ask = next(m for m in h.dms_to(TD_ID) if "rock-paper-scissors" in m.text)
        # the match by its name and players; the command needs no match (no row id: issue 32)
        third_place = f"⚖️ Third Place Playoff ({THIRD.a} vs {THIRD.b}):"
        assert td_ask.text.startswith(third_place), td_ask.text
        assert "/td armageddon rps winner:<player>" in td_ask.text

        offered = await h.autocomplete("td armageddon rps", user=TD_ID, option="match", current="")
        assert [(c["name"], c["value"]) for c in offered] == [
            (f"Third Place Playoff: {THIRD.a} vs {THIRD.b}", third)
        ], offered
        before = await armageddon_state(bot.sessions, third)
        wrong = await h.slash(
            "td armageddon rps", user=TD_ID, options={"winner": THIRD.b, "match": grand}
        )
        assert wrong.ephemeral and "No Armageddon is waiting" in wrong.text, wrong.text
        assert await armageddon_state(bot.sessions, third) == before
        done = await h.slash(
            "td armageddon rps", user=TD_ID, options={"winner": THIRD.b, "match": third}
        )
        assert done.ephemeral and f"Recorded: **{THIRD.b}** won" in done.text, done.text
        clock.set(AGREED + timedelta(minutes=10 * 16))
        await bot.svc.results.run_once()
        form = fake.challenges[-1]["form"]
        assert (form["clock.limit"], form["clock.increment"]) == ("180", "0")
        assert form["users"] == f"{THIRD.b.lower()},{THIRD.a.lower()}"


REPLACEMENT = Pair("Runnerup", "Candwin", 821, 822)


async def test_equal_bids_without_the_previous_champion_go_to_the_td(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """2019 (`previous_champion`): equal bids in a Final the previous champion does not play
    (replaced, rule VIII.C) give White to no one by themselves: the TD records the
    rock-paper-scissors winner with the buttons (the rules are silent)."""
    cfg = with_final_scheme(config)
    clock.set(AGREED)
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(THREADS[1], "final")
        for user_id, name in ((821, REPLACEMENT.a), (822, REPLACEMENT.b)):
            h.add_member(user_id, name)
        (final,) = await stage_with_matches(
            bot.sessions,
            fake,
            cfg,
            kind=StageKind.FINAL,
            key="final",
            pairs=[REPLACEMENT],
            threads=[THREADS[1]],
        )
        await bot.svc.results.run_once()
        games(fake, REPLACEMENT.a, REPLACEMENT.b, [1.0, 0.0] * 6)
        clock.set(AGREED + timedelta(minutes=10 * 12 + 5))
        await bot.svc.results.run_once()
        for user_id in (821, 822):
            await bot.svc.bids.submit_bid(discord_id=user_id, match_id=final, text="1:30")
        await bot.outbox.flush(limit=None)
        equal = next(m for m in h.in_channel(THREADS[1]) if "Armageddon bids:" in m.text)
        assert "the bids are **equal**. Neither of you is the previous champion" in equal.text
        td_ask = next(m for m in h.dms_to(TD_ID) if "rock-paper-scissors" in m.text)
        assert td_ask.text.startswith("⚖️ Final ("), td_ask.text  # no row id (issue 32)
        buttons = {b["label"]: str(b["custom_id"]) for b in h.buttons(td_ask)}
        pressed = await h.press(
            buttons[f"{REPLACEMENT.b} won"], user=TD_ID, message=td_ask, dm=True
        )
        assert pressed.ephemeral and f"Recorded: **{REPLACEMENT.b}** won" in pressed.text
        await bot.outbox.flush(limit=None)
        reveal = [
            m.text
            for m in h.in_channel(THREADS[1])
            if "Armageddon bids:" in m.text and "plays White (" in m.text
        ]
        assert len(reveal) == 1 and (
            f"**{REPLACEMENT.b}** plays White (equal bids: {REPLACEMENT.b} won "
            "rock-paper-scissors)" in reveal[0]
        ), reveal


def with_final_scheme(config: Config) -> Config:
    """The 2019 format with a Final that reaches the Armageddon after 12 games."""
    stages = tuple(
        stage.model_copy(update={"scheme": "tiebreak_games", "tiebreak_games": 0})
        if stage.kind == "final_match"
        else stage
        for stage in config.format.stages
    )
    fmt = type(config.format).model_validate({**config.format.model_dump(), "stages": stages})
    return config.model_copy(update={"format": fmt})


def shape(fmt: FinalFormat) -> tuple[object, ...]:
    """What decides a match of each scheme (the other scheme's fields are unused)."""
    if fmt.scheme is FinalScheme.LEAD_BY_TWO:
        return (fmt.scheme, fmt.base_games, fmt.lead, fmt.lead_rule_games, fmt.armageddon_after)
    if fmt.scheme is FinalScheme.WEEK_REPEATS:
        return (fmt.scheme, fmt.base_games, fmt.weeks)
    return (fmt.scheme, fmt.base_games, fmt.tiebreak_games)


def test_each_match_stage_has_its_match_format() -> None:
    """`Config.match_format` by stage key: a knock-out's 10 games then `tie.games` then the
    Armageddon, each final match its own scheme; `final_format` is the first final match's;
    the 2019 Final unchanged; a stage of another kind has none."""
    y2019 = Config()
    assert y2019.final_format() == y2019.match_format("final")
    assert shape(y2019.final_format()) == shape(FINAL_2019)
    y2020 = Config.model_validate(with_preset({"preset": "acwc-2020"}))
    assert shape(y2020.match_format("knockout")) == shape(final_schemes.KNOCK_OUT_2020)
    assert y2020.match_format("grand_final").tiebreak_time_control == "3+0"
    y2021 = Config.model_validate(with_preset({"preset": "acwc-2021"}))
    assert shape(y2021.match_format("third_place")) == shape(final_schemes.FINAL_2021)
    y2024 = Config.model_validate(with_preset({"preset": "acwc-2024"}))
    assert shape(y2024.match_format("semifinals")) == shape(final_schemes.SEMIFINAL_2021)
    assert shape(y2024.match_format("third_place")) == shape(final_schemes.THIRD_PLACE_2022)
    assert y2024.final_format() == y2024.match_format("grand_final")
    assert shape(y2024.final_format()) == shape(final_schemes.GRAND_FINAL_2022)
    for config, key in ((y2019, "swiss"), (y2024, "candidates")):
        with pytest.raises(ValueError, match="not a match stage"):
            config.match_format(key)
