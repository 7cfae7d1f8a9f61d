"""Starting the Swiss and publishing rounds through the real command tree and Discord harness."""

from __future__ import annotations

from sqlalchemy import select

from bot.config import Config
from db.models import Match, Player, Round
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import add_entrants, publish_round_one
from tests.running import ALICE, RunningBot

PAIRINGS = 3100


def with_pairings(config: Config) -> Config:
    return config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )


async def test_td_previews_then_publishes_round_one_in_a_forum(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_forum_channel(PAIRINGS, "pairings")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_entrants(bot.sessions, clock, 7)
        preview = await h.slash("td round start", user=TD_ID)
        assert preview.ephemeral
        assert "Preview of Swiss round 1 of 5" in preview.text
        assert "P01 (1) vs P04 (4)" in preview.text and "Bye: P07 (7)" in preview.text
        async with bot.sessions() as session:
            assert (await session.scalars(select(Round))).all() == []

        publish = next(b for b in h.buttons(preview.last) if b["label"] == "Publish round 1")
        done = await h.press(publish["custom_id"], user=TD_ID, message=preview.last)
        assert "Published Swiss round 1" in done.text

        # The round's post, then a post per match (docs/MESSAGES.md: each match its thread)
        names = [t["name"] for t in h.threads]
        assert names == [
            "Swiss round 1",
            "ACWC 2019 · Swiss round 1 · board 1: P01 vs P04",
            "ACWC 2019 · Swiss round 1 · board 2: P02 vs P05",
            "ACWC 2019 · Swiss round 1 · board 3: P03 vs P06",
        ]
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
            matches = (await session.scalars(select(Match).order_by(Match.board))).all()
        assert round_ is not None and round_.thread_id is not None
        in_thread = h.in_channel(round_.thread_id)
        assert "[P01](https://lichess.org/@/P01) (1) vs [P04](https://lichess.org/@/P04) (4)" in (
            in_thread[0].text
        )
        # the round's thread: the post, then the bye (it has no match to talk about)
        assert len(in_thread) == 2 and len(matches) == 4
        assert in_thread[1].text.startswith("Bye this round: <@506>")
        pings = in_thread[1].text
        for match in matches[:3]:
            assert match.thread_id not in (None, round_.thread_id)
            [opening] = h.in_channel(match.thread_id)
            assert match.message_id == opening.id == match.thread_id  # the post's own message
            first, *rest = opening.text.split("\n")
            assert first.startswith(f"**Board {match.board}**: <@")  # no row id (issue 32)
            assert "\n".join(rest).startswith("Agree on a start time")
            assert opening.text.count("(rule V.C)") == 1
            pings += opening.text
        assert "<@500>" in h.in_channel(matches[0].thread_id)[0].text
        for discord_id in range(500, 507):
            assert pings.count(f"<@{discord_id}>") == 1
        announcement = h.in_channel(ANNOUNCE_CHANNEL)
        assert len(announcement) == 1 and "round 1 of 5 is out" in announcement[0].text


async def test_text_channel_gets_a_message_and_a_thread(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await publish_round_one(bot, h, clock, 4)
        [post] = h.in_channel(PAIRINGS)
        assert "Swiss round 1" in post.text
        # the post's thread, then each match's thread in the channel, opened in it
        assert [t["type"] for t in h.threads] == [11, 11, 11]
        assert [t["name"][-10:] for t in h.threads[1:]] == ["P01 vs P04", "P02 vs P03"]
        async with bot.sessions() as session:
            matches = (await session.scalars(select(Match).order_by(Match.board))).all()
        for match, thread in zip(matches, h.threads[1:], strict=True):
            assert str(match.thread_id) == thread["id"] and thread["parent_id"] == str(PAIRINGS)
            [opening] = h.in_channel(match.thread_id)
            assert opening.id == match.message_id and opening.text.startswith("**Board")
        # Publishing again (the periodic job) creates nothing new.
        assert await bot.publisher.sync() == 0


async def test_scores_update_the_post_and_pair_the_next_round(
    running_bot: RunningBot, config: Config, clock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await publish_round_one(bot, h, clock, 4)
        async with bot.sessions() as session:
            first, second = (await session.scalars(select(Match).order_by(Match.board))).all()
        refused = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": first.id, "score_a": 5, "score_b": 4},
        )
        assert refused.ephemeral and "not a finished match" in refused.text
        ok = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": first.id, "score_a": 5.5, "score_b": 1},
        )
        assert "5.5–1 recorded" in ok.text
        post = h.in_channel(PAIRINGS)[0]
        assert "**5.5–1**" in post.text  # the pairings post was edited with the result
        # the ruling's record, once: in the round's thread, mentioning both players; a match
        # result is not stage news, so the announcement channel does not carry it
        assert first.thread_id is not None
        ruling = h.in_channel(first.thread_id)[-1].text
        said = f"The TD recorded the result of Swiss round 1, board {first.board}:"  # no row id
        assert said in ruling and "5.5–1" in ruling
        async with bot.sessions() as session:
            a = await session.get(Player, first.player_a_id)
            b = await session.get(Player, first.player_b_id)
        assert a is not None and b is not None
        assert f"<@{a.discord_id}> 5.5–1 <@{b.discord_id}>" in ruling, ruling
        assert not [m for m in h.in_channel(ANNOUNCE_CHANNEL) if "5.5–1" in m.text]
        last = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": second.id, "score_a": 3, "score_b": 7},
        )
        assert "Round 2 was paired and published" in last.text
        assert [t["name"] for t in h.threads if "round" in t["name"]].count("Swiss round 2") == 1


async def test_players_cannot_run_td_round_commands(running_bot: RunningBot) -> None:
    async with running_bot() as (_bot, h):
        for command in ("td round start", "td round publish"):
            record = await h.slash(command, user=ALICE)
            assert record.ephemeral and "Only the tournament director" in record.text
