"""Results read from Lichess: the game link at the agreed time, the results poll, /game and
the TD's void-game.

`reading.py` (stage rules, storing and settling games), `service.py` (the jobs and the use
cases), `types.py`, `text.py`, `cog.py` (/game), `td_cog.py` (/td results). Rules:
`bot.rules.attribution`, `bot.rules.match`, `bot.rules.final`.
"""
