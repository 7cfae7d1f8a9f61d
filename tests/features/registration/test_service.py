"""Registration use cases against a migrated SQLite file and the fake Lichess server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.features.registration.service import RegistrationService
from bot.wiring import build_registration
from db.models import (
    AuditEntry,
    OutboxKind,
    OutboxMessage,
    OwnershipChallenge,
    Player,
    Registration,
    RegistrationState,
    TDDecision,
)
from tests.conftest import TD_ID, add_player
from tests.fakes.lichess import FakeLichess

ALICE, BOB = 101, 102


async def count(sessions: async_sessionmaker[AsyncSession], model: type) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


async def register(
    service: RegistrationService, fake: FakeLichess, discord_id: int, name: str
) -> int:
    """Run /register and put the code in the bio; returns the registration id."""
    step = await service.start(discord_id=discord_id, lichess_username=name, is_td=False)
    fake.set_profile(name, bio=f"hello {step.code}")
    summary = await service.verify(discord_id=discord_id, challenge_id=step.challenge_id)
    return summary.id


async def test_clean_registration_waits_for_td_with_buttons(
    registration: RegistrationService, fake: FakeLichess, sessions: async_sessionmaker[AsyncSession]
) -> None:
    add_player(fake, "Alice", games=120, rating=1900)
    step = await registration.start(discord_id=ALICE, lichess_username="alice", is_td=False)
    assert step.lichess_username == "Alice"
    assert step.code.startswith("acwc-")
    fake.set_profile("Alice", location=f"Paris {step.code}")

    summary = await registration.verify(discord_id=ALICE, challenge_id=step.challenge_id)

    assert summary.state is RegistrationState.PENDING
    assert summary.problems == []
    assert summary.seeding_rating == 1900
    messages = await outbox(sessions)
    assert [(m.kind, m.target_id) for m in messages] == [(OutboxKind.DM, TD_ID)]
    assert messages[0].view == {
        "kind": "registration_decision",
        "args": {"registration_id": summary.id},
    }
    assert "Alice" in messages[0].content


async def test_auto_approve_skips_the_td_for_clean_entries(
    sessions: async_sessionmaker[AsyncSession],
    lichess,
    config,
    clock: FakeClock,
    fake: FakeLichess,
) -> None:
    auto = config.model_copy(
        update={"registration": config.registration.model_copy(update={"auto_approve": True})}
    )
    service = build_registration(sessions, auto, clock, lichess)
    add_player(fake, "Alice")
    registration_id = await register(service, fake, ALICE, "Alice")
    assert (await service.get(registration_id)).state is RegistrationState.APPROVED
    assert await outbox(sessions) == []


async def test_auto_approve_still_sends_flagged_entries_to_the_td(
    sessions: async_sessionmaker[AsyncSession],
    lichess,
    config,
    clock: FakeClock,
    fake: FakeLichess,
) -> None:
    auto = config.model_copy(
        update={"registration": config.registration.model_copy(update={"auto_approve": True})}
    )
    service = build_registration(sessions, auto, clock, lichess)
    add_player(fake, "Alice", games=99)
    registration_id = await register(service, fake, ALICE, "Alice")
    summary = await service.get(registration_id)
    assert summary.state is RegistrationState.PENDING
    assert summary.problems == ["too_few_games"]
    assert len(await outbox(sessions)) == 1


async def test_code_must_be_in_the_profile(
    registration: RegistrationService, fake: FakeLichess, sessions: async_sessionmaker[AsyncSession]
) -> None:
    add_player(fake, "Alice")
    step = await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    with pytest.raises(InvalidInput, match=step.code):
        await registration.verify(discord_id=ALICE, challenge_id=step.challenge_id)
    assert await count(sessions, Registration) == 0
    async with sessions() as session:
        challenge = await session.get(OwnershipChallenge, step.challenge_id)
        assert challenge is not None and challenge.attempts == 1


async def test_someone_else_cannot_press_verify(
    registration: RegistrationService, fake: FakeLichess, sessions: async_sessionmaker[AsyncSession]
) -> None:
    add_player(fake, "Alice")
    step = await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    fake.set_profile("Alice", bio=step.code)
    with pytest.raises(NotAllowed):
        await registration.verify(discord_id=BOB, challenge_id=step.challenge_id)
    assert await count(sessions, Registration) == 0


async def test_expired_code_is_refused(
    registration: RegistrationService, fake: FakeLichess, clock: FakeClock
) -> None:
    add_player(fake, "Alice")
    step = await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    fake.set_profile("Alice", bio=step.code)
    clock.advance(timedelta(hours=3))
    with pytest.raises(InvalidInput, match="expired"):
        await registration.verify(discord_id=ALICE, challenge_id=step.challenge_id)


@pytest.mark.parametrize(
    ("user", "message"),
    [
        ({"title": "BOT"}, "BOT account"),
        ({"closed": True, "disabled": True}, "closed"),
    ],
)
async def test_bot_and_closed_accounts_are_refused(
    registration: RegistrationService, fake: FakeLichess, sessions, user: dict, message: str
) -> None:
    add_player(fake, "Robo", **user)
    with pytest.raises(InvalidInput, match=message):
        await registration.start(discord_id=ALICE, lichess_username="Robo", is_td=False)
    assert await count(sessions, OwnershipChallenge) == 0


async def test_unknown_and_malformed_usernames(registration: RegistrationService, sessions) -> None:
    with pytest.raises(InvalidInput, match="no Lichess account named `ghost`"):
        await registration.start(discord_id=ALICE, lichess_username="ghost", is_td=False)
    with pytest.raises(InvalidInput, match="not a valid Lichess username"):
        await registration.start(discord_id=ALICE, lichess_username="bad name!", is_td=False)
    assert await count(sessions, OwnershipChallenge) == 0


async def test_td_cannot_register(registration: RegistrationService, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    with pytest.raises(NotAllowed, match=r"rule I\.D"):
        await registration.start(discord_id=TD_ID, lichess_username="Alice", is_td=True)


async def test_pre_seeded_players_do_not_register(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "arimakat")
    with pytest.raises(InvalidInput, match="pre-seeded"):
        await registration.start(discord_id=ALICE, lichess_username="Arimakat", is_td=False)


async def test_window_closed_before_and_after_and_td_override(
    registration: RegistrationService, fake: FakeLichess, clock: FakeClock
) -> None:
    add_player(fake, "Alice")
    clock.set(datetime(2019, 8, 1, tzinfo=UTC))
    with pytest.raises(WrongStage, match="not open yet"):
        await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    clock.set(datetime(2019, 10, 1, tzinfo=UTC))
    with pytest.raises(WrongStage, match="closed"):
        await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    state = await registration.set_window(td_id=TD_ID, open_=True)
    assert state.is_open and state.override == "open"
    await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    clock.set(datetime(2019, 9, 10, tzinfo=UTC))
    await registration.set_window(td_id=TD_ID, open_=False)
    with pytest.raises(WrongStage):
        await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)


async def test_flags_are_recorded_with_evidence(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(
        fake, "Newbie", created_at=datetime(2019, 3, 1, tzinfo=UTC), games=99, tos_violation=True
    )
    registration_id = await register(registration, fake, ALICE, "Newbie")
    summary = await registration.get(registration_id)
    assert summary.problems == ["account_too_new", "too_few_games", "tos_violation"]
    assert summary.rated_games_before_cutoff == 99
    assert len(summary.problem_texts) == 3
    assert any("2019-03-01" in t for t in summary.problem_texts)
    # the listing (read as columns) shows every entry exactly as one entry reads
    add_player(fake, "Clean")
    clean_id = await register(registration, fake, BOB, "Clean")
    listed = {s.id: s for s in await registration.all()}
    assert listed == {
        registration_id: summary,
        clean_id: await registration.get(clean_id),
    }


async def test_second_account_of_same_user_is_refused_and_td_alerted(
    registration: RegistrationService, fake: FakeLichess, sessions
) -> None:
    add_player(fake, "Alice")
    add_player(fake, "AliceAlt")
    await register(registration, fake, ALICE, "Alice")
    before = len(await outbox(sessions))
    with pytest.raises(NotAllowed, match="already registered as Alice"):
        await registration.start(discord_id=ALICE, lichess_username="AliceAlt", is_td=False)
    alerts = (await outbox(sessions))[before:]
    assert len(alerts) == 1 and alerts[0].target_id == TD_ID
    assert "Alice" in alerts[0].content and "AliceAlt" in alerts[0].content
    assert await count(sessions, Player) == 1  # the refused account was not entered


async def test_same_account_by_another_user_is_refused_and_td_alerted(
    registration: RegistrationService, fake: FakeLichess, sessions
) -> None:
    add_player(fake, "Alice")
    await register(registration, fake, ALICE, "Alice")
    before = len(await outbox(sessions))
    with pytest.raises(NotAllowed, match="another Discord user"):
        await registration.start(discord_id=BOB, lichess_username="Alice", is_td=False)
    alerts = (await outbox(sessions))[before:]
    assert len(alerts) == 1 and f"<@{BOB}>" in alerts[0].content


async def test_registering_again_tells_the_state(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    await register(registration, fake, ALICE, "Alice")
    with pytest.raises(WrongStage, match="already registered as Alice"):
        await registration.start(discord_id=ALICE, lichess_username="alice", is_td=False)


async def test_td_decisions(registration: RegistrationService, fake: FakeLichess, sessions) -> None:
    add_player(fake, "Alice", games=50)
    add_player(fake, "Bob")
    alice = await register(registration, fake, ALICE, "Alice")
    bob = await register(registration, fake, BOB, "Bob")

    with pytest.raises(InvalidInput, match="needs a reason"):
        await registration.decide(registration_id=alice, td_id=TD_ID, approve=True, reason=None)
    assert (await registration.get(alice)).state is RegistrationState.PENDING

    approved = await registration.decide(
        registration_id=alice, td_id=TD_ID, approve=True, reason="Played 900 games in 2017"
    )
    assert approved.state is RegistrationState.APPROVED
    assert approved.exception_reason == "Played 900 games in 2017"

    with pytest.raises(InvalidInput, match="needs a comment"):
        await registration.decide(registration_id=bob, td_id=TD_ID, approve=False, reason="  ")
    rejected = await registration.decide(
        registration_id=bob, td_id=TD_ID, approve=False, reason="Second account"
    )
    assert rejected.state is RegistrationState.REJECTED and rejected.td_comment == "Second account"
    with pytest.raises(WrongStage, match="already rejected"):
        await registration.decide(registration_id=bob, td_id=TD_ID, approve=True, reason="x")

    dms = [m for m in await outbox(sessions) if m.target_id in (ALICE, BOB)]
    assert [m.target_id for m in dms] == [ALICE, BOB]
    assert "approved" in dms[0].content and "Second account" in dms[1].content
    assert await count(sessions, TDDecision) == 2
    async with sessions() as session:
        actions = (await session.scalars(select(AuditEntry.action))).all()
    assert "registration_approved" in actions and "registration_rejected" in actions


async def test_listing_is_best_seed_first(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Low", rating=1500)
    add_player(fake, "High", rating=2200)
    add_player(fake, "Mid", rating=1900)
    for offset, name in enumerate(["Low", "High", "Mid"]):
        await register(registration, fake, 200 + offset, name)
    assert [s.lichess_username for s in await registration.all()] == ["High", "Mid", "Low"]


async def test_withdraw_then_register_again(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    await register(registration, fake, ALICE, "Alice")
    withdrawn = await registration.withdraw(discord_id=ALICE)
    assert withdrawn.state is RegistrationState.WITHDRAWN
    with pytest.raises(WrongStage):
        await registration.withdraw(discord_id=ALICE)
    again = await register(registration, fake, ALICE, "Alice")
    assert (await registration.get(again)).state is RegistrationState.PENDING


async def test_lichess_down_changes_nothing(
    registration: RegistrationService, fake: FakeLichess, sessions
) -> None:
    add_player(fake, "Alice")
    fake.set_down(True)
    with pytest.raises(ExternalServiceError, match="try again"):
        await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    assert await count(sessions, OwnershipChallenge) == 0


async def test_rate_limit_then_success(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    fake.fail_next("/api/user/", 429)
    step = await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    assert step.lichess_username == "Alice"
    assert fake.count("/api/user/") == 2


async def test_seeding_uses_the_cest_cutoff(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice", rating=1800)
    # Ends 2019-08-31 21:50Z, before 00:00 CEST: counts; rating after 1800 + 20 = 1820.
    fake.add_game(
        white="Alice",
        black="x",
        created_at=datetime(2019, 8, 31, 21, 40, tzinfo=UTC),
        last_move_at=datetime(2019, 8, 31, 21, 50, tzinfo=UTC),
        white_rating=1800,
        white_rating_diff=20,
        id="before22",
    )
    # Ends 2019-08-31 22:30Z, after 00:00 CEST: does not count although before 24:00 UTC.
    fake.add_game(
        white="Alice",
        black="x",
        created_at=datetime(2019, 8, 31, 22, 20, tzinfo=UTC),
        last_move_at=datetime(2019, 8, 31, 22, 30, tzinfo=UTC),
        white_rating=1820,
        white_rating_diff=200,
        id="after22",
    )
    registration_id = await register(registration, fake, ALICE, "Alice")
    summary = await registration.get(registration_id)
    assert summary.rating_at_cutoff == 1820
    assert summary.rating_at_cutoff_game == "https://lichess.org/before22"
    assert summary.peak_rating == 1820
    assert summary.seeding_rating == 1820


async def test_after_withdrawing_a_player_may_enter_with_another_account(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    add_player(fake, "AliceNew")
    await register(registration, fake, ALICE, "Alice")
    await registration.withdraw(discord_id=ALICE)
    new_id = await register(registration, fake, ALICE, "AliceNew")
    summary = await registration.status(discord_id=ALICE)
    assert summary is not None and summary.id == new_id
    assert summary.lichess_username == "AliceNew"


async def test_after_a_rejection_another_account_is_refused(
    registration: RegistrationService, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    add_player(fake, "AliceNew")
    alice = await register(registration, fake, ALICE, "Alice")
    await registration.decide(registration_id=alice, td_id=TD_ID, approve=False, reason="No")
    with pytest.raises(WrongStage, match="was rejected"):
        await registration.start(discord_id=ALICE, lichess_username="AliceNew", is_td=False)


async def test_two_simultaneous_verify_presses_register_once(
    registration: RegistrationService, fake: FakeLichess, sessions
) -> None:
    add_player(fake, "Alice")
    step = await registration.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    fake.set_profile("Alice", bio=step.code)
    first, second = await asyncio.gather(
        registration.verify(discord_id=ALICE, challenge_id=step.challenge_id),
        registration.verify(discord_id=ALICE, challenge_id=step.challenge_id),
        return_exceptions=True,
    )
    outcomes = [first, second]
    summaries = [o for o in outcomes if not isinstance(o, BaseException)]
    assert summaries, outcomes
    assert all(isinstance(o, WrongStage) for o in outcomes if isinstance(o, BaseException))
    assert await count(sessions, Registration) == 1


async def test_pre_seeded_players_enter_the_format_stage_their_config_names(
    sessions: async_sessionmaker[AsyncSession], lichess, config, clock: FakeClock
) -> None:
    """A pre-seeded player is recorded with the engine kind of the format stage they enter:
    2024's champion and runner-up enter the Candidates pools (CANDIDATES rows); a format that
    pre-seeds a player straight into its Grand Final records a FINAL row's kind, not the key
    `grand_final`, which is no engine kind."""
    from bot.config import Config, with_preset
    from db.models import StageKind

    seeded = Config.model_validate(
        with_preset(
            {
                "preset": "acwc-2024",
                "players": {
                    "pre_seeded": [
                        {"lichess": "Champ", "role": "champion", "stage": "candidates"},
                        {"lichess": "Finalist", "role": "runner_up", "stage": "grand_final"},
                    ]
                },
                "database": {"url": config.database.url},
            }
        )
    )
    await build_registration(sessions, seeded, clock, lichess).ensure_pre_seeded()
    async with sessions() as session:
        kinds = {
            p.lichess_id: p.pre_seeded_stage for p in (await session.scalars(select(Player))).all()
        }
    assert kinds == {"champ": StageKind.CANDIDATES, "finalist": StageKind.FINAL}
