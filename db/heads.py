"""`python -m db.heads FOLDER`: the head revisions of the migrations in FOLDER, one a line, as
Alembic's own `ScriptDirectory` finds them (merge migrations included).

`db.schema.head_revision` runs it in a short child process, so that Alembic (about a tenth
of a running bot's memory) stays out of the bot while Alembic alone decides what head is.
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic.script import ScriptDirectory


def heads(versions: Path) -> list[str]:
    """The revisions no migration in `versions` builds on."""
    scripts = ScriptDirectory(str(versions.parent), version_locations=[str(versions)])
    return list(scripts.get_heads())


if __name__ == "__main__":
    print("\n".join(heads(Path(sys.argv[1]))))
