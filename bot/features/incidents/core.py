"""Match-day incidents (rule VI): what every incident use case shares. The match context,
the messages and the refusals are plain functions over the caller's session; `PlayedGames`
(Lichess's games between the two) and `IncidentBook` (a claim's timers and its call-off)
are the collaborators `bot.wiring` gives to `NoShows`, `Breaks` and `Overrules`.

Each use case reads and validates first, asks Lichess (outside any transaction) what it
needs, then writes the incident, its audit row, its due actions and its messages in one
short transaction, re-checking the incident's state there. Forfeits and disqualifications
go through `bot.features.discipline`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.config import Config
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.features.incidents import text as wording
from bot.features.matches.context import (
    current_match,
    load_context,
    match_progress,
    mention,
    message_player,
    place_of,
    player_by_discord,
    post_for_match,
)
from bot.features.matches.text import addressed, progress_board
from bot.features.matches.types import MatchProgress
from bot.lichess import LichessError, LichessNotFound
from bot.outbox import enqueue_channel
from bot.rules import match_conduct as conduct
from bot.service import Service
from bot.td_alerts import notify_td
from db.models import (
    Game,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Round,
)

SUBJECT = "incident"

NOSHOW_CHECK_VIEW = "incident_noshow_check"
NOSHOW_CHOICE_VIEW = "incident_noshow_choice"
LEFT_CLAIM_VIEW = "incident_left_claim"

LIVE = (IncidentState.OPEN, IncidentState.CONFIRMED)
PLAYING = (MatchState.SCHEDULED, MatchState.IN_PROGRESS)
NOT_PLAYED = frozenset({"aborted", "noStart"})


@dataclass
class IncidentContext:
    match: Match
    round_: Round
    me: Player
    opponent: Player

    @property
    def thread_id(self) -> int | None:
        return self.match.thread_id or self.round_.thread_id


async def my_match(session: AsyncSession, discord_id: int) -> IncidentContext:
    """The caller's match under way, with its opponent and round."""
    player = await player_by_discord(session, discord_id)
    match = await current_match(session, player)
    return await context_of(session, match, player)


async def context_of(session: AsyncSession, match: Match, me: Player) -> IncidentContext:
    if match.player_b_id is None:
        raise WrongStage(wording.bye_no_opponent())
    other_id = match.player_b_id if me.id == match.player_a_id else match.player_a_id
    opponent = await session.get(Player, other_id)
    round_ = await session.get(Round, match.round_id)
    assert opponent is not None and round_ is not None
    return IncidentContext(match, round_, me, opponent)


async def incident_context(
    session: AsyncSession, discord_id: int, incident_id: int
) -> tuple[MatchIncident, IncidentContext]:
    """The incident and its match, for its reporter only."""
    incident = await session.get(MatchIncident, incident_id)
    if incident is None:
        raise InvalidInput(wording.incident_gone())
    player = await player_by_discord(session, discord_id)
    if incident.reporter_id != player.id:
        raise NotAllowed(wording.not_yours())
    match = await session.get(Match, incident.match_id)
    assert match is not None
    return incident, await context_of(session, match, player)


def dm(
    session: AsyncSession,
    ctx: IncidentContext,
    player: Player,
    now: datetime,
    text: str,
    view: tuple[str, dict[str, int]] | None = None,
) -> None:
    """A DM; closed DMs (or no Discord link) fall back to the match thread."""
    message_player(session, player, thread_id=ctx.thread_id, now=now, content=text, view=view)


def post(session: AsyncSession, ctx: IncidentContext, now: datetime, text: str) -> None:
    if ctx.thread_id:
        enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=text)


def tell(
    session: AsyncSession,
    ctx: IncidentContext,
    players: Sequence[Player],
    now: datetime,
    text: str,
) -> None:
    """Once (docs/MESSAGES.md): the match thread's post mentioning `players`, which is
    their copy; without a thread, a DM to each."""
    post_for_match(
        session,
        players,
        thread_id=ctx.thread_id,
        now=now,
        content=addressed([mention(p) for p in players], text),
    )


async def live_incident(
    session: AsyncSession, match_id: int, kind: IncidentKind
) -> MatchIncident | None:
    return await session.scalar(
        select(MatchIncident).where(
            MatchIncident.match_id == match_id,
            MatchIncident.kind == kind,
            MatchIncident.state.in_(LIVE),
        )
    )


async def progress_of(session: AsyncSession, ctx: IncidentContext) -> MatchProgress | None:
    """The match's games so far, read only when a refusal may show them (not for a match
    waiting for its first game)."""
    if ctx.match.state is MatchState.SCHEDULED:
        return None
    return await match_progress(session, await load_context(session, ctx.match))


async def refuse_if_played(session: AsyncSession, ctx: IncidentContext) -> None:
    """A decided match, or one with a counted game, has nothing to claim
    (`bot.rules.match_conduct.played_refusal`): say why, with the board."""
    refuse_played(ctx, await progress_of(session, ctx))


def refuse_played(ctx: IncidentContext, progress: MatchProgress | None) -> None:
    counted = len(progress.counted) if progress is not None else 0
    refusal = conduct.played_refusal(ctx.match.state.value, counted)
    if refusal is None:
        return
    board = progress_board(progress) if progress is not None else ""
    if refusal == "decided":
        raise WrongStage(wording.match_decided(board))
    raise WrongStage(wording.games_played(board))


async def db_games_since(session: AsyncSession, match_id: int, since: datetime) -> bool:
    """A game the results job already attributed to the match, created since `since`."""
    found = await session.scalar(
        select(Game.id).where(Game.match_id == match_id, Game.created_at >= since).limit(1)
    )
    return found is not None


class PlayedGames(Service):
    """Whether the two players met: Lichess's games between them (read outside any
    transaction), and from when a game cancels an incident (rule VI.D)."""

    def cancel_from(self, agreed: datetime) -> datetime:
        """From when games between the two cancel a no-show (rule VI.D)."""
        return conduct.games_cancel_from(agreed, self.config.match_day.game_time_margin_minutes)

    async def between(
        self, a: Player, b: Player, since: datetime, *, required: bool
    ) -> list[str] | None:
        """Lichess game links between a and b created since `since` (outside transactions),
        games in progress included (marked so): a pair at the board is no no-show.

        The export is read without `rated`/`perfType`, so Lichess filters the creation time
        and sends unfinished games with `ongoing`. A closed account's export is refused:
        then the other player's is read. None when Lichess cannot be reached and `required`
        is False; with `required` the player is told to try again and nothing changes.
        """
        try:
            try:
                games = await self.lichess.export_games(
                    a.lichess_username, since=since, vs=b.lichess_username, max_games=20,
                    ongoing=True,
                )  # fmt: skip
            except LichessNotFound:  # a's account is closed: b's export shows the same games
                games = await self.lichess.export_games(
                    b.lichess_username, since=since, vs=a.lichess_username, max_games=20,
                    ongoing=True,
                )  # fmt: skip
        except LichessError as exc:
            told = await self.lichess_failed(exc)
            if required:
                raise ExternalServiceError(told) from exc
            return None
        return [
            g.url if g.finished else wording.in_progress(g.url)
            for g in games
            if g.status not in NOT_PLAYED
        ]


class IncidentBook:
    """An incident's life after the report, inside the caller's transaction: a timer that
    asks the claimant, and a claim called off (its timers cancelled, whoever heard of it
    told)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    async def cancel(
        self,
        session: AsyncSession,
        incident: MatchIncident,
        now: datetime,
        why: str,
        actor: Actor,
        *,
        reason: str = "",
    ) -> None:
        """Call the claim off; `why` is a code of `wording` (GAME_FOUND, SHOWED_UP, CAME_BACK,
        OVERRULED with the TD's quoted `reason`), worded for each reader."""
        incident.state = IncidentState.CANCELLED
        incident.resolved_at = now
        incident.details = {**incident.details, "cancelled": why}
        await due.cancel(session, subject_type=SUBJECT, subject_id=incident.id, now=now)
        record(
            session,
            at=now,
            actor=actor,
            action="incident_cancelled",
            subject_type=SUBJECT,
            subject_id=incident.id,
            details={"why": why, **({"reason": reason} if reason else {})},
        )
        await self._tell_claim_withdrawn(session, incident, now, why, actor, reason)

    async def _tell_claim_withdrawn(
        self,
        session: AsyncSession,
        incident: MatchIncident,
        now: datetime,
        why: str,
        actor: Actor,
        reason: str,
    ) -> None:
        """Whoever heard of the claim hears it is off, each in their own words (docs/
        MESSAGES.md): the accused (told they might lose by forfeit); the claimant, unless
        their own button called it off (its reply told them) or the TD's ruling did (its
        thread post tells them); the TD (who got the report), unless it was their ruling."""
        match = await session.get(Match, incident.match_id)
        accused = await session.get(Player, incident.against_id) if incident.against_id else None
        claimant = await session.get(Player, incident.reporter_id)
        if match is None or accused is None or claimant is None:
            return
        kind = incident.kind.value
        place = await place_of(session, self.config.format, match)
        names = (claimant.lichess_username, accused.lichess_username)

        def because(reader: str) -> str:
            return wording.withdrawn_why(why, reader, *names, reason)

        message_player(
            session,
            accused,
            thread_id=match.thread_id,
            now=now,
            content=wording.claim_withdrawn_accused(place, kind, names[0], because("accused")),
        )
        by_claimant = actor.kind == "player" and actor.discord_id == claimant.discord_id
        if actor.kind != "td" and not by_claimant:
            message_player(
                session,
                claimant,
                thread_id=match.thread_id,
                now=now,
                content=wording.claim_withdrawn_claimant(
                    place, kind, names[1], because("claimant")
                ),
            )
        if actor.kind != "td":
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.claim_withdrawn_td(
                    place, incident.created_at, kind, *names, because("td")
                ),
            )

    @staticmethod
    async def ask_claimant(
        session: AsyncSession,
        incident_id: int,
        now: datetime,
        *,
        match_states: tuple[MatchState, ...],
        confirm: bool,
        message: Callable[[str], str],
        view_kind: str,
        audit_action: str,
    ) -> None:
        """A timer ran out on a live incident: DM the claimant a question with buttons."""
        incident = await session.get(MatchIncident, incident_id)
        if incident is None or incident.state is not IncidentState.OPEN:
            return
        match = await session.get(Match, incident.match_id)
        me = await session.get(Player, incident.reporter_id)
        if match is None or me is None or match.state not in match_states:
            return
        if confirm:
            incident.state = IncidentState.CONFIRMED
        ctx = await context_of(session, match, me)
        dm(
            session,
            ctx,
            me,
            now,
            message(ctx.opponent.lichess_username),
            view=(view_kind, {"incident_id": incident.id}),
        )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action=audit_action,
            subject_type=SUBJECT,
            subject_id=incident.id,
        )
