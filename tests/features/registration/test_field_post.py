"""The field goes public when registration closes: every approved entrant by seed with the
seeding rating and its two games, and the pre-seeded players; edited when the TD changes the
field before round 1, never posted twice, frozen once round 1 is out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.features.registration.field_post import split_parts
from db.engine import transaction
from db.models import OutboxMessage, Player, Registration, RegistrationState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.running import RunningBot

CONFIGURED_CLOSE = datetime(2019, 9, 29, 12, 0, tzinfo=UTC)


async def add_rated(
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    entries: list[tuple[str, int, int, RegistrationState]],
    *,
    first_discord_id: int = 600,
) -> None:
    """Registrations with their seeding evidence: (name, rating at the cut-off, peak, state)."""
    now = clock.now()
    async with transaction(sessions) as session:
        for index, (name, cutoff, peak, state) in enumerate(entries):
            seeding = (cutoff + peak) / 2
            player = Player(
                lichess_id=name.lower(),
                lichess_username=name,
                discord_id=first_discord_id + index,
                seeding_rating=seeding,
                created_at=now,
            )
            session.add(player)
            await session.flush()
            session.add(
                Registration(
                    player_id=player.id,
                    state=state,
                    problems=[],
                    evidence={},
                    rating_at_cutoff=cutoff,
                    rating_at_cutoff_game=f"https://lichess.org/cut{name}",
                    peak_rating=peak,
                    peak_rating_game=f"https://lichess.org/peak{name}",
                    seeding_rating=seeding,
                    created_at=now + timedelta(seconds=index),
                    updated_at=now,
                )
            )


APPROVED = RegistrationState.APPROVED
FIELD = [
    ("Middle", 2100, 2200, APPROVED),
    ("Top", 2200, 2300, APPROVED),
    ("Waiting", 2500, 2600, RegistrationState.PENDING),
    ("Gone", 2400, 2400, RegistrationState.WITHDRAWN),
    ("Low", 1900, 1950, APPROVED),
]


def announcements(h: object) -> list[object]:
    return h.in_channel(ANNOUNCE_CHANNEL)  # type: ignore[attr-defined,no-any-return]


def field_posts(h: object) -> list[object]:
    return [m for m in announcements(h) if m.content.startswith("**The field")]  # type: ignore[attr-defined]


async def field_rows(bot: object) -> list[OutboxMessage]:
    async with bot.sessions() as session:  # type: ignore[attr-defined]
        rows = await session.scalars(
            select(OutboxMessage).where(OutboxMessage.dedupe_key.like("field_post:%"))
        )
        return list(rows.all())


async def test_closing_registration_posts_the_field_by_seed_with_both_games(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, FIELD)
        assert announcements(h) == []  # nothing is public while registration is open
        await h.slash("td registration close", user=TD_ID)
        [post] = announcements(h)
        text = post.content  # type: ignore[attr-defined]
        assert "**The field of the Antichess World Championship 2019**" in text
        assert f"Registration closed <t:{int(clock.now().timestamp())}:F>" in text
        assert "3 players in the Swiss qualification, by seed" in text
        assert (
            "1. [Top](<https://lichess.org/@/Top>) · **2250** "
            "([2200](<https://lichess.org/cutTop>) cut-off, "
            "[2300](<https://lichess.org/peakTop>) peak)"
        ) in text
        assert "\n2. [Middle](<https://lichess.org/@/Middle>) · **2150** (" in text
        assert "\n3. [Low](<https://lichess.org/@/Low>) · **1925** (" in text
        assert "Waiting" not in text and "Gone" not in text  # not in the field
        assert (
            "Pre-seeded: [arimakat](<https://lichess.org/@/arimakat>) (the champion) "
            "enters the Final."
        ) in text
        assert "Pre-seeded: [Ogul1](<https://lichess.org/@/Ogul1>) enters the Candidates." in text

        await h.slash("td registration close", user=TD_ID)  # again: nothing new
        assert len(announcements(h)) == 1 and len(await field_rows(bot)) == 1


async def test_a_long_field_is_split_under_2000_characters(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    names = [f"Player{index:03d}LongNameOfTwentyN"[:30] for index in range(60)]
    entries = [(name, 2500 - i, 2600 - i, APPROVED) for i, name in enumerate(names)]
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, entries)
        await h.slash("td registration close", user=TD_ID)
        posts = [m.content for m in announcements(h)]  # type: ignore[attr-defined]
        assert len(posts) >= 5
        assert all(len(p) <= 2000 for p in posts)
        assert f"· part 1 of {len(posts)}" in posts[0]
        assert posts[-1].startswith(f"**The field** (continued) · part {len(posts)} of")
        lines = [line for p in posts for line in p.splitlines() if line[:1].isdigit()]
        assert [line.split(".")[0] for line in lines] == [str(i) for i in range(1, 61)]
        assert [line.split("[")[1].split("]")[0] for line in lines] == names


def test_the_split_keeps_every_message_under_the_limit() -> None:
    lines = [f"{i}. " + "x" * 197 for i in range(1, 101)]
    parts = split_parts("**The field of X**\nheader", lines)
    assert all(len(p) <= 2000 for p in parts)
    assert sum(len(p.splitlines()) for p in parts) == 100 + 2 + len(parts) - 1


async def test_the_post_is_edited_when_the_td_changes_the_field_before_round_one(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, FIELD)
        await h.slash("td registration close", user=TD_ID)
        [post] = announcements(h)

        # The TD approves the pending entry: it is seed 1 now, in the same message.
        await h.slash(
            "td registration approve", user=TD_ID, options={"registration": 3, "reason": "ok"}
        )
        [post] = announcements(h)
        text = post.content  # type: ignore[attr-defined]
        assert "4 players" in text and "\n1. [Waiting](<https://lichess.org/@/Waiting>)" in text
        assert "\n2. [Top]" in text

        # A player withdraws: they leave the post.
        asked = await h.slash("withdraw", user=600)  # Middle
        await h.press(asked.last.buttons[0]["custom_id"], user=600, message=asked.last)
        [post] = announcements(h)
        text = post.content  # type: ignore[attr-defined]
        assert "3 players" in text and "Middle" not in text and "\n3. [Low]" in text

        # Reopened: the post says so; closed again: it says when.
        await h.slash("td registration open", user=TD_ID)
        assert "Registration was reopened by the TD" in announcements(h)[0].content  # type: ignore[attr-defined]
        clock.advance(timedelta(hours=3))
        await h.slash("td registration close", user=TD_ID)
        [post] = announcements(h)
        assert f"Registration closed <t:{int(clock.now().timestamp())}:F>" in post.content  # type: ignore[attr-defined]
        assert len(await field_rows(bot)) == 1  # one post, edited; never a second

        # Round 1 is out: the field is frozen.
        before = post.content  # type: ignore[attr-defined]
        shown = await h.slash("td round start", user=TD_ID)
        await h.press(shown.last.buttons[0]["custom_id"], user=TD_ID, message=shown.last)
        asked = await h.slash("withdraw", user=601)  # Top
        await h.press(asked.last.buttons[0]["custom_id"], user=601, message=asked.last)
        assert announcements(h)[0].content == before  # type: ignore[attr-defined]


async def test_the_configured_close_posts_the_field_once_across_restarts(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, FIELD)
        clock.set(CONFIGURED_CLOSE + timedelta(minutes=1))
        await bot.due.sweep()
        await bot.deliver()
        [post] = announcements(h)
        closed = f"Registration closed <t:{int(CONFIGURED_CLOSE.timestamp())}:F>"
        assert closed in post.content  # type: ignore[attr-defined]
    clock.advance(timedelta(hours=1))
    async with running_bot() as (bot, h):  # a restart: the same database, a new process
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await bot.due.sweep()
        await h.slash("td registration close", user=TD_ID)  # the TD closes it again
        await bot.deliver()
        assert announcements(h) == []  # nothing posted again, nothing edited
        rows = await field_rows(bot)
        assert len(rows) == 1 and rows[0].sent_at is not None
        assert closed in rows[0].content
        async with bot.sessions() as session:
            edits = await session.scalars(
                select(OutboxMessage.id).where(OutboxMessage.edit_of_key.like("field_post:%"))
            )
            assert edits.all() == []


async def test_no_announcement_channel_no_post(
    running_bot: RunningBot, clock: FakeClock, config
) -> None:
    silent = config.model_copy(
        update={"discord": config.discord.model_copy(update={"announcement_channel_id": None})}
    )
    async with running_bot(silent) as (bot, h):
        await add_rated(bot.sessions, clock, FIELD)
        closed = await h.slash("td registration close", user=TD_ID)
        assert "now **closed**" in closed.text
        assert await field_rows(bot) == []


async def test_a_disqualification_and_a_reinstatement_before_round_one_edit_the_post(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, FIELD)
        await h.slash("td registration close", user=TD_ID)
        out = await h.slash(
            "td discipline disqualify",
            user=TD_ID,
            options={"player": "Top", "reason": "two accounts"},
        )
        assert "disqualified" in out.text, out.text
        await bot.deliver()
        [post] = field_posts(h)  # the disqualification is announced beside it
        assert "[Top]" not in post.content and "2 players" in post.content  # type: ignore[attr-defined]
        shown = await h.slash("td round start", user=TD_ID)
        assert "(2 players)" in shown.text and "Top" not in shown.text  # nor paired
        await h.slash("td discipline reinstate", user=TD_ID, options={"player": "Top"})
        await bot.deliver()
        [post] = field_posts(h)
        assert "\n1. [Top]" in post.content and "3 players" in post.content  # type: ignore[attr-defined]
        shown = await h.slash("td round start", user=TD_ID)
        assert "(3 players)" in shown.text  # round 1 pairs exactly the field shown


async def test_a_field_that_shrinks_leaves_its_extra_messages_saying_so(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    names = [f"Player{index:03d}LongNameOfTwentyN"[:30] for index in range(40)]
    entries = [(name, 2500 - i, 2600 - i, APPROVED) for i, name in enumerate(names)]
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_rated(bot.sessions, clock, entries)
        await h.slash("td registration close", user=TD_ID)
        before = len(announcements(h))
        assert before >= 3
        async with transaction(bot.sessions) as session:
            for player in await session.scalars(
                select(Player).where(Player.lichess_username.in_(names[2:]))
            ):
                player.withdrawn_at = clock.now()  # as if they had withdrawn one by one
        await h.slash("td registration close", user=TD_ID)
        posts = [m.content for m in announcements(h)]  # type: ignore[attr-defined]
        assert len(posts) == before  # the same messages, edited
        assert "2 players" in posts[0] and names[0] in posts[0] and names[1] in posts[0]
        assert all("nothing more (the field above is complete)" in p for p in posts[1:])


def test_a_peak_equal_to_the_cut_off_rating_is_shown_once() -> None:
    """Issue 32: "1797 (1797 cut-off, 1797 peak)" said one number three times."""
    from bot.features.registration.text import field_line
    from bot.features.registration.types import FieldEntry

    line = field_line(FieldEntry(22, "Kai", 1797.0, 1797, "https://g/a", 1797, "https://g/b"))
    kai = "[Kai](<https://lichess.org/@/Kai>)"
    assert line == f"22. {kai} · **1797** ([1797](<https://g/a>) cut-off = peak)"
    other = field_line(FieldEntry(1, "Mo", 1850.0, 1800, None, 1900, None))
    assert other.endswith("**1850** (1800 cut-off, 1900 peak)")
