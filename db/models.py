"""The championship's tables: registration through the Final, plus outbox, due actions, audit.

State lives here and not in memory (docs/ARCHITECTURE.md, "Timers: due actions"), so a
restart loses nothing. Alembic migrations are the only way this schema reaches a
database; `acwc db check` fails when these models and the migrations disagree.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from db.types import UTCDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _enum(cls: type[enum.Enum]) -> Enum:
    """Enums stored by value as plain strings (no native enum, no CHECK), so they migrate easily."""
    return Enum(
        cls,
        values_callable=lambda members: [m.value for m in members],
        native_enum=False,
        create_constraint=False,
        length=32,
    )


class RegistrationState(enum.StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"


class StageKind(enum.StrEnum):
    SWISS = "swiss"
    # 10-game matches between players still tied across the qualifying places (III.E.5)
    TIEBREAK = "tiebreak"
    CANDIDATES = "candidates"
    FINAL = "final"
    KNOCKOUT = "knockout"


class StageState(enum.StrEnum):
    PLANNED = "planned"
    RUNNING = "running"
    FINISHED = "finished"


class RoundState(enum.StrEnum):
    DRAFT = "draft"
    PUBLISHED = "published"
    FINISHED = "finished"


class MatchState(enum.StrEnum):
    NEGOTIATING = "negotiating"
    SCHEDULED = "scheduled"
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    FORFEITED = "forfeited"
    BYE = "bye"


class OfferState(enum.StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"


class OfferKind(enum.StrEnum):
    OFFER = "offer"
    RESCHEDULE = "reschedule"
    CHOSEN = "chosen"  # chosen by the opponent of a player at fault (rules V.E, V.I)
    ASSIGNED = "assigned"  # assigned by the TD (rules V.F, V.I)


class IncidentKind(enum.StrEnum):
    NO_SHOW = "no_show"
    BREAK = "break"
    LEFT = "left"
    FORFEIT_CLAIM = "forfeit_claim"


class IncidentState(enum.StrEnum):
    OPEN = "open"
    CONFIRMED = "confirmed"
    CLAIMED = "claimed"
    CANCELLED = "cancelled"
    RESOLVED = "resolved"


class ReportState(enum.StrEnum):
    OPEN = "open"
    INVESTIGATING = "investigating"
    DISMISSED = "dismissed"
    UPHELD = "upheld"


class OutboxKind(enum.StrEnum):
    CHANNEL = "channel"
    DM = "dm"
    EDIT = "edit"


class Player(Base):
    """One Lichess account in the championship, linked to at most one Discord user."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    lichess_id: Mapped[str] = mapped_column(String(30), unique=True)
    lichess_username: Mapped[str] = mapped_column(String(30))
    discord_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    pre_seeded_stage: Mapped[StageKind | None] = mapped_column(_enum(StageKind))
    seeding_rating: Mapped[float | None] = mapped_column(Float)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    disqualified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    disqualification_reason: Mapped[str | None] = mapped_column(Text)
    # When the daily check first saw a Lichess tosViolation mark (rule VII.C).
    tos_marked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The tz database zone (/timezone) /offer reads the player's times in when they give none.
    time_zone: Mapped[str | None] = mapped_column(String(64))
    # /notify reminders:off: no reminder DMs (match reminders, unanswered offers); decisions
    # that concern the player still reach them.
    reminders_muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    registration: Mapped[Registration | None] = relationship(back_populates="player")


class OwnershipChallenge(Base):
    """A one-time code the player must put in their Lichess profile to prove ownership."""

    __tablename__ = "ownership_challenges"

    id: Mapped[int] = mapped_column(primary_key=True)
    discord_id: Mapped[int] = mapped_column(BigInteger, index=True)
    lichess_id: Mapped[str] = mapped_column(String(30))
    lichess_username: Mapped[str] = mapped_column(String(30))
    code: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    verified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class LoginLink(Base):
    """A "Log in with Lichess" link that /register gave one Discord user for the account its
    ownership challenge names: single-use, short-lived, kept here so a restart loses none.
    Only hashes of the link token and of the OAuth `state` are stored (a database reader
    cannot use a link); the PKCE `code_verifier` is kept until the callback needs it."""

    __tablename__ = "login_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("ownership_challenges.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    state_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    code_verifier: Mapped[str | None] = mapped_column(String(128))
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    outcome: Mapped[str | None] = mapped_column(String(32))


class Registration(Base):
    """A verified entry with its eligibility evidence, seeding figures and the TD's decision."""

    __tablename__ = "registrations"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), unique=True
    )
    state: Mapped[RegistrationState] = mapped_column(_enum(RegistrationState))
    problems: Mapped[list[str]] = mapped_column(JSON, default=list)
    evidence: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    account_created_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rated_games_before_cutoff: Mapped[int | None] = mapped_column(Integer)
    rating_at_cutoff: Mapped[int | None] = mapped_column(Integer)
    rating_at_cutoff_game: Mapped[str | None] = mapped_column(String(200))
    peak_rating: Mapped[int | None] = mapped_column(Integer)
    peak_rating_game: Mapped[str | None] = mapped_column(String(200))
    seeding_rating: Mapped[float | None] = mapped_column(Float)
    exception_reason: Mapped[str | None] = mapped_column(Text)
    td_comment: Mapped[str | None] = mapped_column(Text)
    decided_by: Mapped[int | None] = mapped_column(BigInteger)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())

    player: Mapped[Player] = relationship(back_populates="registration")


class Setting(Base):
    """Small runtime switches the TD flips (e.g. the registration override)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


NO_POOL = ""  # `Stage.pool` of a stage that is not one pool of a round-robin stage


class Stage(Base):
    """One stage of the format as it runs, or one pool of a round-robin stage.

    `key`, `name` and `position` are the format stage's (`config.format.stages[position]`),
    `pool` the pool's key for one pool of a round-robin stage and `NO_POOL` ("") otherwise.
    The 2019 tiebreak matches (rule III.E.5) are a row of their own but not a stage of the
    format: key "<swiss key>_tiebreak", name "Tiebreak matches", the Swiss stage's position.

    One row per (key, pool): the pool is "" rather than NULL for a stage without pools
    because NULLs are distinct in a UNIQUE constraint on both SQLite and PostgreSQL, so
    (key, NULL) could repeat. `kind` is the engine's kind and no longer unique: a format may
    have two stages of one kind (the Grand Final and the Third Place Playoff).
    """

    __tablename__ = "stages"
    __table_args__ = (UniqueConstraint("key", "pool"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[StageKind] = mapped_column(_enum(StageKind))
    key: Mapped[str] = mapped_column(String(31))
    name: Mapped[str] = mapped_column(String(40))
    position: Mapped[int] = mapped_column(Integer)
    pool: Mapped[str] = mapped_column(String(31), default=NO_POOL, server_default=NO_POOL)
    state: Mapped[StageState] = mapped_column(_enum(StageState))
    total_rounds: Mapped[int | None] = mapped_column(Integer)
    seeding: Mapped[list[int]] = mapped_column(JSON, default=list)  # player ids, best first
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    rounds: Mapped[list[Round]] = relationship(back_populates="stage", order_by="Round.number")


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("stage_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("stages.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    state: Mapped[RoundState] = mapped_column(_enum(RoundState))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    deadline: Mapped[datetime] = mapped_column(UTCDateTime())
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The pairings post (rule V.A's "Pairings forum post"): the channel holding its message
    # (a forum post's own thread, or the text channel) and the thread where matches talk.
    post_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    post_message_id: Mapped[int | None] = mapped_column(BigInteger)
    thread_id: Mapped[int | None] = mapped_column(BigInteger)

    stage: Mapped[Stage] = relationship(back_populates="rounds")
    matches: Mapped[list[Match]] = relationship(back_populates="round")


class Match(Base):
    """A pairing; `player_b_id` is None for a bye. Game points are kept from each side."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"), index=True)
    player_a_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    player_b_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    board: Mapped[int] = mapped_column(Integer, default=1)
    state: Mapped[MatchState] = mapped_column(_enum(MatchState))
    # Who decides the time after a fault (rules V.E, V.I), or the TD must assign it (V.F, V.I).
    chooser_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    td_assigns: Mapped[bool] = mapped_column(Boolean, default=False)
    message_id: Mapped[int | None] = mapped_column(BigInteger)  # the match's status message
    agreed_time: Mapped[datetime | None] = mapped_column(UTCDateTime())
    score_a: Mapped[float] = mapped_column(Float, default=0.0)
    score_b: Mapped[float] = mapped_column(Float, default=0.0)
    points_a: Mapped[float | None] = mapped_column(Float)
    points_b: Mapped[float | None] = mapped_column(Float)
    forfeit_winner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    scoreboard_message_id: Mapped[int | None] = mapped_column(BigInteger)
    challenge_url: Mapped[str | None] = mapped_column(String(200))
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    round: Mapped[Round] = relationship(back_populates="matches")
    games: Mapped[list[Game]] = relationship(back_populates="match", order_by="Game.number")


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    lichess_id: Mapped[str] = mapped_column(String(16), unique=True)
    number: Mapped[int] = mapped_column(Integer)
    white_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    black_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    status: Mapped[str] = mapped_column(String(32))
    winner: Mapped[str | None] = mapped_column(String(8))
    result_a: Mapped[float] = mapped_column(Float)
    counted: Mapped[bool] = mapped_column(Boolean, default=True)
    voided_reason: Mapped[str | None] = mapped_column(Text)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    match: Mapped[Match] = relationship(back_populates="games")


class TimeOffer(Base):
    __tablename__ = "time_offers"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    offered_by_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    kind: Mapped[OfferKind] = mapped_column(_enum(OfferKind))
    proposed_time: Mapped[datetime] = mapped_column(UTCDateTime())
    state: Mapped[OfferState] = mapped_column(_enum(OfferState))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    message_id: Mapped[int | None] = mapped_column(BigInteger)


class MatchIncident(Base):
    """No-show, break, left and forfeit claims, each with its own life cycle."""

    __tablename__ = "match_incidents"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    kind: Mapped[IncidentKind] = mapped_column(_enum(IncidentKind))
    state: Mapped[IncidentState] = mapped_column(_enum(IncidentState))
    reporter_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    against_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class CheatReport(Base):
    """A private accusation (rule VII.A): only the TD ever sees who reported whom."""

    __tablename__ = "cheat_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    reporter_discord_id: Mapped[int] = mapped_column(BigInteger)
    accused_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    game_links: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text)
    state: Mapped[ReportState] = mapped_column(_enum(ReportState))
    td_note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class TDDecision(Base):
    """A ruling by the TD (exception, fault, overrule, disqualification), with its reason."""

    __tablename__ = "td_decisions"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[int] = mapped_column(Integer)
    decision: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)
    td_discord_id: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class OutboxMessage(Base):
    """A message a service wants sent, written in the same transaction as the state change."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_pending", "sent_at", "next_attempt_at"),
        CheckConstraint("attempts >= 0", name="attempts_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[OutboxKind] = mapped_column(_enum(OutboxKind))
    target_id: Mapped[int] = mapped_column(BigInteger)  # channel id, or user id for DMs
    edit_message_id: Mapped[int | None] = mapped_column(BigInteger)
    content: Mapped[str] = mapped_column(Text, default="")
    embeds: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    view: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # {"kind": ..., "args": {...}}
    # A file drawn at send time from plain data: {"kind": ..., "args": {...}} (see
    # OutboxWorker.register_attachment), e.g. the standings picture of a round's table.
    attachment: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    fallback_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    dedupe_key: Mapped[str | None] = mapped_column(String(128), unique=True)
    # An edit of the message another row (with this dedupe_key) posted, once that one is sent.
    edit_of_key: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    failed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    discord_message_id: Mapped[int | None] = mapped_column(BigInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    # The lease of the flush now sending this row (see bot.outbox): until `claimed_until` no
    # other flush may send it, and only the holder of `claim_token` may mark it afterwards.
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    claim_token: Mapped[str | None] = mapped_column(String(32))


class DueAction(Base):
    """A deadline, reminder or grace period as a row: run once, even across restarts."""

    __tablename__ = "due_actions"
    __table_args__ = (
        UniqueConstraint("kind", "subject_type", "subject_id", "due_at"),
        Index("ix_due_actions_pending", "done_at", "due_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class AuditEntry(Base):
    """Who or what caused each state change (docs/ARCHITECTURE.md)."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    actor_type: Mapped[str] = mapped_column(String(16))  # player, td, job, system
    actor_id: Mapped[int | None] = mapped_column(BigInteger)
    action: Mapped[str] = mapped_column(String(64))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[int | None] = mapped_column(Integer)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
