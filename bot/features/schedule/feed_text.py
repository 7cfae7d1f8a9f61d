"""Wording of the calendar feeds: the calendars' names, each event's summary and
description, and the page for a player the championship does not know.

A match is named by its place and its players ("ACWC 2019 Swiss round 3, board 2: Alice vs
Bob"), never by its row (issue 32); times are not written here at all: DTSTART is UTC and the
reader's calendar shows it in their zone.
"""

from __future__ import annotations

from bot.features.matches.text import score
from bot.features.schedule.feed_read import FeedMatch
from db.models import MatchState


def championship_name(name: str) -> str:
    return name


def player_calendar_name(short_name: str, player: str) -> str:
    return f"{short_name}: {player}'s matches"


def summary(short_name: str, match: FeedMatch, first: str | None = None) -> str:
    """`first`: the player whose feed it is, named first (their calendar, their match)."""
    a, b = match.player_a, match.player_b
    if first is not None and first == b:
        a, b = b, a
    return f"{short_name} {match.place}: {a} vs {b}"


def _winner(match: FeedMatch) -> str | None:
    """Who won by match points (a knock-out's Armageddon decides a level score), else by
    game points; None: a draw."""
    if match.points_a is not None and match.points_b is not None:
        ours, theirs = match.points_a, match.points_b
    else:
        ours, theirs = match.score_a, match.score_b
    if ours == theirs:
        return None
    return match.player_a if ours > theirs else match.player_b


def _score(match: FeedMatch) -> str:
    return f"{match.player_a} {score(match.score_a)}–{score(match.score_b)} {match.player_b}"


def result(match: FeedMatch) -> str | None:
    """The result line of a decided match, the score so far of one under way, else None."""
    if match.state is MatchState.FORFEITED:
        if match.forfeit_winner is None:
            return "Result: decided by forfeit, with no winner."
        return f"Result: {match.forfeit_winner} won by forfeit."
    if match.state is MatchState.FINISHED:
        winner = _winner(match)
        outcome = f"{winner} won" if winner else "drawn"
        return f"Result: {_score(match)} ({outcome})."
    if match.state is MatchState.IN_PROGRESS:
        return f"Under way: {_score(match)}."
    return None


def description(match: FeedMatch, page: str) -> str:
    """The place and players, the result when there is one, the game links, the page."""
    lines = [f"{match.place}: {match.player_a} vs {match.player_b}."]
    said = result(match)
    if said:
        lines.append(said)
    if match.game_links:
        games = " ".join(f"{n}. {url}" for n, url in enumerate(match.game_links, start=1))
        lines.append(f"Games: {games}")
    if not match.decided:
        if match.challenge_url:
            lines.append(f"Game link: {match.challenge_url}")
        else:
            lines.append("The game link is posted at the agreed time.")
    lines.append(f"More: {page}")
    return "\n".join(lines)


def unknown_player_title() -> str:
    return "No such player"


def unknown_player(name: str, short_name: str) -> str:
    return f"{short_name} has no player named {name}, so there is no calendar for them."


HOME_LINK = "The championship"
