"""Standings and pairings for everyone, as pictures and as text: the Swiss table, the
Candidates crosstable, the Final game by game, and the boards of any round.

`types.py` (the plain `Table`, the `Bracket` and what the use cases return), `builders.py`
(tables from plain data: `swiss_table`, `candidates_table`, `final_table`; the stage code
calls them too), `render.py` (a table as a PNG with Pillow, and as monospace text),
`png_bands.py` (a tall picture drawn and written band by band, so its memory stays flat),
`bracket.py` (the bracket of the match stages from the format and plain results),
`bracket_picture.py` (its PNG), `bracket_reading.py` (its results from the database),
`stored.py` (the rows every table reads), `posts.py` (the announcement posts),
`service.py` (reads the stages from the database; posts the standings after each round),
`text.py`, `cog.py` (/standings, /pairings). Rules: `bot.rules.tiebreaks` (the Swiss by the format's
chain), `bot.rules.swiss_table`, `bot.rules.candidates`, `bot.rules.final`.
"""
