"""What the Armageddon's clock check says (rule III.G.6.b: White plays with the time of
their bid; a Lichess challenge gives both sides Black's clock, so the bot reads White's
clock record to see that White stayed within the bid)."""

from __future__ import annotations

from bot.features.matches.text import clock_text, game_link


def _centis(value: int) -> str:
    seconds = value // 100
    return f"{seconds // 60}:{seconds % 60:02d}.{(value % 100) // 10}"


def over_bid_thread(
    name: str, white: str, black: str, lichess_id: str, move: int, left_cs: int, limit_cs: int
) -> str:
    """To the players: White's clock went below the bid, so Black wins the Armageddon."""
    return (
        f"⏱️ {name} Armageddon ({game_link(lichess_id)}): after White's move {move}, "
        f"**{white}**'s clock read {_centis(left_cs)}, below {_centis(limit_cs)}, the time their "
        f"bid left them (rule III.G.6.b). White lost on time: **{black}** wins the Armageddon."
    )


def over_bid_td(name: str, white: str, black: str, lichess_id: str, move: int) -> str:
    """To the TD: the bot ruled the Armageddon for Black on White's clock record."""
    return (
        f"⏱️ {name}: the Armageddon {game_link(lichess_id)} was counted as **{black}**'s win: "
        f"Lichess's clock record shows {white} (White) over their bid after move {move}. "
        "If that is wrong, void the game with /td results void-game and set it right."
    )


def no_clock_record_td(name: str, white: str, lichess_id: str, limit_s: int) -> str:
    """To the TD: Lichess sent no clock record, so the check is the TD's."""
    return (
        f"⏱️ {name}: Lichess sent no clock record for the Armageddon {game_link(lichess_id)}, "
        f"so the bot could not check that {white} (White) stayed above "
        f"{clock_text(limit_s)}. The result was counted as played: check the clocks on the "
        "game page and void the game with /td results void-game if White went below."
    )


def revealed_td(name: str, white: str, white_bid: int, black: int) -> str:
    """To the TD at the reveal: what the bot will check when the game is in."""
    return (
        f"⚖️ {name}: Armageddon bids revealed, {white} plays White with "
        f"{clock_text(white_bid)} against {clock_text(black)}. Lichess gives both sides "
        f"{clock_text(black)}; when the game is in, the bot reads White's clock record and "
        f"counts the game as Black's win if it fell below {clock_text(black - white_bid)}. "
        "You are asked to check only if Lichess sends no clock record."
    )


def armageddon_result(name: str, white: str, black: str, winner: str, drawn: bool) -> str:
    """In the match's thread: the Armageddon is in, and what it decided."""
    how = (
        f"drawn, so **{black}** (Black) wins with draw odds"
        if drawn
        else f"**{winner}** ({'White' if winner == white else 'Black'}) wins it"
    )
    return f"⚖️ {name} Armageddon: {how}. **{winner}** wins the {name}."
