"""Fair play (rule VII) against a migrated SQLite file, the fake clock and the fake Lichess."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, FairPlayConfig
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.features.fairplay.service import ENGINE_DQ_VIEW, REPORT_VIEW, FairPlayService
from bot.features.registration.service import RegistrationService
from bot.lichess.client import LichessClient
from db.engine import transaction
from db.models import (
    AuditEntry,
    CheatReport,
    OutboxKind,
    OutboxMessage,
    Player,
    ReportState,
)
from tests.conftest import TD_ID
from tests.factories import SeededRound, seed_round, wired
from tests.fakes.lichess import FakeLichess

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)
SECRET = "he moved instantly in every endgame"
GAME = "https://lichess.org/abcd1234"


@pytest.fixture
def service(
    sessions: async_sessionmaker[AsyncSession],
    lichess: LichessClient,
    config: Config,
    clock: FakeClock,
) -> FairPlayService:
    clock.set(MONDAY)
    return wired(sessions, config, clock, lichess).fairplay


async def seeded(sessions: async_sessionmaker[AsyncSession], config: Config) -> SeededRound:
    return await seed_round(
        sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


async def player(sessions: async_sessionmaker[AsyncSession], player_id: int) -> Player:
    async with sessions() as session:
        row = await session.get(Player, player_id)
        assert row is not None
        return row


def capture_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Everything the bot's own code logs, and the rest at the production level (INFO).

    (aiosqlite logs SQL parameters at DEBUG: keep it above DEBUG in production.)
    """
    caplog.set_level(logging.INFO)
    for name in ("bot", "cogs", "db"):
        caplog.set_level(logging.DEBUG, logger=name)


# --- reports -------------------------------------------------------------------------------


async def test_report_goes_to_the_td_only_and_logs_the_id_only(
    service: FairPlayService,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await seeded(sessions, config)
    capture_logs(caplog)
    receipt = await service.report(
        reporter_discord_id=ALICE, accused="bob", game_links=GAME, description=SECRET
    )
    assert receipt.accused == "Bob"
    async with sessions() as session:
        report = await session.get(CheatReport, receipt.id)
        assert report is not None and report.state is ReportState.OPEN
        assert report.reporter_discord_id == ALICE and report.game_links == GAME
        audit = (await session.scalars(select(AuditEntry))).all()
    messages = await outbox(sessions)
    assert len(messages) == 1
    (td,) = messages
    assert td.kind is OutboxKind.DM and td.target_id == TD_ID
    assert f"<@{ALICE}>" in td.content and len(td.content) <= 2000
    assert [e["description"] for e in td.embeds] == [SECRET, f"- {GAME}"]
    assert f"Cheat report {receipt.id}" in td.content and "Bob" in td.content
    assert td.view == {"kind": REPORT_VIEW, "args": {"report_id": receipt.id}}
    assert all(SECRET not in str(a.details) for a in audit)
    logged = caplog.text
    assert str(receipt.id) in logged
    for secret in (SECRET, GAME, str(ALICE), "Alice", "Bob"):
        assert secret not in logged


@pytest.mark.parametrize(
    ("accused", "links", "description", "error", "words"),
    [
        ("Bobb", "", SECRET, InvalidInput, ["not a participant", "`Bob`"]),
        ("Zed", "", SECRET, InvalidInput, ["not a participant"]),
        ("Alice", "", SECRET, NotAllowed, ["yourself"]),
        ("Bob", "", "   ", InvalidInput, ["describe"]),
        ("Bob", "", "x" * 1501, InvalidInput, ["too long"]),
        ("Bob", "https://chess.com/game/1", SECRET, InvalidInput, ["lichess.org"]),
        ("Bob", f"{GAME} lichess.org/x", SECRET, InvalidInput, ["lichess.org/x"]),
    ],
)
async def test_report_refusals_store_nothing(
    service: FairPlayService,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    accused: str,
    links: str,
    description: str,
    error: type[Exception],
    words: list[str],
) -> None:
    await seeded(sessions, config)
    with pytest.raises(error) as raised:
        await service.report(
            reporter_discord_id=ALICE, accused=accused, game_links=links, description=description
        )
    for word in words:
        assert word in str(raised.value)
    assert await outbox(sessions) == []
    assert await service.list_reports() == []


async def test_longest_report_fits_a_discord_message(
    service: FairPlayService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await seeded(sessions, config)
    links = " ".join([GAME] * 34)  # 34 * 29 characters: under the 1000 limit
    await service.report(
        reporter_discord_id=ALICE, accused="Bob", game_links=links, description="x" * 1500
    )
    (td,) = await outbox(sessions)
    assert len(td.content) <= 2000
    assert all(len(e["description"]) <= 4096 for e in td.embeds)


async def test_withdrawn_players_cannot_be_reported_but_pre_seeded_can(
    service: FairPlayService,
    registration: RegistrationService,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
) -> None:
    seeded_round = await seeded(sessions, config)
    await registration.ensure_pre_seeded()
    async with transaction(sessions) as session:
        dave = await session.get(Player, seeded_round.player_ids["Dave"])
        assert dave is not None
        dave.withdrawn_at = MONDAY
    with pytest.raises(InvalidInput):
        await service.report(
            reporter_discord_id=ALICE, accused="Dave", game_links="", description=SECRET
        )
    receipt = await service.report(
        reporter_discord_id=555, accused="@Ogul1", game_links="", description=SECRET
    )
    assert receipt.accused == "Ogul1"


async def test_td_states_and_upheld_disqualifies(
    service: FairPlayService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    seeded_round = await seeded(sessions, config)
    bob_id = seeded_round.player_ids["Bob"]
    receipt = await service.report(
        reporter_discord_id=ALICE, accused="Bob", game_links="", description=SECRET
    )
    before = len(await outbox(sessions))

    change = await service.set_state(td_id=TD_ID, report_id=receipt.id, state="investigating")
    assert change.previous == "open" and change.report.state == "investigating"
    assert len(await outbox(sessions)) == before  # the reporter is not told about progress

    change = await service.set_state(
        td_id=TD_ID, report_id=receipt.id, state="upheld", note="clear engine use"
    )
    assert change.disqualified
    bob = await player(sessions, bob_id)
    assert bob.disqualified_at == MONDAY and bob.disqualification_reason
    assert "clear engine use" not in bob.disqualification_reason  # the note stays with the TD
    # Alice is also Bob's opponent: that she wins their match reaches her apart (rule VIII).
    to_alice = [
        m for m in await outbox(sessions) if m.target_id == ALICE and "you win" not in m.content
    ]
    assert len(to_alice) == 1 and "handled" in to_alice[0].content
    assert "Bob" not in to_alice[0].content and "disqualif" not in to_alice[0].content
    assert to_alice[0].fallback_channel_id is None  # never a public fallback
    (listed,) = await service.list_reports("upheld")
    assert listed.td_note == "clear engine use"

    with pytest.raises(WrongStage):
        await service.set_state(td_id=TD_ID, report_id=receipt.id, state="dismissed")
    with pytest.raises(InvalidInput):
        await service.set_state(td_id=TD_ID, report_id=999, state="dismissed")
    async with sessions() as session:
        actions = [a.action for a in (await session.scalars(select(AuditEntry))).all()]
    assert actions.count("fairplay.report_state") == 2 and "player_disqualified" in actions


async def test_dismissed_tells_the_reporter_once(
    service: FairPlayService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await seeded(sessions, config)
    receipt = await service.report(
        reporter_discord_id=ALICE, accused="Bob", game_links="", description=SECRET
    )
    await service.set_state(td_id=TD_ID, report_id=receipt.id, state="dismissed")
    await service.set_state(td_id=TD_ID, report_id=receipt.id, state="open", note="new game")
    await service.set_state(td_id=TD_ID, report_id=receipt.id, state="dismissed")
    to_alice = [m for m in await outbox(sessions) if m.target_id == ALICE]
    assert len(to_alice) == 2  # handled, and handled again after it was reopened
    assert await service.list_reports("open") == []
    (info,) = await service.list_reports()
    assert info.state == "dismissed" and info.td_note == "new game"


# --- the account check (rules VII.C, VIII.A.2) -----------------------------------------------


async def test_account_check_is_one_request_and_marks_once(
    service: FairPlayService,
    registration: RegistrationService,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    fake: FakeLichess,
    clock: FakeClock,
) -> None:
    names = [f"player{i:02d}" for i in range(60)]
    seeded_round = await seed_round(
        sessions, config, [(1000 + i, name) for i, name in enumerate(names)]
    )
    await registration.ensure_pre_seeded()
    for name in [*names, "arimakat", "Ogul1"]:
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    fake.add_user("player07", created_at=datetime(2017, 1, 1, tzinfo=UTC), tos_violation=True)
    fake.add_user("Ogul1", created_at=datetime(2017, 1, 1, tzinfo=UTC), disabled=True)
    async with transaction(sessions) as session:  # out already: not checked
        gone = await session.get(Player, seeded_round.player_ids["player08"])
        assert gone is not None
        gone.withdrawn_at = MONDAY
    fake.add_user("player08", created_at=datetime(2017, 1, 1, tzinfo=UTC), tos_violation=True)

    result = await service.check_accounts()
    assert fake.count("/api/users", method="POST") == 1
    assert result.checked == 61
    assert sorted(m.name for m in result.marked) == ["Ogul1", "player07"]
    marked = await player(sessions, seeded_round.player_ids["player07"])
    assert marked.tos_marked_at == MONDAY and marked.disqualified_at is None  # no punishment
    alerts = [m for m in await outbox(sessions) if m.target_id == TD_ID]
    assert len(alerts) == 2
    views = sorted(str(m.view) for m in alerts)
    assert all(ENGINE_DQ_VIEW in v for v in views)
    assert any("player07" in m.content and "tosViolation" in m.content for m in alerts)

    clock.advance(timedelta(days=1))
    again = await service.check_accounts()
    assert again.marked == [] and fake.count("/api/users", method="POST") == 2
    assert len([m for m in await outbox(sessions) if m.target_id == TD_ID]) == 2


async def test_account_check_survives_lichess_down(
    service: FairPlayService,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    fake: FakeLichess,
) -> None:
    await seeded(sessions, config)
    fake.set_down(True)
    result = await service.check_accounts()
    assert result.marked == [] and await outbox(sessions) == []


async def test_one_click_engine_disqualification(
    service: FairPlayService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    seeded_round = await seeded(sessions, config)
    bob_id = seeded_round.player_ids["Bob"]
    assert await service.disqualify_for_mark(td_id=TD_ID, player_id=bob_id, engine=True) == "Bob"
    bob = await player(sessions, bob_id)
    assert bob.disqualified_at is not None and "engine" in (bob.disqualification_reason or "")
    with pytest.raises(WrongStage):
        await service.disqualify_for_mark(td_id=TD_ID, player_id=bob_id, engine=True)
    with pytest.raises(InvalidInput):
        await service.disqualify_for_mark(td_id=TD_ID, player_id=9999, engine=True)


# --- public accusations (rule VII.A) -----------------------------------------------------------


async def test_public_flagging_is_off_by_default(
    service: FairPlayService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await seeded(sessions, config)
    flag = await service.flag_message(
        guild_id=1, channel_id=2, message_id=3, author_id=CAROL, content="bob is a cheater"
    )
    assert flag is None and await outbox(sessions) == []


async def test_public_accusation_flagged_to_the_td(
    sessions: async_sessionmaker[AsyncSession],
    lichess: LichessClient,
    config: Config,
    clock: FakeClock,
) -> None:
    await seeded(sessions, config)
    cfg = config.model_copy(update={"fair_play": FairPlayConfig(flag_public_accusations=True)})
    service = wired(sessions, cfg, clock, lichess).fairplay
    assert (
        await service.flag_message(
            guild_id=1, channel_id=2, message_id=3, author_id=CAROL, content="nice game bob"
        )
        is None
    )
    assert (  # talking about oneself is no accusation
        await service.flag_message(
            guild_id=1, channel_id=2, message_id=4, author_id=BOB, content="bob is no cheater"
        )
        is None
    )
    flag = await service.flag_message(
        guild_id=1, channel_id=2, message_id=5, author_id=CAROL, content=f"<@{BOB}> uses an engine"
    )
    assert flag is not None and flag.names == ("Bob",)
    td_role = 777  # a TD by role (rule 1.2) talking about cheating is not flagged to the TD
    by_role = cfg.model_copy(
        update={"discord": cfg.discord.model_copy(update={"td_role_id": td_role})}
    )
    assert (
        await wired(sessions, by_role, clock, lichess).fairplay.flag_message(
            guild_id=1,
            channel_id=2,
            message_id=6,
            author_id=CAROL,
            content=f"<@{BOB}> uses an engine",
            author_role_ids=[td_role],
        )
        is None
    )
    (alert,) = await outbox(sessions)
    assert alert.target_id == TD_ID
    assert "https://discord.com/channels/1/2/5" in alert.content and f"<@{CAROL}>" in alert.content
    bob = await player(sessions, 2)
    assert bob.disqualified_at is None
