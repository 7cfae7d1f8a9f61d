"""/schedule: every match of the calling player, read in one short session, and their
calendar file.

It only reads. The times come from negotiation (the match's agreed time, and one
`match_time_set` audit row per agreement or change, which gives each calendar event its
SEQUENCE), the scores and games from the results.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import or_, select

from bot import stage_kinds
from bot.features.matches.context import player_by_discord
from bot.features.matches.text import stage_label
from bot.features.schedule.feeds import feed_links
from bot.features.schedule.ics import calendar_file
from bot.features.schedule.reads import counted_games, names, times_set
from bot.features.schedule.types import Schedule, ScheduleEntry
from bot.service import Service
from db.models import Match, MatchState, Round, RoundState, Stage


class ScheduleService(Service):
    """The player's own matches in every stage and round, and their agreed times as .ics."""

    async def schedule(self, *, discord_id: int) -> Schedule:
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            found = (
                await session.execute(
                    select(Match, Round, Stage)
                    .join(Round, Match.round_id == Round.id)
                    .join(Stage, Round.stage_id == Stage.id)
                    .where(
                        Round.state != RoundState.DRAFT,
                        or_(Match.player_a_id == player.id, Match.player_b_id == player.id),
                    )
                    .order_by(Round.starts_at, Round.id, Match.id)
                )
            ).all()
            match_ids = [match.id for match, _, _ in found]
            opponents = {
                other
                for match, _, _ in found
                for other in (match.player_a_id, match.player_b_id)
                if other is not None and other != player.id
            }
            found_names = await names(session, opponents)
            games = await counted_games(session, match_ids)
            agreements = await times_set(session, match_ids)
        entries: list[ScheduleEntry] = []
        for match, round_, stage in found:
            mine_a = match.player_a_id == player.id
            opponent_id = match.player_b_id if mine_a else match.player_a_id
            forfeit_won = None
            if match.state is MatchState.FORFEITED and match.forfeit_winner_id is not None:
                forfeit_won = match.forfeit_winner_id == player.id
            entries.append(
                ScheduleEntry(
                    match_id=match.id,
                    stage=stage_label(stage.kind, stage.name),
                    round_number=round_.number,
                    board=match.board,
                    opponent=found_names.get(opponent_id) if opponent_id is not None else None,
                    state=match.state,
                    agreed_time=match.agreed_time,
                    my_score=match.score_a if mine_a else match.score_b,
                    opponent_score=match.score_b if mine_a else match.score_a,
                    round_deadline=round_.deadline,
                    game_links=games.get(match.id, []),
                    challenge_url=match.challenge_url,
                    forfeit_won=forfeit_won,
                    # The first agreement is version 0; each change after it adds one.
                    time_changes=max(0, agreements.get(match.id, 0) - 1),
                    named_in_summary=not (
                        stage_kinds.is_qualification(self.config.format, stage)
                        and not stage_kinds.is_tiebreak_matches(stage)
                    ),
                )
            )
        built = calendar_file(
            entries,
            player=player.lichess_username,
            short_name=self.config.tournament.short_name,
            duration=timedelta(minutes=self.config.negotiation.finish_margin_minutes),
            now=now,
        )
        data, events = built if built is not None else (None, 0)
        return Schedule(
            player=player.lichess_username,
            upcoming=[e for e in entries if not e.decided],
            past=[e for e in entries if e.decided],
            calendar=data,
            events=events,
            feeds=feed_links(self.config, player.lichess_username),
        )
