"""The rounds (rule IV) and the stages: the Swiss (rule III.E), the tiebreak matches (rule
III.E.5), the Candidates (rule III.F) and the Final (rule III.G). Start, pair and publish
rounds, close them, the round deadlines, and what follows the end of each stage.

Plain classes, each one job, given their collaborators when `bot.wiring` builds them:
`service.py` (`RoundService`, `bot.svc.rounds`: the TD's round commands, deadlines, event
answers), `ties.py` (`StageTies`, `bot.svc.ties`: the TD's tie buttons), `stages.py`
(`StageFlow`: the end of the Swiss, tiebreak matches, the Candidates), `final.py`
(`FinalStage`: setting up the Final, crowning the champion), `robin.py` (`RobinRounds`:
round robin rounds, their results and ranking), `progress.py` (`RoundProgress`: the round
life cycle), `next_round.py` (`SwissNextRound`: the next Swiss round, paired with no
transaction open), `pairing.py` (the pure pairing), `records.py` (what they read and keep
between stages, each new stage row named from the format, the saved outcomes), `advance.py`
(`StageAdvance`: the stages that may start once others finished, `bot.format.flow`),
`starters.py` (`STARTERS`: how a round robin, a knock-out, a final match starts),
`stage_ends.py` (`StageEnds`: how a pool of several, a knock-out, a final match other than
2019's ends), `leaving.py` (`StageLeaving`: a player leaving a knock-out or final match under
way, by the format's leaving rule, `bot.rules.leaving`), `publisher.py` (the
pairings post and threads in Discord), `types.py`, `text.py` (every word), `stage_text.py`
(the final Swiss and Candidates tables as posted), `cog.py` (the tie buttons; no player
commands), `td_cog.py` (/td round). /standings and /pairings are in `bot.features.tables`.
Rules: `bot.rules.stages`, `bot.rules.swiss`, `bot.rules.swiss_table`, `bot.rules.tiebreaks`
(the Swiss by the format's chain), `bot.rules.candidates`, `bot.rules.tiebreaks_robin`
(a pool's places), `bot.rules.advancement` (through `bot.format.flow`).
"""
