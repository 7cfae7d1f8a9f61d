"""A row's attachment is drawn when the row is sent and goes with its (last) message; a
kind nobody registered never holds the message back."""

from __future__ import annotations

from bot.clock import FakeClock
from bot.outbox import enqueue_channel
from db.engine import transaction
from tests.running import RunningBot
from tests.test_outbox_long import LONG, rows

CHANNEL = 4242


async def test_the_attachment_is_drawn_at_send_time_and_goes_with_the_last_part(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    drawn: list[dict[str, object]] = []

    def picture(args: dict[str, object]) -> tuple[str, bytes]:
        drawn.append(args)
        return "table.png", b"\x89PNG fake"

    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        bot.outbox.register_attachment("test_picture", picture)
        async with transaction(bot.sessions) as session:
            enqueue_channel(
                session,
                channel_id=CHANNEL,
                now=clock.now(),
                content=LONG,
                attachment=("test_picture", {"round": 3}),
            )
        assert drawn == []  # nothing is drawn in the transaction
        assert await bot.outbox.flush() == 1
        sent = h.in_channel(CHANNEL)
        assert len(sent) > 1 and [m.files for m in sent] == [[]] * (len(sent) - 1) + [["table.png"]]
        assert drawn == [{"round": 3}]


async def test_an_unknown_attachment_kind_still_sends_the_text(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        async with transaction(bot.sessions) as session:
            enqueue_channel(
                session,
                channel_id=CHANNEL,
                now=clock.now(),
                content="round 3 is complete",
                attachment=("no_such_kind", {}),
            )
        assert await bot.outbox.flush() == 1
        [message] = h.in_channel(CHANNEL)
        assert message.content == "round 3 is complete" and message.files == []
        [row] = await rows(bot)
        assert row.sent_at is not None and row.failed_at is None


async def test_without_attach_files_the_post_goes_without_its_file(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    """Discord refuses a file where the bot lacks Attach Files (403 50013): the text still
    goes, once, and the channel is not held back for the missing picture."""
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        bot.outbox.register_attachment("test_picture", lambda args: ("table.png", b"png"))
        h.files_refused.add(CHANNEL)
        async with transaction(bot.sessions) as session:
            for text in ("round 3 is complete", "round 4 is out"):
                enqueue_channel(
                    session,
                    channel_id=CHANNEL,
                    now=clock.now(),
                    content=text,
                    attachment=("test_picture", {}) if "complete" in text else None,
                )
        assert await bot.outbox.flush() == 2
        sent = h.in_channel(CHANNEL)
        assert [(m.content, m.files) for m in sent] == [
            ("round 3 is complete", []),
            ("round 4 is out", []),
        ]
