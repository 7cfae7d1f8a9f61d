"""Wording of the rounds: the round preview for the TD (the standings are in
`bot.features.tables`)."""

from __future__ import annotations

from datetime import datetime

from bot.features.rounds.types import PendingEntry, RoundPreview, SwissStart
from bot.message_text import agrees, counted
from bot.rules.stages import RoundOneBlock, ScoreProblem
from bot.timefmt import discord_time
from db.models import StageKind


def preview_text(preview: RoundPreview, *, published: bool) -> str:
    head = "Published" if published else "Preview of"
    lines = [
        f"**{head} Swiss round {preview.number} of {preview.total_rounds}** "
        f"({preview.players} players) · {discord_time(preview.starts_at)} to "
        f"{discord_time(preview.deadline)}",
    ]
    for line in preview.lines:
        if line.player_b is None:
            lines.append(f"Bye: {line.player_a} ({line.seed_a})")
        else:
            lines.append(
                f"{line.board}. {line.player_a} ({line.seed_a}) vs {line.player_b} ({line.seed_b})"
            )
    return "\n".join(lines)  # a long round is replied in parts (cogs.common.reply_in_parts)


def no_channel_text(kind: StageKind, number: int) -> str:
    """To the TD: a round is published but there is nowhere to post its pairings."""
    return (
        f"⚠️ {kind.value.capitalize()} round {number} is published, but no pairings channel is "
        "set, so the players got no pairings post, no match thread and no ping. Set one with "
        "`/td setup` or `discord.pairings_channel_id` in the config: the bot posts the round "
        "there as soon as it is set."
    )


# --- before round 1: registration closed and decided ------------------------------------

# The name of the tiebreak matches' stage row (rule III.E.5): not a stage of the format.
TIEBREAK_STAGE_NAME = "Tiebreak matches"
PENDING_SHOWN = 15  # names listed; the rest are counted (the message stays under 2,000)


# The labels of `/td round start`'s buttons: its texts name them, so they are defined here once.
CLOSE_AND_CONTINUE = "Close registration and continue"
CANCEL = "Cancel"


def publish_label(number: int) -> str:
    return f"Publish round {number}"


def drop_pending_label(count: int) -> str:
    return f"Drop {count} pending"


def registration_still_open() -> str:
    return (
        "Registration is still open, so round 1 cannot be published: a player who entered "
        "after it would never be paired. Close it first (`/td registration close`, or "
        f"**{CLOSE_AND_CONTINUE}** under `/td round start`); nothing was changed."
    )


def pending_block(pending: list[PendingEntry], *, drop_shown: bool = True) -> str:
    """The registrations that block round 1, and the TD's two ways out. `drop_shown`: the
    message carries the **Drop N pending** button; else (registration still open, or a
    refusal) the text says where that button appears, never a button the TD cannot see."""
    count = len(pending)
    drop = drop_pending_label(count)
    if drop_shown:
        way_out = f"press **{drop}** to reject {agrees(count, 'it', 'them all')}"
    else:
        way_out = (
            f"use **{drop}**, which `/td round start` offers once registration is closed, "
            f"to reject {agrees(count, 'it', 'them all')}"
        )
    names = [
        f"• registration {p.registration_id} {p.lichess_username}" for p in pending[:PENDING_SHOWN]
    ]
    if count > PENDING_SHOWN:
        names.append(f"• …and {count - PENDING_SHOWN} more (`/td registration list`)")
    return "\n".join(
        [
            f"**{counted(count, 'registration')} still {agrees(count, 'waits', 'wait')} for "
            "your decision**, and round 1 cannot be published until "
            f"{agrees(count, 'it is', 'each is')} decided: `/td registration approve` or "
            f"`reject` {agrees(count, 'it', 'them')}, or {way_out} (each player gets a DM: "
            "registration closed before a decision).",
            *names,
        ]
    )


def dropped_note(names: list[str]) -> str:
    """What **Drop N pending** did, above the preview it shows again."""
    if not names:
        return "No registration was pending any more: nothing was dropped."
    return f"Dropped (each was told): {', '.join(names)}."[:300]


def start_text(start: SwissStart) -> str:
    """What `/td round start` shows: the refusal while registration is open, else the
    preview, with what still blocks publishing."""
    parts: list[str] = []
    if start.registration_open:
        parts.append(
            "**Registration is still open.** Round 1 is previewed and published only once "
            f"it is closed: a player who entered later could never be paired. "
            f"**{CLOSE_AND_CONTINUE}** closes it now, exactly as `/td registration close` "
            "does (the field goes public in the announcement channel), then shows the "
            "preview of round 1."
        )
    if start.pending:
        parts.append(pending_block(start.pending, drop_shown=not start.registration_open))
    if start.preview is not None:
        parts.append(preview_text(start.preview, published=False))
    return "\n\n".join(parts)


def round_out_text(
    short_name: str,
    one_match: bool,
    label: str,
    number: int,
    total: int | None,
    pairs: list[tuple[str, str | None]],
    deadline: datetime,
) -> str:
    """The announcement of a published round; the Final is one match, announced as such."""
    if one_match and len(pairs) == 1 and pairs[0][1] is not None:
        a, b = pairs[0]
        return (
            f"📣 **{short_name}: the {label} is set!** **{a}** vs **{b}**; it must be finished "
            f"by {discord_time(deadline)}."
        )
    matches = [p for p in pairs if p[1] is not None]
    byes = [a for a, b in pairs if b is None]
    of_total = f" of {total}" if total else ""
    count = f"{len(matches)} match{'es' if len(matches) != 1 else ''}"
    bye_text = f" Bye (no opponent this round): {', '.join(byes)}." if byes else ""
    return (
        f"📣 **{short_name}: {label} round {number}{of_total} is out!** {count}; every match "
        f"must be played by {discord_time(deadline)}.{bye_text}"
    )


def pairing_failed(number: int, why: str) -> str:
    """Round `number` could not be paired; what the TD can do (the results stand)."""
    return (
        f"⚠️ Round {number} could not be paired: {why}. The results recorded stand and "
        "nothing was published. Try again with /td round publish; if it fails again, check "
        "the withdrawals and the results of the earlier rounds."
    )


def pairing_too_slow(seconds: float) -> str:
    return f"no pairing within {seconds:g} s (swiss.pairing_timeout_seconds)"


def no_valid_pairing(reason: str) -> str:
    return f"no valid pairing exists ({reason})"


def score_set_text(place: str, a: str, b: str, score_a: float, score_b: float) -> str:
    """The TD recorded a match's score (/td round set-score); `a`, `b` are mentions, `place`
    the match as people name it ("Swiss round 3, board 2"; no row id: issue 32)."""
    return f"The TD recorded the result of {place}: {a} {score_a:g}–{score_b:g} {b}."


def no_stage_yet(kind: str) -> str:
    return f"There is no {kind} stage yet."


# --- pairing the next Swiss round ---------------------------------------------------------


def qualification_finished() -> str:
    return "The qualification is finished."


def all_rounds_played() -> str:
    return "All rounds of the qualification have been played."


def round_still_open(number: int, open_count: int) -> str:
    return (
        f"Round {number} still has {open_count} match(es) without a result; record them "
        "(/td round set-score) before pairing the next round."
    )


def round_changed_meanwhile(number: int) -> str:
    """The state a round was paired from changed before it could be written."""
    return (
        f"Round {number} was not published: while it was being paired, it was published "
        "by another run, or a result of the round before it changed. Look at /pairings, "
        "then try /td round publish again if it is still needed."
    )


# --- the stage flow: announcements and the TD's questions ----------------------------------


def round_complete_publish(number: int) -> str:
    """To the TD, with `swiss.confirm_before_publish`: the next round waits for them."""
    return f"Round {number} is complete. Publish round {number + 1} with /td round publish."


def _bold_list(names: list[str]) -> str:
    return ", ".join(f"**{n}**" for n in names)


def tiebreak_decided(names: list[str]) -> str:
    verb = "qualifies" if len(names) == 1 else "qualify"
    return f"🏁 Tiebreak decided: {_bold_list(names)} {verb} for the Candidates."


def candidates_start(qualifiers: int, seeded: list[str]) -> str:
    """The Candidates start: the qualifiers by reference (the qualification post and the
    tiebreak's just above named them: issue 32, told once) and the pre-seeded players by
    name, who join here (rule III.D)."""
    field = qualifiers + len(seeded)
    joined = f" and {_bold_list(seeded)}, pre-seeded (rule III.D)" if seeded else ""
    return (
        f"🏆 **The Candidates** start ({field} players, rule III.F): the {qualifiers} "
        f"qualifiers above{joined}. The winner challenges the champion in the Final."
    )


def candidates_without_result() -> str:
    return "The Candidates are over without a result to rank: decide the Final."


def challenger_announced(challenger: str, runner_up: str | None) -> str:
    second = f"; **{runner_up}** is the runner-up" if runner_up else ""
    return f"⚔️ **{challenger}** wins the Candidates and is the Challenger{second}."


def challenger_to_td(challenger: str, runner_up: str | None) -> str:
    second = f", {runner_up} the runner-up (rule VIII.C)." if runner_up else "."
    return f"The Candidates are over: {challenger} is the Challenger{second}"


# What the TD's tie question calls the stage that ends with the tie, by engine kind.
TIE_STAGE_NAMES = {
    StageKind.SWISS: "Swiss (its tiebreaks leave a tie and the format has no tiebreak matches)"
}


def tie_question(
    kind: StageKind,
    tied: list[str],
    *,
    qualification: bool,
    challenger_decided: bool,
    places: int,
) -> str:
    """To the TD: a tie the rules leave to them, one button per tied player follows; at the
    end of the qualification (the Swiss, its tiebreak matches) who qualifies."""
    if qualification:
        what = "qualify for the Candidates"
    else:
        what = "be the runner-up" if challenger_decided else "be the Challenger"
    count = f" ({places} places)." if places > 1 else "."
    name = TIE_STAGE_NAMES.get(kind, kind.value)
    return (
        f"⚖️ The {name} ends with a tie the rules leave to you: {', '.join(tied)}. "
        f"Press who should {what}{count}"
    )


# --- the Final -------------------------------------------------------------------------------


def final_needs_td() -> str:
    return "The champion is out and there is no runner-up: set up the Final."


def final_start(champion: str, challenger: str, *, how: str, champion_replaced: bool) -> str:
    """The Final starts: who plays, how the match is played from game 1 to the
    Armageddon (`how`), and that the finalists set their own pace (rule IV.C)."""
    note = " (the champion is out: rule VIII.C.1)" if champion_replaced else ""
    return (
        f"👑 **The Final**{note}: **{champion}** against **{challenger}**. {how} The "
        "finalists play as many sessions as they like (rules IV.C, VI.C); each session's "
        "time is agreed with /offer and /accept."
    )


def match_result(
    a: str,
    b: str,
    score_a: float,
    score_b: float,
    *,
    games: int,
    winner: str,
    armageddon: tuple[str, str, bool] | None = None,
    forfeit: bool = False,
) -> str:
    """A decided match in one line: the score over the games before the Armageddon (it adds
    no point, rule III.G.6) and, when one was played, that it decided and how; `armageddon`
    is (White, Black, drawn)."""
    if forfeit:
        return f"**{a}** vs **{b}**, won by **{winner}** by forfeit"
    line = f"**{a}** {score_a:g}–{score_b:g} **{b}**"
    if armageddon is None:
        return line
    white, black, drawn = armageddon
    how = (
        f"drawn, so **{black}** won it with Black's draw odds"
        if drawn
        else f"**{winner}** won it with {'White' if winner == white else 'Black'}"
    )
    return f"{line}, level after {games} games; the **Armageddon** decided it: {how}"


def champion_crowned(winner: str, tournament: str, stage: str, result: str) -> str:
    """The title is decided: the champion, and how the match that decided it ended."""
    return f"🏆👑 **{winner}** is the {tournament} champion! {stage}: {result}."


def finalist_not_replaced() -> str:
    return (
        "A finalist left and there is no Candidates runner-up to take the place "
        "(rule VIII.C): set up the Final by hand."
    )


def finalist_replaced(staying: str, runner_up: str) -> str:
    return (
        f"👑 The Final changes (rule VIII.C): **{staying}** now plays **{runner_up}**, the "
        "Candidates runner-up, from the first game."
    )


# --- the TD's tie buttons ---------------------------------------------------------------------


def no_tie_waiting() -> str:
    return "There is no tie waiting for your decision."


def not_in_tie() -> str:
    return "That player is not part of the tie; press one of the others."


def tie_chosen(player: str, *, done: bool) -> str:
    """The TD's reply after pressing a tie button."""
    if done:
        return f"{player} goes through; the championship goes on."
    return f"{player} goes through; choose the next place."


# --- the TD's round commands -------------------------------------------------------------------


def already_started() -> str:
    return "The qualification has already started."


def round_one_blocked(block: RoundOneBlock, pending: list[PendingEntry]) -> str:
    """Why round 1 is not published (rule IV.D: from a final field, once)."""
    if block is RoundOneBlock.STARTED:
        return already_started()
    if block is RoundOneBlock.REGISTRATION_OPEN:
        return registration_still_open()
    return pending_block(pending, drop_shown=False)


def no_such_match(match_id: int) -> str:
    """Echoes the match value the TD typed instead of picking it from the list."""
    return f"There is no match {match_id} with two players: pick the match from the list."


def score_refused(problem: ScoreProblem, score_a: float, score_b: float, games: int) -> str:
    """Why /td round set-score refuses a score (rule I.C: it must end the match)."""
    if problem.what == "game_by_game":
        return "The Final is not a fixed-length match: it is read game by game."
    if problem.what == "points":
        return (
            f"{problem.value:g} is not a possible score: a side scores from 0 to {games} "
            "game points, in halves (a game is worth 1, ½ or 0)."
        )
    if problem.what == "impossible":
        return f"{score_a:g}–{score_b:g} is not a possible match score: {problem.detail}"
    if problem.early_stop:
        ends = f"all {games} games are played or a side has more than half"
    else:
        ends = f"all {games} games are played (Candidates matches are played out, rule III.F.2)"
    return f"{score_a:g}–{score_b:g} is not a finished match: it ends when {ends}."


def score_recorded(match: str, score_a: float, score_b: float) -> str:
    """The TD's reply to /td round set-score; `match`: its place and players."""
    return f"{match}: {score_a:g}–{score_b:g} recorded."


def score_then_published(number: int) -> str:
    return f" Round {number} was paired and published."


def score_then_stage_over() -> str:
    return " That was the last match: the qualification is finished."


# --- the round deadlines (rules IV.C, IV.E, IV.F) -----------------------------------------------


def final_unfinished(final_days: int) -> str:
    return (
        f"⏰ The Final is still unfinished {final_days} days after it was set up. It goes on "
        "as the finalists see fit (rule IV.C); step in only if it has stalled."
    )


def open_match_line(match: str, state: str, agreed: datetime | None) -> str:
    """`match`: its place and players, as /td round set-score's pick list names it."""
    when = discord_time(agreed) if agreed else "no agreed time"
    return f"{match} · {state} · {when}"


def round_ended_open(number: int, lines: list[str]) -> str:
    return (
        f"⏰ Round {number} has ended with {counted(len(lines), 'match', 'matches')} without "
        "a result. "
        "Decide them with /td round set-score:\n" + "\n".join(lines)
    )


def next_round_waits(number: int, open_count: int) -> str:
    return (
        f"Round {number + 1} cannot be paired yet: {counted(open_count, 'match', 'matches')} "
        f"of round {number} {agrees(open_count, 'has', 'have')} no result. It is paired as "
        f"soon as you record {agrees(open_count, 'it', 'them')} (/td round set-score)."
    )


def td_only(what: str) -> str:
    return f"Only the tournament director can {what}."


def preview_cancelled() -> str:
    return "Cancelled: nothing was published."


def too_few_players(count: int) -> str:
    return f"The qualification needs at least 2 approved players; there are {count}."


def not_started() -> str:
    return "The qualification has not started yet (/td round start)."


# --- the pairings post in Discord ----------------------------------------------------------------


def round_post_title(label: str | None, number: int, *, own_pace: bool = False) -> str:
    """The pairings post's (and its thread's) title: the publisher finds a post it made
    before a restart by this title, so it must stay the same for the same round (a pool's
    rounds are told apart by the pool's name). A final match is no round: its name (a
    match set up again after a withdrawal, with its number)."""
    if own_pace:
        return f"{label or ''}{f' ({number})' if number > 1 else ''}".strip()
    return f"{label or ''} round {number}".strip()


def posting_pairings(number: int) -> str:
    """What the bot was doing when Discord refused the channel (for the TD's note)."""
    return f"posting the pairings of round {number}"


def field_changed() -> str:
    """Round 1 was paired, but the field changed before it could be published."""
    return (
        "The field changed while round 1 was being paired (a registration was decided or a "
        "player left): nothing was published. Press /td round start again to see the new "
        "preview."
    )
