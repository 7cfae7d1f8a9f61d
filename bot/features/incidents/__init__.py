"""Match-day incidents (rule VI): no-shows, breaks, players who left, the TD's overrule.

`core.py` (what every incident shares: the match context, messages and refusals as plain
functions; `PlayedGames`, Lichess's games between the two; `IncidentBook`, a claim's timers
and call-off), `noshow.py` (`NoShows`), `breaks.py` (`Breaks`), `td.py` (`Overrules`): plain
use-case classes given their collaborators by `bot.wiring`; `types.py`, `text.py`,
`cog.py` (/noshow, /break, /left and their buttons), `td_cog.py` (/td incident).
"""
