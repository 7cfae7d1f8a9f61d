"""The Discord layer every feature shares: helpers, the central error handler, the /td group.

Each feature's commands live in its own package (`bot/features/<feature>/cog.py`) and are
loaded as discord.py extensions.
"""
