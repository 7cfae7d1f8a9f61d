"""A knock-out's or final match's scoreboard: one line per block with the block's score
(issue 31: "the live scoreboard lacks per-block scores"), and the longest Final in one
message with the longest Lichess names (issue 32: the Final's board reached 1,995 of
2,000 characters)."""

from __future__ import annotations

from bot.features.matches.text import block_scoreboard
from bot.features.matches.types import PLAYED_ON, GameLine
from bot.message_text import MESSAGE_LIMIT, SHORTENED
from bot.rules import final_schemes
from bot.rules.final import FinalFormat

A = "A" * 30  # Lichess usernames are at most 30 characters
B = "B" * 30


def _games(results: list[float]) -> list[GameLine]:
    out = []
    for n, r in enumerate(results, 1):
        white, black = (A, B) if n % 2 else (B, A)
        out.append(GameLine(n, f"g{n:07d}", white, black, r, True, None, False))
    return out


def test_the_longest_2019_final_fits_and_shows_every_block() -> None:
    # 12 games 6-6, nine extensions each 1-1 (24-24 after 30), then the Armageddon (game
    # 31, drawn: Black wins; game 31 is odd, so A has White and B wins it).
    results = [1.0, 0.0] * 6 + [1.0, 0.0] * 9 + [0.5]
    games = _games(results)
    fmt = FinalFormat()
    # the stored score counts the Armageddon as a game: 15.5-15.5 for its draw
    board = block_scoreboard(
        A, B, games, 15.5, 15.5, finished=True, blocks=final_schemes.blocks(fmt, len(games))
    )
    assert len(board) <= MESSAGE_LIMIT
    # the head counts the 30 games: the Armageddon adds no point (rule III.G.6)
    assert board.startswith(f"📊 **{A}** 15–15 **{B}** (final result)")
    assert "**Games 1–12** (6–6)" in board
    assert "**Extension 1, games 13–14** (1–1)" in board
    assert "**Extension 9, games 29–30** (1–1)" in board
    assert f"**Armageddon, game 31**: [31](https://lichess.org/g0000031) ½, drawn: **{B}**" in board
    assert board.count("](https://lichess.org/") == 31  # every game is linked
    assert SHORTENED not in board


def test_a_semifinal_board_with_a_game_not_counted() -> None:
    # 10 games, 5-5 (a wins the odd games), a voided game 4 replaced (numbers 1-11: game
    # 4 stored void, so the counted ones are 1-3, 5-11).
    results = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    games = _games(results)
    games[3] = GameLine(4, "g0000004", B, A, 1.0, False, "wrong clock", False)
    counted = sum(1 for g in games if g.counted)
    blocks = final_schemes.blocks(final_schemes.SEMIFINAL_2021, counted)
    board = block_scoreboard(A, B, games, 5.0, 5.0, finished=False, blocks=blocks)
    # counted: 1,0,1,0,1,0,1,0,1,0 -> 5-5 in games 1-10
    assert "**Games 1–10** (5–5)" in board
    assert "Not counted: ~~[4](https://lichess.org/g0000004) 1~~ (wrong clock)" in board
    assert "(live)" in board


def test_games_played_on_after_the_decision_are_listed_apart() -> None:
    games = _games([1.0] * 7)
    games.append(GameLine(8, "g0000008", B, A, 0.0, False, PLAYED_ON, False))
    blocks = final_schemes.blocks(final_schemes.GRAND_FINAL_2022, 7)
    board = block_scoreboard(A, B, games, 7.0, 0.0, finished=True, blocks=blocks)
    assert "**Games 1–12** (7–0)" in board
    assert "Played on after the decision: 7–1 over all 8 games." in board
