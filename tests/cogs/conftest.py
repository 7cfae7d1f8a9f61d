"""Kept for tests written before the feature layout: the running bot lives in tests/running.py."""

from tests.running import ALICE, BOB, ROLE_TD, RunningBot, running_bot

__all__ = ["ALICE", "BOB", "ROLE_TD", "RunningBot", "running_bot"]
