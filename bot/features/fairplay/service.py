"""Fair play (rule VII): private cheat reports, the TD's handling, Lichess account marks.

Privacy is the point of rule VII.A: a report's reporter and contents go to the TD only
(their DMs, else the TD alert channel) and into the DB; logs carry the report id and
nothing else. The bot never punishes on its own: account marks and public accusations
are shown to the TD, who disqualifies with one click or a command.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.audit import Actor, record, record_td_decision
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.features.discipline import service as discipline
from bot.features.fairplay import text as wording
from bot.features.fairplay.types import (
    ENGINE_DQ_VIEW,
    REPORT_VIEW,
    AccountCheck,
    AccountMark,
    PublicFlag,
    ReportChange,
    ReportInfo,
    ReportReceipt,
)
from bot.lichess.errors import LichessError
from bot.outbox import enqueue_dm
from bot.rules import fairplay as rules
from bot.rules import withdrawals
from bot.rules.eligibility import is_td
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    CheatReport,
    Match,
    Player,
    Registration,
    RegistrationState,
    ReportState,
)

log = logging.getLogger(__name__)

REPORT_SUBJECT = "cheat_report"
PLAYER_SUBJECT = "player"
EXCERPT_MAX = 300


def _active() -> list[ColumnElement[bool]]:
    """Players still in the championship: approved, pre-seeded or paired; not out."""
    has_match = (
        select(Match.id)
        .where(or_(Match.player_a_id == Player.id, Match.player_b_id == Player.id))
        .exists()
    )
    return [
        Player.withdrawn_at.is_(None),
        Player.disqualified_at.is_(None),
        or_(
            Registration.state == RegistrationState.APPROVED,
            Player.pre_seeded_stage.is_not(None),
            has_match,
        ),
    ]


async def _active_players(session: AsyncSession) -> list[Player]:
    return list(
        (
            await session.scalars(
                select(Player)
                .outerjoin(Registration, Registration.player_id == Player.id)
                .where(*_active())
                .order_by(Player.id)
            )
        ).all()
    )


def _info(report: CheatReport, accused: Player) -> ReportInfo:
    return ReportInfo(
        id=report.id,
        reporter_discord_id=report.reporter_discord_id,
        accused_player_id=accused.id,
        accused=accused.lichess_username,
        links=tuple(rules.split_links(report.game_links)),
        description=report.description,
        state=report.state.value,
        td_note=report.td_note,
        created_at=report.created_at,
    )


class FairPlayService(Service):
    # --- reports (rule VII.A) -----------------------------------------------------------

    async def report(
        self,
        *,
        reporter_discord_id: int,
        accused: str,
        game_links: str,
        description: str,
    ) -> ReportReceipt:
        """Store a private report and send it to the TD only; the reply names no reporter."""
        description = description.strip()
        if not description:
            raise InvalidInput(wording.empty_description())
        if len(description) > rules.DESCRIPTION_MAX:
            raise InvalidInput(wording.description_too_long())
        if len(game_links) > rules.LINKS_MAX:
            raise InvalidInput(wording.links_too_long())
        links = rules.split_links(game_links)
        bad = rules.link_problems(links)
        if bad:
            raise InvalidInput(wording.bad_links(bad))
        typed = accused.strip().lstrip("@")
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            players = await _active_players(session)
            target = next((p for p in players if p.lichess_id == typed.lower()), None)
            if target is None:
                names = [p.lichess_username for p in players]
                raise InvalidInput(
                    wording.unknown_participant(typed, rules.close_names(typed, names))
                )
            if target.discord_id == reporter_discord_id:
                raise NotAllowed(wording.self_report())
            report = CheatReport(
                reporter_discord_id=reporter_discord_id,
                accused_player_id=target.id,
                game_links="\n".join(links),
                description=description,
                state=ReportState.OPEN,
                td_note=None,
                created_at=now,
                updated_at=now,
            )
            session.add(report)
            await session.flush()
            # The audit row is TD-readable; it holds the ids, the contents stay in the report.
            record(
                session,
                at=now,
                actor=Actor.player(reporter_discord_id),
                action="fairplay.report",
                subject_type=REPORT_SUBJECT,
                subject_id=report.id,
                details={"accused_player_id": target.id},
            )
            info = _info(report, target)
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.report_for_td(info),
                embeds=wording.report_embeds(info),
                view=(REPORT_VIEW, {"report_id": report.id}),
            )
        log.info("cheat report %s received", info.id)
        return ReportReceipt(id=info.id, accused=info.accused)

    async def list_reports(self, state: str | None = None) -> list[ReportInfo]:
        """Every report (or those in one state), newest first: for the TD only."""
        async with self.sessions() as session:
            accused = aliased(Player)
            query = select(CheatReport, accused).join(
                accused, accused.id == CheatReport.accused_player_id
            )
            if state is not None:
                query = query.where(CheatReport.state == ReportState(state))
            rows = (await session.execute(query.order_by(CheatReport.id.desc()))).all()
            return [_info(report, player) for report, player in rows]

    async def get_report(self, report_id: int) -> ReportInfo:
        async with self.sessions() as session:
            report = await session.get(CheatReport, report_id)
            if report is None:
                raise InvalidInput(wording.no_such_report(report_id))
            accused = await session.get(Player, report.accused_player_id)
            assert accused is not None  # foreign key
            return _info(report, accused)

    async def set_state(
        self,
        *,
        td_id: int,
        report_id: int,
        state: str,
        note: str | None = None,
        engine_mark: bool = False,
    ) -> ReportChange:
        """The TD moves a report; upheld disqualifies the accused (rule VII.B).

        The reporter is told once that the report was handled, never the outcome.
        """

        note = (note or "").strip() or None
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            report = await session.get(CheatReport, report_id)
            if report is None:
                raise InvalidInput(wording.no_such_report(report_id))
            previous = report.state.value
            problem = rules.transition_problem(previous, state)
            if problem is not None:
                raise WrongStage(wording.transition_refused(problem, previous, state))
            accused = await session.get(Player, report.accused_player_id)
            assert accused is not None  # foreign key
            report.state = ReportState(state)
            report.td_note = note or report.td_note
            report.updated_at = now
            actor = Actor.td(td_id)
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="cheat_report",
                subject_type=REPORT_SUBJECT,
                subject_id=report.id,
                decision=state,
                reason=note,
                action="fairplay.report_state",
                details={"from": previous, "to": state, "note": note, "engine_mark": engine_mark},
            )
            disqualified = False
            if state == rules.UPHELD and accused.disqualified_at is None:
                await discipline.disqualify(
                    session,
                    self.config,
                    self.events,
                    player_id=accused.id,
                    reason=wording.upheld_reason(),
                    engine_mark=engine_mark,
                    actor=actor,
                    now=now,
                )
                disqualified = True
            if state in rules.FINAL_STATES and previous not in rules.FINAL_STATES:
                # No public fallback: a reporter with closed DMs must not be named anywhere.
                enqueue_dm(
                    session,
                    user_id=report.reporter_discord_id,
                    now=now,
                    content=wording.report_handled(report.id),
                )
            info = _info(report, accused)
        log.info("cheat report %s set to %s", report_id, state)
        return ReportChange(report=info, previous=previous, disqualified=disqualified)

    # --- Lichess account marks (rules VII.C, VIII.A.2) ------------------------------------

    async def check_accounts(self) -> AccountCheck:
        """The periodic job: one batched Lichess request; each new mark is alerted once."""
        async with self.sessions() as session:
            players = await _active_players(session)
            ids = [p.lichess_id for p in players]
        if not ids:
            return AccountCheck(checked=0, marked=[])
        try:
            users = await self.lichess.get_users(ids)
        except LichessError as exc:
            log.warning("fair-play account check skipped: %s", type(exc).__name__)
            await self.lichess_failed(exc)  # a refused token reaches the TD, once
            return AccountCheck(checked=0, marked=[])
        by_id = {u.id: u for u in users}
        marked: list[AccountMark] = []
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            for player in players:
                user = by_id.get(player.lichess_id)
                row = await session.get(Player, player.id)
                if user is None or row is None:
                    continue
                if not rules.new_account_mark(
                    tos_violation=user.tos_violation,
                    closed=user.disabled,
                    already_marked=row.tos_marked_at is not None,
                    disqualified=row.disqualified_at is not None,
                ):
                    continue
                row.tos_marked_at = now
                mark = AccountMark(
                    player_id=row.id,
                    name=row.lichess_username,
                    tos_violation=user.tos_violation,
                    disabled=user.disabled,
                )
                record(
                    session,
                    at=now,
                    actor=Actor.job(),
                    action="fairplay.account_mark",
                    subject_type=PLAYER_SUBJECT,
                    subject_id=row.id,
                    details={"tos_violation": user.tos_violation, "disabled": user.disabled},
                )
                notify_td(
                    session,
                    self.config,
                    now=now,
                    content=wording.account_mark_for_td(mark),
                    view=(ENGINE_DQ_VIEW, {"player_id": row.id}),
                )
                marked.append(mark)
        if marked:
            log.info("fair-play check: %d new account mark(s)", len(marked))
        return AccountCheck(checked=len(ids), marked=marked)

    async def disqualify_for_mark(self, *, td_id: int, player_id: int, engine: bool) -> str:
        """The TD's one click after an account alert; returns the player's name."""

        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await session.get(Player, player_id)
            refusal = rules.mark_refusal(
                exists=player is not None,
                disqualified=player is not None and player.disqualified_at is not None,
            )
            if refusal == "no_player":
                raise InvalidInput(wording.no_such_player(player_id))
            assert player is not None
            if refusal == "already_disqualified":
                raise WrongStage(wording.already_disqualified(player.lichess_username))
            reason = rules.mark_leave_reason(engine=engine)
            record(
                session,
                at=now,
                actor=Actor.td(td_id),
                action="fairplay.mark_dq",
                subject_type=PLAYER_SUBJECT,
                subject_id=player.id,
                details={"engine_mark": engine},
            )
            await discipline.disqualify(
                session,
                self.config,
                self.events,
                player_id=player.id,
                reason=wording.engine_reason(engine),
                engine_mark=reason == withdrawals.ENGINE,
                actor=Actor.td(td_id),
                now=now,
            )
            return player.lichess_username

    # --- public accusations (rule VII.A), optional ------------------------------------------

    async def flag_message(
        self,
        *,
        guild_id: int,
        channel_id: int,
        message_id: int,
        author_id: int,
        content: str,
        author_role_ids: Collection[int] = (),
    ) -> PublicFlag | None:
        """Show the TD a public message that looks like a cheating accusation; nothing else.
        The TD's own messages (rule 1.2: a TD user id or the TD role) are never flagged."""
        if not self.config.fair_play.flag_public_accusations:
            return None
        cfg = self.config.discord
        by_td = is_td(
            author_id, author_role_ids, td_user_ids=cfg.td_user_ids, td_role_id=cfg.td_role_id
        )
        if by_td or not rules.has_keyword(content):
            return None
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            players = await _active_players(session)
            aliases: dict[str, str] = {}
            for p in players:
                if p.discord_id == author_id:
                    continue  # "I am no cheater" is not an accusation
                aliases[p.lichess_id] = p.lichess_username
                if p.discord_id is not None:
                    aliases[f"<@{p.discord_id}>"] = p.lichess_username
            accusation = rules.find_accusation(content, aliases)
            if accusation is None:
                return None
            excerpt = content if len(content) <= EXCERPT_MAX else content[: EXCERPT_MAX - 3] + "..."
            flag = PublicFlag(
                author_id=author_id,
                channel_id=channel_id,
                jump_url=f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}",
                names=accusation.names,
                keywords=accusation.keywords,
                excerpt=excerpt,
            )
            record(
                session,
                at=now,
                actor=Actor.job(),
                action="fairplay.public_flag",
                subject_type="discord_message",
                subject_id=None,
                details={
                    "message_id": message_id,
                    "channel_id": channel_id,
                    "author_id": author_id,
                    "names": list(accusation.names),
                },
            )
            notify_td(session, self.config, now=now, content=wording.public_flag_for_td(flag))
        log.info("possible public accusation flagged: message %s", message_id)
        return flag
