"""The end-to-end tests drive the same running bot as the cog tests."""

from tests.running import running_bot

__all__ = ["running_bot"]
