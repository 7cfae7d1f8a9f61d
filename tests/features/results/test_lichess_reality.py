"""Match day against a Lichess that behaves like Lichess: who has White on the link, a token
Lichess refuses, a challenge Lichess changed, a closed account. Each through the bot's own
jobs and commands, as the players and the TD see it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.clock import FakeClock
from bot.config import Config
from db.models import MatchState
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.results_helpers import AGREED, PLAYERS, match_row, play, swiss_match
from tests.running import ALICE, BOB, RunningBot

TOKEN_PAGE = "https://lichess.org/account/oauth/token"


def setup_channels(h: DiscordHarness) -> None:
    h.add_text_channel(ROUND_THREAD, "round-1")
    for user_id, name in PLAYERS[2:]:
        h.add_member(user_id, name.lower())


def td_notes(h: DiscordHarness) -> list[str]:
    return [m.text for m in h.dms_to(TD_ID)]


async def test_the_link_gives_white_to_the_first_player_and_says_so(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        setup_channels(h)
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        url = fake.challenges[0]["url"]
        assert fake.challenge_colours(url) == ("alice", "bob")  # Lichess: first user White
        post = next(m for m in h.in_channel(ROUND_THREAD) if url in m.text)
        assert "**Alice** has White in the first game" in post.text, post.text
        assert f"<@{ALICE}>" in post.text and f"<@{BOB}>" in post.text  # both notified
        assert h.dms_to(ALICE) == [] and h.dms_to(BOB) == []  # by the post: no DM copy
        shown = await h.slash("match", user=BOB)
        assert f"Game link: {url} (**Alice** has White in its first game)" in shown.text, shown.text


async def test_a_token_without_challenge_write_reaches_the_td_once_and_players_hear_why(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    fake.add_token("lip_readonly", scopes=("preference:read",))
    async with running_bot(token="lip_readonly") as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        setup_channels(h)
        match_id = (await swiss_match(bot.sessions, config, fake)).match_ids[0]
        clock.set(AGREED)
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        opened = [i for i, r in enumerate(fake.requests) if r[1] == "/api/challenge/open"]
        assert len(opened) == 1 and fake.statuses[opened[0]] == 403 and fake.challenges == []
        notes = [t for t in td_notes(h) if "token" in t]
        assert len(notes) == 1 and "challenge:write" in notes[0] and TOKEN_PAGE in notes[0]
        told = [m.text for m in h.in_channel(ROUND_THREAD) if "access token" in m.text]
        assert len(told) == 1, told  # once, in the thread, mentioning both players
        assert f"<@{ALICE}>" in told[0] and f"<@{BOB}>" in told[0]
        assert "Lichess refused the bot's access token" in told[0], told[0]
        assert "could not be reached" not in told[0] and "**Alice** with White" in told[0]
        assert not [m for m in h.dms_to(ALICE) + h.dms_to(BOB) if "access token" in m.text]
        # the next minutes: no new attempt, no second note to anyone
        for minute in range(1, 4):
            clock.set(AGREED + timedelta(minutes=minute))
            await bot.svc.results.run_once()
            await bot.outbox.flush()
        assert fake.count("/api/challenge/open") == 1
        assert len([t for t in td_notes(h) if "token" in t]) == 1
        assert len([m for m in h.in_channel(ROUND_THREAD) if "access token" in m.text]) == 1
        # the players challenged each other themselves: the game still counts
        play(fake, 1)
        clock.set(AGREED + timedelta(minutes=15))
        await bot.svc.results.run_once()
        assert (await match_row(bot.sessions, match_id)).score_a == 1.0


async def test_a_revoked_token_tells_the_player_the_truth_on_game(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    fake.add_token("lip_full", scopes=("challenge:write",))
    async with running_bot(token="lip_full") as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        setup_channels(h)
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await bot.svc.results.run_once()
        game = play(fake, 1)
        fake.revoke_token("lip_full")
        clock.set(AGREED + timedelta(minutes=12))
        answer = await h.slash("game", user=BOB, options={"url": game["id"]})
        assert answer.ephemeral and "refused the bot's access token" in answer.text
        assert "could not be reached" not in answer.text
        await bot.svc.results.run_once()  # the poll meets the same 401
        answer = await h.slash("game", user=BOB, options={"url": game["id"]})
        await bot.outbox.flush()
        notes = [t for t in td_notes(h) if "token" in t]
        assert len(notes) == 1 and "401" in notes[0] and TOKEN_PAGE in notes[0], notes


async def test_a_challenge_lichess_changed_goes_to_the_td_not_to_the_players(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    fake.challenge_answer_changes = {"rated": False}  # Lichess made it casual
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        setup_channels(h)
        match_id = (await swiss_match(bot.sessions, config, fake)).match_ids[0]
        for minute in range(3):
            clock.set(AGREED + timedelta(minutes=minute))
            await bot.svc.results.run_once()
            await bot.outbox.flush()
        url = fake.challenges[0]["url"]
        assert fake.count("/api/challenge/open") == 1  # not asked again every minute
        assert not any(url in m.text for m in h.in_channel(ROUND_THREAD))
        assert not any(url in m.text for m in h.dms_to(ALICE) + h.dms_to(BOB))
        notes = [t for t in td_notes(h) if url in t]
        assert len(notes) == 1 and "rated is False, not True" in notes[0], notes
        assert (await match_row(bot.sessions, match_id)).challenge_url is None


async def test_a_closed_account_is_read_from_the_other_players_games(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        setup_channels(h)
        match_id = (await swiss_match(bot.sessions, config, fake)).match_ids[0]
        clock.set(AGREED)
        await bot.svc.results.run_once()
        play(fake, 1)
        fake.add_user("Alice", created_at=datetime(2017, 1, 1, tzinfo=UTC), closed=True)
        for minutes in (12, 13, 14):
            clock.set(AGREED + timedelta(minutes=minutes))
            report = await bot.svc.results.poll()
            assert report.errors == 0
        await bot.outbox.flush()
        match = await match_row(bot.sessions, match_id)
        assert (match.score_a, match.score_b, match.state) == (1.0, 0.0, MatchState.IN_PROGRESS)
        refused = [q for m, p, q in fake.requests if p == "/api/games/user/alice"]
        assert len(refused) == 2  # the poll before the account closed, then once
        notes = [t for t in td_notes(h) if "closed" in t]
        assert len(notes) == 1 and "**Alice**" in notes[0] and "**Bob**" in notes[0], notes
