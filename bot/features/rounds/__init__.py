"""The rounds (rule IV) and the stages: the Swiss (rule III.E), the tiebreak matches (rule
III.E.5), the Candidates (rule III.F) and the Final (rule III.G). Start, pair and publish
rounds, close them, the round deadlines, and what follows the end of each stage.

`progress.py` (the round life cycle), `robin.py` (round robin rounds, their results and
ranking), `stages.py` (the stage flow: the end of the Swiss, tiebreak matches, the
Candidates, ties the TD breaks), `final.py` (setting up the Final, crowning the champion),
`service.py` (use cases, deadlines, event answers), `publisher.py` (the pairings post and
threads in Discord), `types.py`, `text.py` (the round preview), `stage_text.py` (the final
Swiss and Candidates tables as posted), `cog.py` (the tie buttons; no player commands),
`td_cog.py` (/td round). /standings and /pairings are in `bot.features.tables`. Rules:
`bot.rules.swiss`, `bot.rules.swiss_table`, `bot.rules.candidates`.
"""
