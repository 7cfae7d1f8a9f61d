"""The TD's console through the real command tree: /td console audit with its filters, and
/help for a player and for the TD."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from discord import app_commands

from bot.app import ChampionshipBot
from bot.audit import Actor, record
from bot.clock import FakeClock
from bot.config import Config
from bot.features.console import text as wording
from bot.features.console.cog import command_entries
from db.engine import transaction
from db.models import (
    IncidentKind,
    IncidentState,
    MatchIncident,
    OfferKind,
    OfferState,
    Player,
    Registration,
    RegistrationState,
    TimeOffer,
)
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round
from tests.harness import DiscordHarness
from tests.running import ALICE, BOB, ROLE_TD, RunningBot

CAROL, DAVE = 104, 105
RULE = re.compile(r" · rules? [IVX]+(\.[A-Z](\.\d+)?)?")  # " · rule VI.D", " · rules V.B–V.D"
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)


async def setup_round(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, clock: FakeClock
) -> SeededRound:
    clock.set(MONDAY)
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_member(CAROL, "carol")
    h.add_member(DAVE, "dave")
    assert bot.sessions is not None
    return await seed_round(
        bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


async def history(bot: ChampionshipBot, seeded: SeededRound, clock: FakeClock) -> None:
    """A week of the log: Alice's offer, rows about Alice's match, the TD's score on board 2,
    and entries the bot wrote by itself."""
    assert bot.sessions is not None
    alice, dave = seeded.player_ids["Alice"], seeded.player_ids["Dave"]
    first, second = seeded.match_ids
    async with transaction(bot.sessions) as session:
        registration = Registration(
            player_id=alice,
            state=RegistrationState.APPROVED,
            problems=[],
            evidence={},
            created_at=MONDAY,
            updated_at=MONDAY,
        )
        incident = MatchIncident(
            match_id=first,
            kind=IncidentKind.NO_SHOW,
            state=IncidentState.OPEN,
            reporter_id=seeded.player_ids["Bob"],
            against_id=alice,
            created_at=MONDAY,
        )
        offer = TimeOffer(
            match_id=first,
            offered_by_id=alice,
            kind=OfferKind.OFFER,
            proposed_time=MONDAY + timedelta(days=1),
            state=OfferState.OPEN,
            created_at=MONDAY,
        )
        session.add_all([registration, incident, offer])
        await session.flush()
        at = MONDAY + timedelta(hours=1)
        rows = [
            (Actor.td(TD_ID), "registration_approved", "registration", registration.id, {}),
            (Actor.job(), "noshow_check_asked", "incident", incident.id, {}),
            (Actor.job(), "offer_reminder", "time_offer", offer.id, {}),
            (Actor.job(), "account_check", "player", alice, {}),
            (Actor.job(), "tiebreak_note", "stage", seeded.stage_id, {"winner_id": alice}),
            (Actor.job(), "round_note", "round", seeded.round_id, {"player_id": dave}),
            (Actor("system"), "board_two_note", "stage", seeded.stage_id, {"match_id": second}),
        ]
        for index, (actor, action, kind, ident, details) in enumerate(rows):
            record(
                session,
                at=at + timedelta(minutes=index),
                actor=actor,
                action=action,
                subject_type=kind,
                subject_id=ident,
                details=details,
            )
    clock.set(MONDAY + timedelta(hours=3))


def actions(text: str) -> list[str]:
    """The actions of an audit reply, in the order shown."""
    return re.findall(r"· `([a-z0-9_.]+)` ·", text)


async def test_audit_newest_first_with_who_did_it(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        await history(bot, seeded, clock)
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00"})
        clock.advance(timedelta(minutes=5))
        score = {"match": seeded.match_ids[1], "score_a": 2.0, "score_b": 5.5, "reason": "late"}
        done = await h.slash("td round set-score", user=TD_ID, options=score)
        assert "recorded" in done.text, done.text

        command = "td console audit"
        rec = await h.slash(command, user=TD_ID)
        assert rec.ephemeral and len(rec.text) < 2000, rec.text
        shown = actions(rec.text)
        assert shown[:2] == ["score_set", "time_offer"], shown
        assert shown[-1] == "registration_approved"
        assert "Audit log" in rec.text and "newest first" in rec.text
        lines = rec.text.splitlines()
        score_line = next(line for line in lines if "`score_set`" in line)
        # each subject by its names, never its row id (issue 32)
        assert f"TD <@{TD_ID}>" in score_line
        assert "match: Swiss round 1, board 2 (Carol vs Dave)" in score_line
        round_line = next(line for line in lines if "`round_note`" in line)
        assert "round: swiss round 1" in round_line
        assert "— late" in score_line
        offer_line = next(line for line in lines if "`time_offer`" in line)
        assert f"player <@{ALICE}>" in offer_line
        assert "match: Swiss round 1, board 1 (Alice vs Bob)" in offer_line
        assert "<t:" in offer_line and ":f>" in offer_line and "UTC)" in offer_line
        bot_line = next(line for line in lines if "`offer_reminder`" in line)
        assert "· the bot ·" in bot_line and "offer: Swiss round 1, board 1 (Alice" in bot_line
        assert "· the bot ·" in next(line for line in lines if "`board_two_note`" in line)


async def test_audit_by_player_and_by_match(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        await history(bot, seeded, clock)
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00"})
        score = {"match": seeded.match_ids[1], "score_a": 2.0, "score_b": 5.5}
        await h.slash("td round set-score", user=TD_ID, options=score)

        mine = await h.slash("td console audit", user=TD_ID, options={"player": "ALICE"})
        assert mine.ephemeral and "for **Alice**" in mine.text, mine.text
        assert set(actions(mine.text)) == {
            "time_offer",  # her match
            "registration_approved",  # her registration
            "noshow_check_asked",  # an incident of her match
            "offer_reminder",  # an offer of her match
            "account_check",  # herself
            "tiebreak_note",  # details naming her
        }

        board_two = await h.slash(
            "td console audit", user=TD_ID, options={"match": seeded.match_ids[1]}
        )
        assert set(actions(board_two.text)) == {"score_set", "board_two_note"}, board_two.text
        board_one = await h.slash(
            "td console audit", user=TD_ID, options={"match": seeded.match_ids[0]}
        )
        assert set(actions(board_one.text)) == {
            "time_offer",
            "noshow_check_asked",
            "offer_reminder",
        }
        dave = await h.slash("td console audit", user=TD_ID, options={"player": "dave"})
        assert set(actions(dave.text)) == {"score_set", "round_note"}, dave.text
        both = await h.slash(
            "td console audit", user=TD_ID, options={"player": "Dave", "match": seeded.match_ids[0]}
        )
        assert both.ephemeral and "No audit entries" in both.text, both.text

        nobody = await h.slash("td console audit", user=TD_ID, options={"player": "nobody"})
        assert nobody.ephemeral and "not a player" in nobody.text and not nobody.errors
        missing = await h.slash("td console audit", user=TD_ID, options={"match": 9999})
        assert missing.ephemeral and "no match 9999" in missing.text


async def test_audit_says_how_many_more_and_is_td_only(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:
            for minute in range(40):
                record(
                    session,
                    at=MONDAY + timedelta(minutes=minute),
                    actor=Actor.job(),
                    action=f"step_{minute:02d}",
                    subject_type="match",
                    subject_id=seeded.match_ids[0],
                )
        rec = await h.slash(
            "td console audit", user=ROLE_TD, options={"match": seeded.match_ids[0]}
        )
        assert rec.ephemeral and len(rec.text) < 2000, len(rec.text)
        shown = actions(rec.text)
        assert 0 < len(shown) <= 25 and shown[0] == "step_39" and shown == sorted(shown)[::-1]
        assert f"and {40 - len(shown)} more" in rec.text and "(40 entries)" in rec.text

        command = "td console audit"
        refused = await h.slash(command, user=ALICE)
        assert refused.ephemeral and "tournament director" in refused.text, refused.text
        assert "step_" not in refused.text


def help_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("`/")]


async def test_help_for_a_player_lists_player_commands_with_their_rules(
    running_bot: RunningBot,
) -> None:
    async with running_bot() as (_, h):
        rec = await h.slash("help", user=ALICE)
        assert rec.ephemeral
        lines = help_lines(rec.text)
        names = {line.split("`")[1].split()[0] for line in lines}
        assert {"/offer", "/noshow", "/register", "/report", "/help"} <= names
        assert not any(name.startswith("/td") for name in names), names
        assert "Tournament director" not in rec.text and "/td" not in rec.text
        for line in lines:
            assert RULE.search(line) and "not listed" not in line, line
        offer = next(line for line in lines if line.startswith("`/offer"))
        assert "`/offer times:`" in offer and "rules V.B–V.D" in offer
        assert "rule VI.D" in next(line for line in lines if line.startswith("`/noshow"))
        accept = next(line for line in lines if line.startswith("`/accept"))
        assert "[offer:]" in accept


@pytest.mark.parametrize("user", [TD_ID, ROLE_TD])
async def test_help_for_the_td_adds_the_td_commands_once(
    running_bot: RunningBot, user: int
) -> None:
    async with running_bot() as (_, h):
        rec = await h.slash("help", user=user)
        assert rec.ephemeral and "Tournament director commands" in rec.text
        for response in rec.responses:
            assert len(response.embeds) <= 10
            assert sum(len(e.get("description", "")) for e in response.embeds) <= 6000
            assert all(len(e.get("description", "")) <= 4096 for e in response.embeds)
        lines = help_lines(rec.text)
        heads = [line.split("`")[1] for line in lines]
        assert len(heads) == len(set(heads))
        for line in lines:
            assert RULE.search(line) and "not listed" not in line, line
        score = next(line for line in lines if line.startswith("`/td round set-score"))
        assert "match: score_a: score_b: [reason:]" in score
        assert "rules III.E.1, III.F.2" in score
        audit = next(line for line in lines if line.startswith("`/td console audit"))
        assert "[player:] [match:]" in audit
        # every command has one name: no flat alias of earlier versions, listed or mentioned
        assert not any("(also" in line for line in lines)
        flat = ("/td set-score", "/td audit", "/td swiss", "/td fault", "/td registrations")
        assert not any(head.startswith(flat) for head in heads)
        assert any(line.startswith("`/offer") for line in lines)  # the player commands too


async def test_every_command_of_the_tree_has_its_rule(running_bot: RunningBot) -> None:
    async with running_bot() as (bot, _):
        entries = command_entries(bot.tree, td=True)
        missing = [e.name for e in entries if e.rule is None]
        assert missing == [], f"add these to bot.features.console.text.RULES: {missing}"
        listed = {e.name for e in entries}
        leaves: set[str] = set()
        stack: list[Any] = list(bot.tree.get_commands())
        while stack:
            item = stack.pop()
            if isinstance(item, app_commands.Group):
                stack.extend(item.commands)
            else:
                leaves.add(item.qualified_name)
        assert leaves == listed
        assert set(wording.RULES) >= {e.name for e in entries}
        players_only = {e.name for e in command_entries(bot.tree, td=False)}
        assert players_only == {e.name for e in entries if not e.td}


async def test_unknown_player_is_case_insensitive_but_exact(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        assert bot.sessions is not None
        async with bot.sessions() as session:
            assert await session.get(Player, 1) is not None
        partial = await h.slash("td console audit", user=TD_ID, options={"player": "Ali"})
        assert "not a player" in partial.text
        exact = await h.slash("td console audit", user=TD_ID, options={"player": " alice "})
        assert "for **Alice**" in exact.text or "No audit entries for **Alice**" in exact.text
