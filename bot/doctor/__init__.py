"""The setup checks: is this bot, token, server, database and config ready to run a
championship? Shared by `acwc doctor`, `acwc run` (at start) and, later, `/td setup`.

- `permissions.py`: every Discord permission the bot needs, where and why, and the invite URL.
- `lines.py`: `CheckLine`, one line of the report, and how it is printed.
- `discord_checks.py`: the checks against Discord (token, guild, channels, TDs, intent).
- `checks.py`: the list of every check, the database's, and running them all.
- `at_start.py`: what `acwc run` does with the lines: refuse to start, warn once.
- `command.py`: `acwc doctor` and `acwc invite-url`.
"""
