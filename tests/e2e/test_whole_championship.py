"""End to end: a whole championship, registration to champion, through the real command tree,
the fake Lichess server and a fake clock. Players agree every time with /offer and /accept,
games come from Lichess, and the bot's own periodic jobs do the rest: the game links, the
results, the next rounds, the Candidates and the Final."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, PreSeededPlayer
from bot.rules.swiss import number_of_rounds
from db.models import Match, MatchState, OutboxMessage, Player, Round, RoundState, Stage, StageKind
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID, add_player
from tests.e2e.test_swiss_round import PAIRINGS
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.running import RunningBot

# Eight entrants: a Swiss (six rounds by rule III.E.2 as 2019 reads it), the Candidates, the
# Final.
NAMES = ["Ann", "Ben", "Cid", "Dee", "Eli", "Fin", "Gus", "Hal"]
DISCORD = {name: 700 + i for i, name in enumerate(NAMES)}
# Who beats whom, best first: every match goes to the better-placed player.
STRENGTH = ["arimakat", "Ann", "Ben", "Cid", "Ogul1", "Dee", "Eli", "Fin", "Gus", "Hal"]
PRESEEDED = {"arimakat": 790, "Ogul1": 791}


def games_for(kind: StageKind, a_wins: bool) -> list[float]:
    """Player a's results: 6-0 in the Swiss (it stops at 5.5), 6-4 played out in the
    Candidates, 7-5 after twelve games in the Final."""
    if kind in (StageKind.SWISS, StageKind.TIEBREAK):
        results = [1.0] * 6
    elif kind is StageKind.CANDIDATES:
        results = [1.0] * 6 + [0.0] * 4
    else:
        results = [1.0, 0.0] * 5 + [1.0, 1.0]
    return results if a_wins else [1.0 - r for r in results]


async def register(h: DiscordHarness, fake: FakeLichess, name: str) -> None:
    """/register, the code in the Lichess bio, Verify, and the TD's Approve button."""
    user = DISCORD[name]
    record = await h.slash("register", user=user, options={"lichess_username": name})
    code = record.text[record.text.index("`acwc-") + 1 :].split("`")[0]
    fake.set_profile(name, bio=code)
    await h.press(h.buttons(record.last)[0]["custom_id"], user=user, message=record.last)
    review = h.dms_to(TD_ID)[-1]
    approved = await h.press(h.buttons(review)[0]["custom_id"], user=TD_ID, message=review, dm=True)
    assert "approved" in approved.text, approved.text


async def jobs(bot: ChampionshipBot) -> None:
    """One turn of the bot's periodic jobs: deadlines and game links, results, messages."""
    for name in ("deadlines", "results", "outbox"):
        job, _ = bot.periodic_jobs()[name]
        await job()


async def open_round(bot: ChampionshipBot) -> tuple[StageKind, list[Match]] | None:
    """The newest published round's matches still to be negotiated."""
    assert bot.sessions is not None
    async with bot.sessions() as session:
        round_ = await session.scalar(
            select(Round)
            .where(Round.state == RoundState.PUBLISHED)
            .order_by(Round.published_at.desc(), Round.id.desc())
            .limit(1)
        )
        if round_ is None:
            return None
        stage = await session.get(Stage, round_.stage_id)
        matches = (
            await session.scalars(
                select(Match).where(
                    Match.round_id == round_.id, Match.state == MatchState.NEGOTIATING
                )
            )
        ).all()
    assert stage is not None
    return stage.kind, list(matches)


async def play_round(
    bot: ChampionshipBot, h: DiscordHarness, clock: FakeClock, fake: FakeLichess
) -> StageKind | None:
    """Negotiate every match of the open round, play it on Lichess, let the jobs run."""
    found = await open_round(bot)
    if found is None or not found[1]:
        return None
    kind, matches = found
    assert bot.sessions is not None
    async with bot.sessions() as session:
        round_ = await session.get(Round, matches[0].round_id)
        players = {p.id: p for p in await session.scalars(select(Player))}
    assert round_ is not None
    clock.set(max(clock.now(), round_.starts_at) + timedelta(hours=1))
    agreed = round_.starts_at + timedelta(days=2, hours=18)  # Wednesday 18:00 UTC
    for board, match in enumerate(matches):
        a, b = players[match.player_a_id], players[match.player_b_id or 0]
        assert a.discord_id and b.discord_id
        when = agreed + timedelta(hours=4 * board)
        offer = await h.slash(
            "offer", user=a.discord_id, options={"times": f"{when:%Y-%m-%d %H:%M}"}
        )
        assert offer.ephemeral and "refused" not in offer.text.lower(), offer.text
        accept = await h.slash("accept", user=b.discord_id)
        assert accept.ephemeral and f"{when:%H:%M}" in accept.text, accept.text
    for board, match in enumerate(matches):
        a, b = players[match.player_a_id], players[match.player_b_id or 0]
        when = agreed + timedelta(hours=4 * board)
        clock.set(when)
        await jobs(bot)  # the game link at the agreed minute
        a_wins = STRENGTH.index(a.lichess_username) < STRENGTH.index(b.lichess_username)
        for number, result in enumerate(games_for(kind, a_wins), start=1):
            white, black = (a, b) if number % 2 else (b, a)
            a_white = white is a
            created = when + timedelta(minutes=2 + 10 * (number - 1))
            fake.add_game(
                white=white.lichess_username,
                black=black.lichess_username,
                created_at=created,
                last_move_at=created + timedelta(minutes=8),
                winner=("white" if (result == 1.0) == a_white else "black"),
                status="variantEnd",
            )
        clock.set(when + timedelta(hours=3))
        await jobs(bot)
    return kind


async def test_a_whole_championship_through_the_commands(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    cfg = config.model_copy(
        update={
            "discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS}),
            "players": config.players.model_copy(
                update={
                    "pre_seeded": (
                        PreSeededPlayer(lichess="arimakat", stage="final", discord_id=790),
                        PreSeededPlayer(lichess="Ogul1", stage="candidates", discord_id=791),
                    )
                }
            ),
        }
    )
    for index, name in enumerate(NAMES):
        add_player(fake, name, rating=2200 - 100 * index)
    for name in PRESEEDED:
        fake.add_user(name, created_at=datetime(2016, 1, 1, tzinfo=clock.now().tzinfo))
    async with running_bot(cfg) as (bot, h):
        assert bot.sessions is not None
        h.add_text_channel(PAIRINGS, "pairings")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for name in NAMES:
            h.add_member(DISCORD[name], name.lower())
            await register(h, fake, name)
        for name, user in PRESEEDED.items():
            h.add_member(user, name.lower())

        # Registration is open until the end of September: the TD closes it from the
        # refusal of /td round start, then publishes round 1 from the preview.
        refusal = await h.slash("td round start", user=TD_ID)
        close = next(b for b in h.buttons(refusal.last) if b["label"].startswith("Close"))
        preview = await h.press(close["custom_id"], user=TD_ID, message=refusal.last)
        publish = next(b for b in h.buttons(preview.last) if b["label"] == "Publish round 1")
        await h.press(publish["custom_id"], user=TD_ID, message=preview.last)

        stages_played: list[StageKind] = []
        for _ in range(20):  # the Swiss rounds, any tiebreak, 3 Candidates rounds, the Final
            kind = await play_round(bot, h, clock, fake)
            if kind is None:
                break
            stages_played.append(kind)
        swiss = [k for k in stages_played if k is StageKind.SWISS]
        rest = [k for k in stages_played if k not in (StageKind.SWISS, StageKind.TIEBREAK)]
        rounds = number_of_rounds(len(NAMES), rounding=cfg.swiss.rounds_rounding)  # III.E.2
        assert stages_played[:rounds] == swiss == [StageKind.SWISS] * rounds
        assert rest == [StageKind.CANDIDATES] * 3 + [StageKind.FINAL]

        async with bot.sessions() as session:
            stages = {s.kind: s for s in await session.scalars(select(Stage))}
            posts = [
                m.content
                for m in await session.scalars(
                    select(OutboxMessage).where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
                )
            ]
            names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        assert all(s.state.value == "finished" for s in stages.values()), stages
        field = [names[i] for i in stages[StageKind.CANDIDATES].seeding]
        assert field[:3] == ["Ann", "Ben", "Cid"] and field[3] == "Ogul1"
        assert [names[i] for i in stages[StageKind.FINAL].seeding] == ["arimakat", "Ann"]
        assert any("qualification is over" in p for p in posts)
        assert any(
            "**Ann** wins the Candidates" in p and "**Ben** is the runner-up" in p for p in posts
        )
        assert any("**arimakat** is the" in p and "champion" in p and "7–5" in p for p in posts)
        # every game link was created for its agreed minute, and the Final's at 2+5
        assert all(c["form"]["clock.increment"] == "5" for c in fake.challenges)
