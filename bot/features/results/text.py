"""Wording of match-day results: the game link, the live scoreboard, announcements, TD notes.

Every game is shown as a link to Lichess so anyone can check the bot's reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.matches.text import clock_text, game_link, score
from bot.features.results.types import FinalBlock, FinalShape
from bot.message_text import quote
from bot.timefmt import discord_time

LICHESS = "https://lichess.org/"


def challenge_post(
    a: str, b: str, url: str, clock: str, variant: str, white: str, *, armageddon: bool = False
) -> str:
    """The match start's one copy: `a` and `b` are mentions, so both players are notified.
    The Armageddon's link is for one game: no rematches (rule III.G.6)."""
    if armageddon:
        return (
            f"♟️ {a} vs {b}: the **Armageddon** starts now. Join the rated {variant} game "
            f"here (only you two can): {url}\n**{white}** has White with the lower bid "
            f"({clock}); Black has draw odds. It is one game: no rematch. The bot reads the "
            "result from Lichess."
        )
    return (
        f"♟️ {a} vs {b}: your match starts now. Join the rated {variant} {clock} "
        f"game here (only you two can): {url}\n"
        f"**{white}** has White in the first game of this link. Play the following games as "
        "rematches; the bot reads the results from Lichess."
    )


def link_refused(a: str, b: str, white: str, clock: str, variant: str) -> str:
    return (
        f"⚠️ {a} vs {b}: the bot cannot open your game link, because Lichess refused "
        "the bot's access token (Lichess itself is fine). The tournament director has been "
        f"told. Meanwhile challenge each other on Lichess: rated {variant} {clock}, "
        f"**{white}** with White in the first game; the bot reads the games between you as "
        "usual."
    )


def challenge_mismatch_td(match: str, url: str, wrong: str) -> str:
    """`match`: its place and players (`StageRules.label`), as every TD note names it."""
    return (
        f"⚠️ {match}: Lichess opened another challenge than the bot "
        f"asked for ({wrong}), so the link was not posted: {url}. Check the match settings, "
        "then give the players a correct link yourself."
    )


def closed_account_td(place: str, closed: str, other: str) -> str:
    return (
        f"⚠️ {place}: Lichess refuses the games of **{closed}** (the account is "
        f"closed). The bot now reads the match from **{other}**'s games; decide what the "
        "closed account means for the match (rule VIII)."
    )


def result_announcement(
    stage: str, a: str, b: str, score_a: float, score_b: float, game_ids: Sequence[str]
) -> str:
    links = " ".join(f"[{n}]({game_link(g)})" for n, g in enumerate(game_ids, start=1))
    return f"🏁 {stage} result: **{a}** {score(score_a)}–{score(score_b)} **{b}**" + (
        f"\nGames: {links}" if links else ""
    )  # an announcement: the outbox splits it between lines if long


def flagged_note(match: str, lichess_id: str, status: str) -> str:
    why = {
        "timeout": "a player left the game and the opponent claimed the win (rule VI.E)",
        "cheat": "Lichess ended it for a fair-play reason (rule VII)",
    }.get(status, status)
    return (
        f"⚠️ {match}: game {game_link(lichess_id)} ended with "
        f"`{status}`: {why}. It counts as Lichess scored it; void it with "
        f"`/td results void-game game:{lichess_id}` if needed."
    )


def after_end_note(match: str, lichess_ids: Sequence[str]) -> str:
    links = ", ".join(game_link(g) for g in lichess_ids)
    return f"{match} was already over; these later games between them do not count: {links}"


def finished_note_for_final(match: str) -> str:
    """`match`: its name and players ("Final (a vs b)")."""
    return (
        f"{match}: games were played before the Armageddon bids were in; "
        "the Armageddon counts only once both bids for White are revealed."
    )


def voided_reply(lichess_id: str, match: str, score_a: float, score_b: float) -> str:
    return (
        f"Game {game_link(lichess_id)} no longer counts for {match}. "
        f"Score now {score(score_a)}–{score(score_b)}."
    )


def void_thread_note(lichess_id: str, reason: str) -> str:
    return f"The TD voided game {game_link(lichess_id)}: {quote(reason)}"


def submitted_reply(lichess_id: str, number: int, score_a: float, score_b: float) -> str:
    return (
        f"Game {game_link(lichess_id)} is recorded as game {number} of your match. "
        f"Score: {score(score_a)}–{score(score_b)}."
    )


def already_recorded_reply(lichess_id: str, number: int) -> str:
    return f"Game {game_link(lichess_id)} is already recorded (game {number}); nothing to do."


def after_end_reply(lichess_id: str) -> str:
    return (
        f"Game {game_link(lichess_id)} was played after your match had ended: it does not "
        "count. The TD has been told."
    )


def refused_reply(lichess_id: str, reason: str) -> str:
    return f"Game {game_link(lichess_id)} does not count for your match: {reason}."


def bad_link() -> str:
    return (
        "That is not a Lichess game link. Paste the game's address, e.g. "
        "`https://lichess.org/abcdEFGH` (or its 8-character id)."
    )


def no_match_under_way(agreed_time: datetime | None) -> str:
    if agreed_time is None:
        return "You have no match under way: agree on a time first (/offer)."
    return f"Your match has not started yet: it starts {discord_time(agreed_time)}."


def _lead_rule(lead: float) -> str:
    return "two-point rule" if lead == 2 else f"{lead:g}-point rule"


def final_turn_text(
    kind: str | None, played: int, block_end: int | None, lead_rule_ends: bool, shape: FinalShape
) -> str:
    """What the game just played did to the match (the Final, "Semifinal 1", "Grand
    Final": `shape.name`), with its rule; empty when nothing."""
    games = f"games {played + 1}–{block_end}" if block_end else ""
    if kind == "extended":
        text = (
            f" Nobody leads by {shape.lead:g} points after {played} games, so the match is "
            f"**extended by {(block_end or played) - played} games** (rule III.G.3): {games}."
        )
        if lead_rule_ends:
            text += (
                f" After game {shape.lead_rule_games} the {_lead_rule(shape.lead)} is "
                "dropped: any lead wins (rule III.G.4)."
            )
        return text
    if kind == "lead_rule_dropped":
        return (
            f" Equal after {played} games: the **{_lead_rule(shape.lead)} is dropped** "
            "(rule III.G.4), so any lead at the end of a block of games wins, and the clock "
            f"becomes **{shape.tiebreak_time_control}** until the tie is broken "
            f"(rule III.G.5): {games}."
        )
    if kind == "tiebreak_extended":
        return (
            f" Still equal after {played} games: **two more games at "
            f"{shape.tiebreak_time_control}** (rule III.G.5): {games}."
        )
    if kind == "tiebreak_games_start":
        return (
            f" Equal after {played} games: **{shape.tiebreak_games} tiebreak games** follow: "
            f"{games}. Whoever scores more in them wins the {shape.name}; still equal after "
            "them, an Armageddon game decides."
        )
    if kind == "new_week":
        week = (block_end or played) // shape.base_games
        then = (
            "still equal after it, an Armageddon game decides."
            if week >= shape.weeks
            else f"still equal after it, week {week + 1} follows (at most {shape.weeks} weeks, "
            "then an Armageddon game)."
        )
        return (
            f" Equal after week {week - 1}: the week is **played again** as week {week}: "
            f"{games}. Whoever scores more in week {week} wins the {shape.name}; {then}"
        )
    if kind == "armageddon":
        return (
            f" Equal after {played} games: an **Armageddon** game decides the {shape.name} "
            "(rule III.G.6). The bot asks each of you privately for your bid for White and "
            "gives its rules there."
        )
    return ""


def _final_head(
    a: str,
    b: str,
    score_a: float,
    score_b: float,
    played: int,
    block: FinalBlock | None,
    name: str = "Final",
) -> str:
    """The game post's first words: the game and the score; in a later scheme's block (a
    repeated week, the tiebreak games) also the game's place in it and the block's score."""
    if block is None:
        return f"👑 {name}, game {played}: **{a}** {score(score_a)}–{score(score_b)} **{b}**."
    inside = f"{score(block.score_a)}–{score(block.score_b)}"
    if block.kind == "week":
        return (
            f"👑 {name}, game {played} (week {block.number}, game {block.game} of "
            f"{block.size}): **{a}** {inside} **{b}** this week; "
            f"{score(score_a)}–{score(score_b)} over all games."
        )
    return (
        f"👑 {name}, game {played} (tiebreak game {block.game} of {block.size}): **{a}** "
        f"{score(score_a)}–{score(score_b)} **{b}**; the tiebreak games {inside}."
    )


def final_game_post(
    a: str,
    b: str,
    score_a: float,
    score_b: float,
    played: int,
    next_game: str,
    turn: str,
    *,
    new_link: bool,
    block: FinalBlock | None = None,
    name: str = "Final",
) -> str:
    """A final or knock-out match (`name`: "Final", "Semifinal 1") after one game: the
    score, what the game did to the match (`turn`, from `final_turn_text`) and how the next
    game is played (III.G)."""
    head = _final_head(a, b, score_a, score_b, played, block, name)
    if next_game == "armageddon":
        return head + turn + f" Game {played + 1} is the Armageddon."
    how = f"**{next_game}**" + (
        " — a new time control: a new game link follows at once." if new_link else "."
    )
    return head + turn + f" Game {played + 1} is " + how


def armageddon_bid_request(
    played: int, black: int, equal_bids: str = "previous_champion", *, name: str = "Final"
) -> str:
    if equal_bids == "rock_paper_scissors":
        equal = (
            "equal bids: you play a game of rock-paper-scissors for White, and the TD records "
            "who won."
        )
    else:
        equal = "equal bids give White to the previous champion (rule III.G.6.c)."
    return (
        f"⚖️ The {name} is equal after {played} games: an **Armageddon** game decides it "
        f"(rule III.G.6). Black has {clock_text(black)} and draw odds (rule III.G.6.a); White "
        "has the time of the lower bid (rule III.G.6.b); no increment (rule III.G.6.d). Press "
        "**Bid for White** and give the time you would play White with (m:ss, 0:01 to "
        f"{clock_text(black)}). Your "
        f"opponent does not see your bid until both are in; {equal}"
    )


def bad_bid(text: str) -> str:
    shown = (text or "").strip()[:20]
    return f"`{shown}` is not a time: give it as m:ss (e.g. 2:15) or in seconds (135)."


def bid_out_of_range(low: int, high: int) -> str:
    return f"A bid must be from {clock_text(low)} to {clock_text(high)}."


def not_a_finalist() -> str:
    return "Only the two finalists bid for the Armageddon."


def no_armageddon_yet() -> str:
    return "There is no Armageddon to bid for (yet)."


def bid_already_in() -> str:
    return "Your bid is already in and cannot change."


def bid_taken(seconds: int, revealed: bool) -> str:
    if revealed:
        return f"Your bid of {clock_text(seconds)} is in: both bids are revealed in the thread."
    return (
        f"Your bid of {clock_text(seconds)} is in. It stays hidden until your opponent's "
        "bid is in too."
    )


def armageddon_reveal(
    champion: str,
    champion_bid: int,
    challenger: str,
    challenger_bid: int,
    white: str,
    black: str,
    white_bid: int,
    *,
    equal: bool,
    black_clock: int,
    rock_paper_scissors: bool = False,
) -> str:
    why = "equal bids: the previous champion" if equal else "the lower bid"
    rule = f"rule III.G.6.{'c' if equal else 'b'}"
    if equal and rock_paper_scissors:
        why, rule = f"equal bids: {white} won rock-paper-scissors", "recorded by the TD"
    return (
        f"⚖️ Armageddon bids: **{champion}** {clock_text(champion_bid)}, **{challenger}** "
        f"{clock_text(challenger_bid)}. **{white}** plays White ({why}) with "
        f"{clock_text(white_bid)} ({rule}); **{black}** plays "
        f"Black with {clock_text(black_clock)} and draw odds (rule III.G.6.a); no increment "
        "(rule III.G.6.d).\n"
        f"How to play it: Lichess cannot give the two sides different clocks, so the game "
        f"link that follows gives both sides {clock_text(black_clock)} and no increment. "
        f"**{white}** joins as White and must treat "
        f"{clock_text(black_clock - white_bid)} of their clock as already used: they lose if "
        f"their clock falls below {clock_text(black_clock - white_bid)} (the TD checks the "
        "clocks). A "
        f"draw is a win for **{black}**. The game counts only with {white} as White."
    )


def armageddon_equal_bids(
    champion: str, challenger: str, bid: int, *, no_previous_champion: bool = False
) -> str:
    """Both bids equal under `rock_paper_scissors` (2020-2024 rules, Armageddon), or under
    `previous_champion` (rule III.G.6.c) in a match the previous champion does not play,
    where the rules are silent and the TD decides by the same game."""
    why = (
        "Neither of you is the previous champion, who would get White (rule III.G.6.c), so a "
        "game of **rock-paper-scissors** decides who gets White."
        if no_previous_champion
        else 'A game of **rock-paper-scissors** decides who gets White ("In case of identical '
        'offers, a game of rock-paper-scissors will determine who gets White").'
    )
    return (
        f"⚖️ Armageddon bids: **{champion}** {clock_text(bid)}, **{challenger}** "
        f"{clock_text(bid)}: the bids are **equal**. {why} Play it with the tournament "
        "director, who records the winner; the winner plays White with that time, and the "
        "game link follows then."
    )


def armageddon_rps_td(match: str, champion: str, challenger: str, bid: int) -> str:
    """`match`: its name and players ("Final (a vs b)"); the command needs no match value
    (left out, it is the one the winner plays), so no row id is asked for (issue 32)."""
    return (
        f"⚖️ {match}: both Armageddon bids are {clock_text(bid)}: "
        f"**{champion}** and **{challenger}** play rock-paper-scissors for White. Once they "
        "have, press the winner's button below (or use `/td armageddon rps winner:<player>`); "
        "the Armageddon's game link follows with the winner as White."
    )


def rps_match_choice(name: str, a: str, b: str) -> str:
    """A match waiting for the rock-paper-scissors winner, as `/td armageddon rps` lists it."""
    return f"{name}: {a} vs {b}"


def rps_button_label(name: str) -> str:
    return f"{name} won"


def rps_recorded(white: str) -> str:
    return (
        f"Recorded: **{white}** won rock-paper-scissors and plays White. Both finalists are "
        "told, and the Armageddon's game link follows."
    )


def rps_already(white: str) -> str:
    return f"Already recorded: **{white}** plays White. Nothing changed."


def no_rps_waiting() -> str:
    return (
        "No Armageddon is waiting for a rock-paper-scissors winner (the bids are not both in, "
        "or they differ): nothing was recorded."
    )


def not_in_rps(typed: str, champion: str, challenger: str) -> str:
    return (
        f"`{quote(typed, 40)}` is not one of the two finalists ({champion}, {challenger}): "
        "nothing was recorded."
    )


def td_only_rps() -> str:
    return "Only the tournament director records the rock-paper-scissors winner."


# --- refusals of /game and /td results void-game, and the game link's name ------------------

#: Why a game after the end of its match does not count (stored as the game's void reason).
AFTER_END = "played after the match had ended"
#: Why a Final game does not count yet: it is the Armageddon, and the bids are not all in.
ARMAGEDDON_WAITS = "Armageddon game: counted once both bids for White are in"


def not_a_player() -> str:
    return "Only players of the championship can submit games."


def recorded_for_another_match(lichess_id: str) -> str:
    return f"Game {game_link(lichess_id)} is already recorded for another match."


def no_such_lichess_game(lichess_id: str) -> str:
    return f"Lichess has no game {game_link(lichess_id)}."


def match_changed_meanwhile() -> str:
    return "Your match changed meanwhile; check /match and try again."


def void_reason_missing() -> str:
    return "Give a reason: it goes into the audit log."


def no_recorded_game(lichess_id: str) -> str:
    return f"No recorded game {lichess_id}."


def already_void(lichess_id: str, reason: str) -> str:
    return f"Game {lichess_id} is already void: {reason}"


def void_in_forfeit(match: str) -> str:
    return f"{match} was decided by forfeit; use /td round set-score."


def reopen_in_closed_round(match: str) -> str:
    return (
        f"{match} would no longer be over, but its round is closed; "
        "record its result with /td round set-score instead."
    )


def challenge_name(short_name: str, place: str, *, armageddon: bool = False) -> str:
    """The game link's name on Lichess, which the players see there: the championship and
    the match's place ("ACWC 2019 · Swiss round 3, board 2"), never a row id (issue 32). The
    Armageddon's says so: its link can have the same clock as the games before it (2020's
    3+0)."""
    name = f"{short_name} · {place}"
    return f"{name} Armageddon" if armageddon else name


def armageddon_waits_for_bids() -> str:
    return "the Armageddon waits for both bids for White"


def armageddon_before_reveal() -> str:
    return "the game was started before the Armageddon bids were revealed"


def armageddon_wrong_white(white: str) -> str:
    return f"the Armageddon must have {white} as White"
