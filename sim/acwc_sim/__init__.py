"""The offline championship: a fake Lichess server, the Discord harness that drives the real
command tree with Discord's HTTP layer recorded, and `acwc simulate`, which runs a whole
championship on them. The tests use the same fakes (`tests/harness`, `tests/fakes`).

A distribution of its own (`sim/pyproject.toml`), installed beside the bot with
`pip install -e ./sim`: the bot's install and its Docker image carry none of it, and the bot
imports it only to run `acwc simulate`."""
