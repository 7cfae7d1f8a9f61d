"""The offline championship: a fake Lichess server, the Discord harness that drives the real
command tree with Discord's HTTP layer recorded, and `acwc simulate`, which runs a whole
championship on them. The tests use the same fakes (`tests/harness`, `tests/fakes`)."""
