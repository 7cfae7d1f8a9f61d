"""A round with more boards than one Discord message holds: the pairings post is split over
several messages (the harness refuses content over 2000 characters, as Discord does), and a
result edits only the message that lists its board."""

from __future__ import annotations

from sqlalchemy import select

from bot.config import Config
from db.models import Match, Round
from tests.conftest import TD_ID
from tests.entrants import add_entrants
from tests.harness import RecordedMessage
from tests.running import RunningBot

PAIRINGS = 3100
ENTRANTS = 64  # 32 boards: about 4,000 characters of pairings


def with_pairings(config: Config) -> Config:
    return config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )


def boards_in(message: RecordedMessage) -> list[int]:
    return [
        int(line.split(":")[0][6:]) for line in message.text.splitlines() if line[:6] == "Board "
    ]


async def test_a_long_round_post_takes_several_messages_and_each_edits_its_own(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await add_entrants(bot.sessions, clock, ENTRANTS)
        preview = await h.slash("td swiss start", user=TD_ID)
        await h.press(h.buttons(preview.last)[0]["custom_id"], user=TD_ID, message=preview.last)
        parts = h.in_channel(PAIRINGS)
        assert len(parts) >= 3
        assert all(len(p.content) <= 2000 for p in parts)
        assert [b for p in parts for b in boards_in(p)] == list(range(1, ENTRANTS // 2 + 1))
        assert all(f"part {k} of {len(parts)}" in p.text for k, p in enumerate(parts, start=1))
        assert len(h.threads) == 1  # one thread, on the first message
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
            matches = (await session.scalars(select(Match).order_by(Match.board))).all()
        assert round_ is not None and round_.post_message_id == parts[0].id

        second = parts[1]
        board = boards_in(second)[0]
        match = matches[board - 1]
        before = [len(p.edits) for p in parts]
        done = await h.slash(
            "td set-score", user=TD_ID, options={"match": match.id, "score_a": 5.5, "score_b": 1}
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
        await add_entrants(bot.sessions, clock, ENTRANTS)
        preview = await h.slash("td swiss start", user=TD_ID)
        await h.press(h.buttons(preview.last)[0]["custom_id"], user=TD_ID, message=preview.last)
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
        assert round_ is not None and round_.thread_id is not None
        in_post = h.in_channel(round_.thread_id)
        parts = [m for m in in_post if "part " in m.text.splitlines()[0]]
        assert len(parts) >= 3 and in_post[: len(parts)] == parts
        assert [b for p in parts for b in boards_in(p)] == list(range(1, ENTRANTS // 2 + 1))
        assert len(in_post) == len(parts) + ENTRANTS // 2  # then one message per match
