"""Results read from Lichess: the game link at the agreed time, the results poll, /game,
the Armageddon bids of a knock-out or final match and the TD's void-game.

Plain classes, each one job, given what they hold by `bot.wiring`: `stage_rules.py`
(`StageRules`, the rules of each stage applied to a match's results; a knock-out or
final match by its stage row's match format, `Config.match_format`), `records.py`
(`MatchRecords`, the matches loaded with their games), `reading.py` (`Scorekeeper`: storing
the games that count, settling the score and the end), `service.py` (`ResultsService`,
`bot.svc.results`: the game links, the poll, /game, void-game), `armageddon.py`
(`ArmageddonBids`, `bot.svc.bids`: the bids for White); `types.py`, `text.py`, `cog.py`
(/game, the Bid for White button), `td_cog.py` (/td results, /td armageddon rps). Rules:
`bot.rules.attribution`, `bot.rules.match`, `bot.rules.final`, `bot.rules.final_schemes`,
`bot.rules.armageddon`.
"""
