"""The TD's pick lists: every match, player, registration, cheat report, game and incident
named as the TD knows it ("Swiss round 3, board 2: alice vs bob (negotiating)"), for the
autocomplete of the /td options, so nobody types a database id.

`service.py` (one short read-only session per list, filtered by what the TD typed, at most
25 entries), `text.py` (the names shown). No commands: the callbacks are in `cogs/common.py`
and every feature's `td_cog.py` attaches them to its options. Rules: none (VII.A: a
report's name never shows its reporter).
"""
