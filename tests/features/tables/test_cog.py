"""/standings and /pairings through the real command tree, and the standings posted in the
announcement channel when a round's last match is decided (moved here from the rounds cog
with /standings)."""

from __future__ import annotations

import io
from datetime import timedelta

from PIL import Image
from sqlalchemy import select

from bot.clock import FakeClock
from bot.config import Config
from bot.features.tables.render import render_png, standings_picture
from db.models import MatchState, OutboxMessage
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import publish_round_one
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import AGREED, PLAYERS, match_row, play, swiss_match
from tests.running import ALICE, BOB, RunningBot


async def test_standings_and_pairings_through_a_round(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for user_id, name in PLAYERS[2:]:
            h.add_member(user_id, name.lower())

        none_yet = await h.slash("standings", user=ALICE)
        assert none_yet.ephemeral and "has not started yet" in none_yet.text
        assert none_yet.response is not None and none_yet.response.files == []

        seeded = await swiss_match(bot.sessions, config, fake)
        first, second = seeded.match_ids

        # Alice beats Bob 6-0 on Lichess (the match stops at 5.5, rule III.E.1).
        clock.set(AGREED)
        await bot.svc.results.run_once()
        games = [play(fake, number) for number in range(1, 7)]
        clock.advance(timedelta(hours=1))
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        assert (await match_row(bot.sessions, first)).state is MatchState.FINISHED

        standings = await h.slash("standings", user=BOB)
        assert standings.ephemeral and standings.response is not None
        assert standings.response.files == ["standings.png"]
        assert "Qualification standings" in standings.text
        assert "round 1 of 5 in progress" in standings.text
        for name in ("Alice", "Bob", "Carol", "Dave"):
            assert name in standings.text
        assert "*  1  Alice" in standings.text and "+2" in standings.text
        assert len(standings.text) < 2000
        # the picture is the same table (its bytes are checked at the render level)
        picture = Image.open(io.BytesIO(render_png(await bot.svc.tables.standings())))
        assert picture.format == "PNG" and 800 <= picture.width <= 1600

        pairings = await h.slash("pairings", user=ALICE)
        assert pairings.ephemeral and pairings.response is not None
        assert pairings.response.files == []
        assert "**Swiss round 1 of 5**" in pairings.text
        assert "1. **Alice** vs **Bob** · **6–0** · games" in pairings.text
        for game in games:
            assert f"https://lichess.org/{game['id']}" in pairings.text
        assert "2. **Carol** vs **Dave** · time not agreed yet" in pairings.text

        # No table in the announcements until the round is complete.
        assert not any("Qualification standings" in m.text for m in h.in_channel(ANNOUNCE_CHANNEL))
        last = await h.slash(
            "td round set-score", user=TD_ID, options={"match": second, "score_a": 3, "score_b": 7}
        )
        assert "Round 2 was paired and published" in last.text
        await bot.outbox.flush()
        posts = [m for m in h.in_channel(ANNOUNCE_CHANNEL) if "Qualification standings" in m.text]
        assert len(posts) == 1
        post = posts[0].text
        assert "after round 1 of 5" in post and "```" in post and len(post) <= 2000
        assert "*  1  Alice" in post and "*  2  Dave" in post
        assert post.rstrip().endswith("No 1-2, 3-4.")  # the legend, whole
        # the picture is attached to the same post (issue 27: the round's post was text only)
        assert posts[0].files == ["standings.png"]
        async with bot.sessions() as session:
            row = await session.scalar(
                select(OutboxMessage).where(OutboxMessage.discord_message_id == posts[0].id)
            )
        assert row is not None and row.attachment is not None
        name, png = standings_picture(row.attachment["args"])
        drawn = Image.open(io.BytesIO(png))
        assert name == "standings.png" and drawn.format == "PNG" and drawn.height > 4 * 40

        later = await h.slash("pairings", user=ALICE, options={"round": 1})
        assert "**Swiss round 1 of 5** · finished" in later.text
        current = await h.slash("pairings", user=ALICE)
        assert "**Swiss round 2 of 5**" in current.text
        missing = await h.slash("pairings", user=ALICE, options={"round": 7})
        assert missing.ephemeral and "There is no round 7" in missing.text


async def test_earlier_and_later_stages_on_request(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        await publish_round_one(bot, h, clock, 4)

        swiss = await h.slash("standings", user=ALICE, options={"stage": "swiss"})
        assert "Qualification standings" in swiss.text
        assert swiss.response is not None and swiss.response.files == ["standings.png"]
        for stage, reply in (
            ("candidates", "The Candidates have not started yet."),
            ("final", "The Final has not started yet."),
        ):
            record = await h.slash("standings", user=ALICE, options={"stage": stage})
            assert record.ephemeral and reply in record.text
            assert record.response is not None and record.response.files == []
        final = await h.slash("pairings", user=ALICE, options={"stage": "final"})
        assert "The Final has not started yet." in final.text
