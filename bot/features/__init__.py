"""One package per feature; each holds its use cases, types, wording and Discord commands.

See docs/ARCHITECTURE.md.
"""
