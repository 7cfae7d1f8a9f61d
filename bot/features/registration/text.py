"""Wording of registration messages, shared by replies, DMs and the TD's review.

Embeds are plain Discord JSON dicts so that services can put them in the outbox without
depending on discord.py objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.config import Config
from bot.discord_limits import EMBED_FIELD_VALUE as FIELD
from bot.features.registration.types import FieldEntry, RegistrationSummary, WindowState
from bot.lichess.models import LichessUser
from bot.message_text import LETTER_MAX, quote
from bot.rules import eligibility
from bot.timefmt import discord_time
from db.models import RegistrationState, StageKind

PROFILE_EDIT_URL = "https://lichess.org/account/profile"
STATE_LABELS = {
    RegistrationState.PENDING: "Pending: waiting for the TD",
    RegistrationState.APPROVED: "Approved",
    RegistrationState.REJECTED: "Rejected",
    RegistrationState.WITHDRAWN: "Withdrawn",
}
COLOURS = {
    RegistrationState.PENDING: 0xF1C40F,
    RegistrationState.APPROVED: 0x2ECC71,
    RegistrationState.REJECTED: 0xE74C3C,
    RegistrationState.WITHDRAWN: 0x95A5A6,
}


def window_closed(state: WindowState, now: datetime, td: str) -> str:
    """Why /register or Verify is refused while the window is shut: not yet, or since when."""
    if state.closed_at is None and now < state.opens_at:
        return f"Registration is not open yet: it opens {discord_time(state.opens_at)}."
    when = state.closed_at or state.closes_at
    return (
        f"Registration closed on {discord_time(when)}: nobody can enter now, and nothing "
        f"was recorded. If you think you should be in, write to the TD ({td})."
    )


def qualification_started(started_at: datetime | None, td: str) -> str:
    """Why an entry is refused once round 1 is out: a late entrant would never be paired."""
    since = f" (round 1 was published {discord_time(started_at)})" if started_at else ""
    return (
        f"The qualification has started{since}, so registration is over: a player who "
        "enters now could never be paired. Nothing was recorded. If you think you should "
        f"be in, write to the TD ({td})."
    )


def no_reopen(started_at: datetime | None) -> str:
    """The TD tries to reopen registration once round 1 is out."""
    since = f" (round 1 was published {discord_time(started_at)})" if started_at else ""
    return (
        f"The qualification has started{since}: registration cannot reopen, since a player "
        "who entered now could never be paired. Nothing was changed."
    )


def refusal(problems: list[str], user: LichessUser | None) -> str:
    name = user.username if user else "That account"
    reasons = {
        eligibility.CLOSED_ACCOUNT: f"{name} is a closed Lichess account.",
        eligibility.BOT_ACCOUNT: (
            f"{name} is a BOT account; BOT accounts cannot play (rule II.C.6)."
        ),
        eligibility.NOT_FOUND: f"There is no Lichess account named {name}.",
    }
    return " ".join(reasons.get(p, p) for p in problems) + " Registration refused."


def code_missing(code: str, user: LichessUser) -> str:
    return (
        f"I could not find the code `{code}` in the bio or location of {user.url}. "
        f"Put it there at {PROFILE_EDIT_URL}, save, then press **Verify** again "
        "(you can remove it once you are registered)."
    )


def ownership_instructions(code: str, username: str, expires_at: datetime) -> str:
    return (
        f"To prove that **{username}** is your Lichess account:\n"
        f"1. Open {PROFILE_EDIT_URL}\n"
        f"2. Put this code in your **bio** or **location**: `{code}`\n"
        "3. Save, then press **Verify** below.\n"
        f"The code is valid until {discord_time(expires_at, 't')}."
    )


def second_account(registered: str, attempted: str) -> str:
    return (
        f"You are already registered as {registered}; you cannot also enter as {attempted} "
        "(one Lichess account per player, rule II.C.4). The TD has been told."
    )


def rejected_other_account(registered: str) -> str:
    return (
        f"Your registration as {registered} was rejected by the TD; "
        "you cannot enter with another account. Contact the TD."
    )


def pre_seeded_account(username: str) -> str:
    return f"{username} is pre-seeded by the rules and does not register."


def account_of_another_user(username: str) -> str:
    return (
        f"The Lichess account {username} is already registered by "
        "another Discord user. The TD has been told."
    )


def already_registered(username: str, state: str) -> str:
    return f"You are already registered as {username} (state: {state}). Use /status to see it."


def rejected_account(username: str, comment: str) -> str:
    """`comment` is the TD's, already quoted."""
    return f"Your registration as {username} was rejected by the TD ({comment}). Contact the TD."


def no_such_registration(registration_id: int) -> str:
    return f"There is no registration {registration_id}."


def no_such_account(name: str) -> str:
    return (
        f"There is no Lichess account named `{name}`. Check the "
        f"spelling (https://lichess.org/@/{name})."
    )


def td_cannot_register() -> str:
    return (
        "The tournament director cannot take part in the championship "
        "(rule I.D), so the TD cannot register."
    )


def not_a_username(given: str) -> str:
    return f"`{given}` is not a valid Lichess username: 2 to 30 letters, digits, `_` or `-`."


def pre_seeded_name(name: str, stage: str) -> str:
    return (
        f"{name} is pre-seeded into the {stage} by the rules; "
        "they do not register for the qualification."
    )


def verification_gone() -> str:
    return "This verification no longer exists. Run /register again."


def not_your_verify_button() -> str:
    return "This Verify button belongs to another player's registration."


def code_expired() -> str:
    return "This code has expired. Run /register again for a new one."


def account_changed() -> str:
    return "That Lichess account has changed. Run /register again."


def registered_by_someone_else(username: str) -> str:
    return f"{username} was just registered by someone else."


def nothing_to_withdraw() -> str:
    return "You have no active registration to withdraw."


def withdrawn_td(username: str) -> str:
    return f"{username} withdrew their registration."


def already_decided(registration_id: int, username: str, state: str, decided_by: int | None) -> str:
    who = f" by <@{decided_by}>" if decided_by else ""
    return (
        f"Registration {registration_id} ({username}) is already {state}{who}; nothing was changed."
    )


def exception_needs_reason(problems: list[str]) -> str:
    return (
        f"This registration failed {', '.join(problems)}: approving it is an "
        "exception (rule II.B) and needs a reason."
    )


def rejection_needs_comment() -> str:
    return "A rejection needs a comment for the player."


def qualification_already_started() -> str:
    return "The qualification has already started. Nothing was changed."


def close_first() -> str:
    return (
        "Registration is still open: close it first (/td registration close); nothing was changed."
    )


def double_entry_alert(
    discord_id: int, first: str, attempted: str, other_discord_id: int | None
) -> str:
    if other_discord_id is None:
        return (
            f"⚠️ Double entry attempt (rule II.C.4): <@{discord_id}> is registered as **{first}** "
            f"and tried to register **{attempted}** too. The attempt was refused."
        )
    return (
        f"⚠️ Double entry attempt (rule II.C.4): <@{discord_id}> tried to register **{attempted}**,"
        f" which <@{other_discord_id}> already registered. The attempt was refused."
    )


def seeding_line(s: RegistrationSummary) -> str:
    if s.seeding_rating is None:
        return "No rated games before the seeding cut-off: no seeding rating."
    cutoff = f"[{s.rating_at_cutoff}]({s.rating_at_cutoff_game})"
    peak = f"[{s.peak_rating}]({s.peak_rating_game})"
    return f"**{s.seeding_rating:g}** = ({cutoff} at the cut-off + {peak} peak) / 2"


def registration_embed(s: RegistrationSummary, *, for_td: bool = False) -> dict[str, Any]:
    fields: list[dict[str, Any]] = [
        {"name": "State", "value": STATE_LABELS[s.state], "inline": True},
        {"name": "Lichess", "value": f"[{s.lichess_username}]({s.profile_url})", "inline": True},
    ]
    if s.discord_id is not None:
        fields.append({"name": "Discord", "value": f"<@{s.discord_id}>", "inline": True})
    created = discord_time(s.account_created_at, "D") if s.account_created_at else "unknown"
    fields.append({"name": "Account created", "value": created, "inline": True})
    games = "unknown" if s.rated_games_before_cutoff is None else str(s.rated_games_before_cutoff)
    fields.append({"name": "Rated games before the cut-off", "value": games, "inline": True})
    fields.append({"name": "Seeding rating", "value": seeding_line(s), "inline": False})
    checks = "\n".join(f"• {t}" for t in s.problem_texts) or "All entry checks passed."
    fields.append({"name": "Entry checks", "value": quote(checks, FIELD), "inline": False})
    if s.exception_reason:
        fields.append(
            {"name": "Exception granted (rule II.B)", "value": quote(s.exception_reason, FIELD)}
        )
    if s.td_comment:
        fields.append({"name": "TD comment", "value": quote(s.td_comment, FIELD)})
    title = f"Registration {s.id}: {s.lichess_username}" if for_td else "Your registration"
    return {"title": title, "color": COLOURS[s.state], "fields": fields}


def td_review_heading(s: RegistrationSummary) -> str:
    flags = ", ".join(s.problems) if s.problems else "no problems"
    return f"New registration needs your decision: **{s.lichess_username}** ({flags})."


def outcome_message(s: RegistrationSummary) -> str:
    if s.state is RegistrationState.APPROVED:
        extra = f" Seeding rating: {s.seeding_rating:g}." if s.seeding_rating is not None else ""
        return f"✅ Your registration as **{s.lichess_username}** was approved.{extra}"
    comment = quote(s.td_comment or "", LETTER_MAX)  # delivered whole, over several DMs
    return f"❌ Your registration as **{s.lichess_username}** was rejected by the TD: {comment}"


def dropped_message(s: RegistrationSummary, td: str) -> str:
    """The DM to a player whose registration was still pending when round 1 came."""
    return (
        f"❌ Your registration as **{s.lichess_username}** was not accepted: registration "
        "closed before the TD decided on it, and the qualification is about to start. "
        f"If you think this is wrong, write to the TD ({td})."
    )


def after_verify(s: RegistrationSummary) -> str:
    if s.state is RegistrationState.APPROVED:
        return f"✅ **{s.lichess_username}** is verified and registered. Welcome!"
    if s.problems:
        return (
            f"**{s.lichess_username}** is verified. Some entry checks need the TD's decision; "
            "you will get a DM when they decide."
        )
    return (
        f"**{s.lichess_username}** is verified. Your registration waits for the TD's "
        "approval; you will get a DM when they decide."
    )


def decided(registration_id: int, username: str, state: str, td_id: int) -> str:
    """The TD's own record of a decision, in the channel where they made it."""
    return f"Registration {registration_id} ({username}): {state} by <@{td_id}>."


def listing_line(rank: int, s: RegistrationSummary) -> str:
    seed = f"{s.seeding_rating:g}" if s.seeding_rating is not None else "–"
    flags = f" ⚠️ {', '.join(s.problems)}" if s.problems else ""
    who = f" <@{s.discord_id}>" if s.discord_id else ""
    state = s.state.value
    return f"{rank}. **{s.lichess_username}**{who} · {seed} · {state}{flags} · registration {s.id}"


def withdraw_before_start() -> str:
    return "You can register again while registration is open."


def withdraw_effect(stage: StageKind, in_stage: bool, *, seat_kept: bool = True) -> str:
    """Rule VIII, said before the player confirms; `seat_kept`: a final match with the
    champion's seat (2019: rule VIII.C), else the players below move up (2020-2024)."""
    if not in_stage:
        return (
            "You are not playing the current stage; you will not be paired in any later "
            "stage (rule VIII). This cannot be undone by you: only the TD can reinstate you."
        )
    effects = {
        StageKind.SWISS: (
            "You will not be paired again, and your unfinished match goes to your opponent "
            "(rule VIII.A.1); your finished results stay in the table."
        ),
        StageKind.TIEBREAK: (
            "Your unfinished tiebreak match goes to your opponent (rule VIII.A.1)."
        ),
        StageKind.CANDIDATES: (
            "All your Candidates matches are disregarded and the table is recomputed without "
            "you (rule VIII.B)."
        ),
        StageKind.FINAL: (
            "The Final goes to the Candidates runner-up: if you are the champion, the "
            "Challenger plays them; if you are the Challenger, they take your place "
            "(rule VIII.C)."
        ),
        StageKind.KNOCKOUT: (
            "If no game of your knock-out match has been played, the players below you move "
            "up and one takes your place; once it is under way, your opponent wins it "
            "(rule VIII)."
        ),
    }
    if not seat_kept:  # a final match without the champion's seat (2020-2024)
        effects[StageKind.FINAL] = (
            "The players below you (in the Semifinals, then the Candidates) move up one place: "
            "one of them takes your place and the match starts again (2020-2024 rules, "
            "Disqualification and withdrawals)."
        )
    return effects[stage] + " Only the TD can reinstate you."


# --- the public field post (field_post.py) ------------------------------------------------

STAGE_NAMES = {"candidates": "the Candidates", "final": "the Final"}
DROPPED_COMMENT = "registration closed before the TD decided on your entry, so it was not accepted"


def _link(text: str, url: str) -> str:
    """A masked link without Discord's preview card (the post would be all cards)."""
    return f"[{text}](<{url}>)"


def field_header(config: Config, entrants: int, window: WindowState) -> str:
    """The post's opening: how many entered, how the seeds were made, the pre-seeded."""
    if window.is_open:
        status = "Registration was reopened by the TD: the field may still change."
    elif window.closed_at is not None:
        status = f"Registration closed {discord_time(window.closed_at)}."
    else:
        status = "Registration is closed."
    lines = [
        f"**The field of the {config.tournament.name}**",
        f"{status} {entrants} player{'s' if entrants != 1 else ''} in the Swiss "
        "qualification, by seed. Seeding rating (rule III.E.3) = (rating at the cut-off + "
        "peak rating) / 2; each figure links to the game that set it.",
    ]
    champion = (config.players.previous_champion or "").lower()
    for entry in config.players.pre_seeded:
        role = " (the champion)" if entry.lichess.lower() == champion else ""
        url = f"https://lichess.org/@/{entry.lichess}"
        lines.append(
            f"Pre-seeded: {_link(entry.lichess, url)}{role} enters {STAGE_NAMES[entry.stage]}."
        )
    return "\n".join(lines)


def field_line(e: FieldEntry) -> str:
    """`3. name · 2150.5 (2100 cut-off, 2201 peak)`, each figure a link to its game."""
    name = _link(e.lichess_username, f"https://lichess.org/@/{e.lichess_username}")
    if e.seeding_rating is None:
        return f"{e.seed}. {name} · no seeding rating"

    def figure(value: int | None, game: str | None) -> str:
        return _link(str(value), game) if game else str(value)

    cutoff = figure(e.rating_at_cutoff, e.rating_at_cutoff_game)
    peak = figure(e.peak_rating, e.peak_rating_game)
    if e.rating_at_cutoff == e.peak_rating:  # one number, said once (issue 32)
        return f"{e.seed}. {name} · **{e.seeding_rating:g}** ({cutoff} cut-off = peak)"
    return f"{e.seed}. {name} · **{e.seeding_rating:g}** ({cutoff} cut-off, {peak} peak)"


def field_part_marker(part: int, parts: int) -> str:
    return f" · part {part} of {parts}"


def field_continued() -> str:
    return "**The field** (continued)"


def field_part_unused() -> str:
    return "**The field**: nothing more (the field above is complete)."


# --- the player's and the TD's commands ----------------------------------------------------------


def not_your_button() -> str:
    return "This button belongs to another player."


def withdrawn_reply(username: str) -> str:
    return f"Your registration as **{username}** is withdrawn."


def not_registered() -> str:
    return "You have not registered. Use /register with your Lichess username."


def not_registered_nothing_to_withdraw() -> str:
    return "You have not registered, so there is nothing to withdraw."


def withdraw_question(username: str, effect: str) -> str:
    return f"Withdraw your registration as **{username}**? {effect}"


def td_only_decides() -> str:
    return "Only the tournament director can decide on registrations."


def nobody_registered() -> str:
    return "Nobody has registered yet."


def window_set(state: WindowState) -> str:
    """The TD opened or closed registration by hand."""
    word = "open" if state.is_open else "closed"
    return (
        f"Registration is now **{word}** (set by the TD; the configured window was "
        f"{discord_time(state.opens_at)} to {discord_time(state.closes_at)})."
    )
