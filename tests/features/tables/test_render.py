"""The picture decodes, is opaque and sized for Discord's preview; the text is the same
table, every cell of it, under Discord's 2000 characters."""

from __future__ import annotations

import io

from PIL import Image, ImageChops

from bot.features.tables import render
from bot.features.tables.builders import (
    deciding_games,
    final_table,
    final_time_controls,
    swiss_table,
)
from bot.features.tables.render import render_png, render_text
from bot.features.tables.types import FinalGame, SwissPairing, Table
from bot.message_text import MESSAGE_LIMIT
from bot.rules import final_schemes
from bot.rules.final import FinalFormat


def players(count: int, rounds: int = 0) -> Table:
    rows = tuple(
        (str(i), f"player_with_a_long_name_{i:03d}"[-30:], f"{i / 2:g}", str(i % 3))
        for i in range(1, count + 1)
    )
    return Table(
        title="Qualification standings",
        headers=("#", "Player", "Pts", "WvT"),
        rows=rows,
        highlight=tuple(i < 3 for i in range(count)),
        highlight_label="in the top 3",
        footnote="Pts: points. WvT: wins against players on the same points.",
    )


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image


def test_png_decodes_opaque_and_sized_for_the_preview() -> None:
    small, large = decode(render_png(players(4))), decode(render_png(players(40)))
    for image in (small, large):
        assert image.mode == "RGB"  # no transparency: the card is the same on every theme
        assert 800 <= image.width <= 1600
    assert small.height >= 250 and large.height > small.height + 30 * 36
    # a white card with a mid-grey border and a dark title band
    assert small.getpixel((0, 0)) == render.BORDER
    assert small.getpixel((small.width // 2, small.height - 5)) == render.CARD
    assert small.getpixel((render.FONT_SIZE, render.FONT_SIZE + 2)) == render.TITLE_BAND
    # dark ink on the light rows: the darkest pixel of the table is the text colour
    rows = small.crop((30, 150, small.width - 30, 300))
    assert min(sum(pixel) for pixel in rows.getdata()) <= sum(render.INK) + 60


def test_a_wide_swiss_shrinks_the_font_to_stay_readable() -> None:
    seeding = [f"a_thirty_character_name_{i:06d}" for i in range(64)]
    pairings = [
        SwissPairing(r, seeding[(i + r) % 64], seeding[(i + r + 32) % 64], 1.0, 0.0)
        for r in range(1, 10)
        for i in range(0, 64, 2)
    ]
    table = swiss_table(seeding, pairings, rounds=9, qualifiers=3)
    image = decode(render_png(table))
    assert 800 <= image.width <= 1600
    assert image.height > 64 * 20


def test_text_holds_every_cell_in_a_code_block() -> None:
    table = players(12)
    text = render_text(table)
    assert text.startswith("**Qualification standings**\n```\n")
    assert text.count("```") == 2 and len(text) < 2000
    block = text.split("```")[1]
    for row in table.rows:
        line = next(line for line in block.splitlines() if f" {row[1]} " in line)
        for cell in row:
            assert cell in line
    assert "`*` in the top 3." in text and table.footnote in text
    # numbers are right-aligned: the last column (a number) ends every line at one place
    lines = block.strip("\n").splitlines()[2:]
    assert len({len(line) for line in lines}) == 1


def test_long_tables_are_cut_with_a_note_the_picture_keeps_every_row() -> None:
    table = players(200)
    text = render_text(table)
    assert len(text) <= 2000 and text.count("```") == 2
    assert "more rows: see the picture" in text
    assert table.rows[0][1] in text and table.rows[-1][1] not in text
    image = decode(render_png(table))
    assert image.height > 200 * 40


def test_total_rows_survive_the_cut() -> None:
    rows = (*tuple((str(i), "x" * 40) for i in range(1, 100)), ("", "Total"))
    table = Table("Final", ("Game", "Result"), rows, total_rows=1)
    text = render_text(table)
    assert len(text) <= 2000 and text.rstrip("`\n").endswith("Total")


def test_names_outside_the_font_and_markdown_are_safe() -> None:
    table = Table("Zoë_vs_*Bob*", ("Player",), (("Zoë",), ("a_b",)), footnote="a_b wins")
    assert decode(render_png(table)).width >= 800
    text = render_text(table)
    assert text.startswith("**Zoë\\_vs\\_\\*Bob\\***") and "a\\_b wins" in text
    assert "\na_b\n" in text  # cells are verbatim inside the code block


def played_swiss(count: int, rounds: int, *, draws: bool = False) -> Table:
    """A Swiss of ``count`` after ``rounds`` rounds, board k: the k-th best against the next."""
    seeding = [f"ChessPlayer{i:02d}" for i in range(count)]
    pairings = []
    for r in range(1, rounds + 1):
        order = seeding[r - 1 :] + seeding[: r - 1]
        for k in range(0, count - 1, 2):
            a, b = order[k], order[k + 1]
            pairings.append(SwissPairing(r, a, b, 0.5 if draws else 1.0, 0.5 if draws else 0.0))
    return swiss_table(seeding, pairings, rounds=rounds, qualifiers=3)


def test_the_legend_is_never_cut_rows_are_left_out_instead() -> None:
    """Issue 27: the final 24-player table after 7 rounds cut its own legend
    ("Pts: points. WvT: wins ag…"); now the rows give way and the legend stays whole."""
    table = played_swiss(24, 7)
    text = render_text(table)
    assert len(text) <= 2000
    assert text.endswith(table.footnote) and "…" not in text
    assert "more rows: see the picture" in text  # the rows that did not fit, said so


def test_players_tied_across_the_cut_are_not_marked_as_through() -> None:
    """After round 1, eleven players sharing first place are not all "in the top 3"."""
    level = played_swiss(24, 1, draws=True)
    assert not any(level.highlight)
    assert "Shared ranks (equal on every tiebreak): No 1-24." in level.footnote
    assert "`*`" not in render_text(level)


def test_a_final_table_never_hides_its_deciding_games() -> None:
    # Issue 32: the 31-game Final's text ended "... 3 more rows: see the picture" and the
    # hidden rows were games 29-30 and the Armageddon. With 30-character names the table
    # cannot fit whole, so the rows cut are from the middle: the last extension (29-30)
    # and the Armageddon (31) stay, with the total.
    a, b = "A" * 30, "B" * 30
    results = [1.0, 0.0] * 15 + [0.0]
    rules = FinalFormat()
    controls = final_time_controls(results, rules)
    games = [
        FinalGame(n, control, *((a, b) if n % 2 else (b, a)), r)
        for n, (r, control) in enumerate(zip(results, controls, strict=True), start=1)
    ]
    keep = deciding_games(len(results), rules)
    assert keep == 3  # games 29, 30 and the Armageddon
    table = final_table(a, b, games, keep_last=keep)
    text = render_text(table)
    assert len(text) <= MESSAGE_LIMIT
    assert "more rows: see the picture" in text  # something had to go
    lines = text.splitlines()
    body = [line for line in lines if line.strip()[:2].strip().isdigit()]
    numbers = [int(line.split()[0]) for line in body]
    assert numbers[-3:] == [29, 30, 31] and numbers[0] == 1
    assert "Total  15-15" in text
    assert render_text(Table.from_json(table.to_json())) == text  # the picture's copy agrees


def test_deciding_games_of_each_scheme() -> None:
    # a Grand Final level after 12 and after the 4 tiebreak games: 13-16 and the 17th
    assert deciding_games(17, final_schemes.GRAND_FINAL_2022) == 5
    # a match decided inside its first block: the whole block so far
    assert deciding_games(7, FinalFormat()) == 7
    assert deciding_games(0, FinalFormat()) == 0


def test_the_picture_draws_a_dash_as_a_dash() -> None:
    # the knock-out table's score "5.5–2" drew as "5.5?2": the font has no en dash
    assert render.drawable("5.5–2") == "5.5-2"
    assert render.drawable("a — b … ½") == "a - b ... .5"
    assert render.drawable("名") == "?"


def test_a_tall_picture_drawn_in_bands_is_the_picture_drawn_whole() -> None:
    """The picture is drawn and written a band of rows at a time (its memory stays flat as a
    256-player table grows to 12,000 pixels); the bands join into exactly the whole picture,
    wherever they cut a row, a word, the title or the totals."""
    with_totals = Table(
        title="Qualification standings after the last round of a very long championship title",
        headers=("#", "Player", "Pts"),
        rows=(("1", "alice", "5"), ("2", "bob", "4"), ("", "Total", "9")),
        total_rows=1,
        footnote="Pts: points.",
    )
    for table in (players(60), with_totals):
        whole = decode(render_png(table, band_height=100_000))
        for band_height in (1, 37, 100, 1024):
            banded = decode(render_png(table, band_height=band_height))
            assert banded.size == whole.size
            assert ImageChops.difference(banded, whole).getbbox() is None, band_height
