"""A round with more boards than one Discord message holds: the pairings post is split over
several messages (the harness refuses content over 2000 characters, as Discord does), and a
result edits only the message that lists its board."""

from __future__ import annotations

import json

from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.features.matches.round_post import parts_key, render_round_post_parts
from db.engine import transaction
from db.models import Match, Round, Setting
from tests.conftest import TD_ID
from tests.entrants import add_entrants, publish_round_one
from tests.harness import DiscordHarness, RecordedMessage
from tests.running import RunningBot

PAIRINGS = 3100
ENTRANTS = 64  # 32 boards: about 4,000 characters of pairings
MANY = 160  # 80 boards: about 2,000 characters of preview


def with_pairings(config: Config) -> Config:
    return config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )


async def start_swiss(bot: ChampionshipBot, h: DiscordHarness, clock: FakeClock) -> None:
    """The entrants in, then the TD starts the Swiss: its first round is published."""
    await publish_round_one(bot, h, clock, ENTRANTS)


def boards_in(message: RecordedMessage) -> list[int]:
    return [
        int(line.split(":")[0][6:]) for line in message.text.splitlines() if line[:6] == "Board "
    ]


async def test_a_long_round_post_takes_several_messages_and_each_edits_its_own(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await start_swiss(bot, h, clock)
        parts = h.in_channel(PAIRINGS)
        assert len(parts) >= 3
        assert all(len(p.content) <= 2000 for p in parts)
        assert [b for p in parts for b in boards_in(p)] == list(range(1, ENTRANTS // 2 + 1))
        assert all(f"part {k} of {len(parts)}" in p.text for k, p in enumerate(parts, start=1))
        assert (
            "(n) after a name: the player's seed in this stage" in parts[0].text
        )  # issue 27: seeds were unexplained
        # one thread on the first message, then a thread per match (docs/MESSAGES.md)
        assert len(h.threads) == 1 + ENTRANTS // 2
        assert h.threads[0]["id"] == str(parts[0].id)
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
            matches = (await session.scalars(select(Match).order_by(Match.board))).all()
        assert round_ is not None and round_.post_message_id == parts[0].id

        second = parts[1]
        board = boards_in(second)[0]
        match = matches[board - 1]
        before = [len(p.edits) for p in parts]
        done = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": match.id, "score_a": 5.5, "score_b": 1},
        )
        assert "5.5–1 recorded" in done.text
        assert "**5.5–1**" in second.text
        assert [len(p.edits) - n for p, n in zip(parts, before, strict=True)] == [
            1 if p is second else 0 for p in parts
        ]
        assert all(len(p.content) <= 2000 for p in parts)


async def test_in_a_forum_the_parts_come_first_in_the_post(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_forum_channel(PAIRINGS, "pairings")
        await start_swiss(bot, h, clock)
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
        assert round_ is not None and round_.thread_id is not None
        in_post = h.in_channel(round_.thread_id)
        parts = [m for m in in_post if "part " in m.text.splitlines()[0]]
        assert len(parts) >= 3 and in_post[: len(parts)] == parts
        assert [b for p in parts for b in boards_in(p)] == list(range(1, ENTRANTS // 2 + 1))
        # nothing else: each board talks in its own match post
        assert in_post == parts
        posts = [t for t in h.threads if t["parent_id"] == str(PAIRINGS)]
        assert len(posts) == 1 + ENTRANTS // 2


async def start_long_round(
    bot: ChampionshipBot, h: DiscordHarness, clock: FakeClock
) -> tuple[list[RecordedMessage], list[Match], int]:
    assert bot.sessions is not None
    h.add_text_channel(PAIRINGS, "pairings")
    await start_swiss(bot, h, clock)
    async with bot.sessions() as session:
        round_ = await session.scalar(select(Round))
        matches = list((await session.scalars(select(Match).order_by(Match.board))).all())
    assert round_ is not None
    return h.in_channel(PAIRINGS), matches, round_.id


async def test_edits_of_single_boards_leave_the_post_as_a_full_render_shows_it(
    running_bot: RunningBot, config: Config, clock
) -> None:
    """A board's change re-renders only its own message; after changes in the first,
    a middle and the last message, every message reads exactly as rendering the whole
    round from the database does."""
    async with running_bot(with_pairings(config)) as (bot, h):
        parts, matches, round_id = await start_long_round(bot, h, clock)
        assert len(parts) >= 3
        chosen = [boards_in(parts[0])[-1], boards_in(parts[1])[0], boards_in(parts[-1])[-1]]
        for board in chosen:
            before = [len(p.edits) for p in parts]
            done = await h.slash(
                "td round set-score",
                user=TD_ID,
                options={"match": matches[board - 1].id, "score_a": 2, "score_b": 5.5},
            )
            assert "2–5.5 recorded" in done.text
            edited = [k for k, (p, n) in enumerate(zip(parts, before, strict=True)) if p.edits[n:]]
            assert edited == [next(k for k, p in enumerate(parts) if board in boards_in(p))]
        async with bot.sessions() as session:
            rendered = await render_round_post_parts(session, round_id)
        assert [p.content for p in parts] == rendered
        assert sum(p.text.count("**2–5.5**") for p in parts) == len(chosen)


async def test_a_post_stored_without_its_board_cut_is_rendered_whole_once(
    running_bot: RunningBot, config: Config, clock
) -> None:
    """A post published before the cut was stored (an older version of the bot) still
    edits the right message, and stores the cut for the next edits."""
    async with running_bot(with_pairings(config)) as (bot, h):
        parts, matches, round_id = await start_long_round(bot, h, clock)
        async with transaction(bot.sessions) as session:
            stored = await session.get(Setting, parts_key(round_id))
            assert stored is not None
            state = json.loads(stored.value)
            del state["first_boards"]
            stored.value = json.dumps(state)
        board = boards_in(parts[1])[1]
        await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": matches[board - 1].id, "score_a": 5.5, "score_b": 1},
        )
        assert [len(p.edits) for p in parts] == [1 if k == 1 else 0 for k in range(len(parts))]
        async with bot.sessions() as session:
            stored = await session.get(Setting, parts_key(round_id))
            assert stored is not None
            firsts = json.loads(stored.value)["first_boards"]
            assert await render_round_post_parts(session, round_id) == [p.content for p in parts]
        assert firsts == [boards_in(p)[0] for p in parts]


async def test_a_long_preview_is_replied_in_parts_with_every_board(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """The TD's preview of 160 entrants' round 1 lists every board (it used to be cut at 1,900
    characters, and the boards past the cut were never shown), in replies within the limit;
    the Publish button stays on the first, and publishing answers with every board too."""
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        assert bot.sessions is not None
        await add_entrants(bot.sessions, clock, MANY)
        preview = await h.slash("td round start", user=TD_ID)
        replies = [r for r in preview.responses if r.kind in ("message", "followup")]
        assert len(replies) >= 2 and all(len(r.content) <= 2000 for r in replies)
        shown = "\n".join(r.content for r in replies)
        assert all(f"\n{n}. " in shown for n in range(1, MANY // 2 + 1))
        assert h.buttons(replies[0])[0]["label"] == "Publish round 1"
        published = await h.press(
            h.buttons(replies[0])[0]["custom_id"], user=TD_ID, message=preview.responses[0]
        )
        answers = [r for r in published.responses if r.kind in ("update", "followup")]
        assert len(answers) >= 2 and all(len(r.content) <= 2000 for r in answers)
        shown = "\n".join(r.content for r in answers)
        assert all(f"\n{n}. " in shown for n in range(1, MANY // 2 + 1))
