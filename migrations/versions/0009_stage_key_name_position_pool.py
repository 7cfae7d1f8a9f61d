"""stage key, name, position and pool: a stage row is the format's stage (or one pool of it)

A format may have two stages of one kind (the Grand Final and the Third Place Playoff) and
a round-robin stage has a row per pool, so `uq_stages_kind` goes and (key, pool) is unique
instead. A stage without pools stores pool "" (not NULL: NULLs are distinct in a UNIQUE
constraint on SQLite and PostgreSQL alike, so (key, NULL) could repeat).

Existing rows are the 2019 format's (the only one the bot ran before this revision):
swiss -> swiss, "Qualification", 0; tiebreak -> swiss_tiebreak, "Tiebreak matches", 0 (the
tiebreak matches are a row of their own, not a stage of the format); candidates ->
candidates, "Candidates", 1, pool candidates; final -> final, "Final", 2.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 14:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# kind -> (key, name, position, pool): the 2019 format's stages
BACKFILL = {
    "swiss": ("swiss", "Qualification", 0, ""),
    "tiebreak": ("swiss_tiebreak", "Tiebreak matches", 0, ""),
    "candidates": ("candidates", "Candidates", 1, "candidates"),
    "final": ("final", "Final", 2, ""),
}


def upgrade() -> None:
    with op.batch_alter_table("stages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("key", sa.String(length=31), nullable=True))
        batch_op.add_column(sa.Column("name", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("position", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("pool", sa.String(length=31), server_default="", nullable=False)
        )
    stages = sa.table(
        "stages",
        sa.column("kind", sa.String()),
        sa.column("key", sa.String()),
        sa.column("name", sa.String()),
        sa.column("position", sa.Integer()),
        sa.column("pool", sa.String()),
    )
    for kind, (key, name, position, pool) in BACKFILL.items():
        op.execute(
            stages.update()
            .where(stages.c.kind == kind)
            .values(key=key, name=name, position=position, pool=pool)
        )
    with op.batch_alter_table("stages", schema=None) as batch_op:
        batch_op.alter_column("key", existing_type=sa.String(length=31), nullable=False)
        batch_op.alter_column("name", existing_type=sa.String(length=40), nullable=False)
        batch_op.alter_column("position", existing_type=sa.Integer(), nullable=False)
        batch_op.drop_constraint("uq_stages_kind", type_="unique")
        batch_op.create_unique_constraint(batch_op.f("uq_stages_key"), ["key", "pool"])


def downgrade() -> None:
    with op.batch_alter_table("stages", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_stages_key"), type_="unique")
        batch_op.create_unique_constraint(batch_op.f("uq_stages_kind"), ["kind"])
        batch_op.drop_column("pool")
        batch_op.drop_column("position")
        batch_op.drop_column("name")
        batch_op.drop_column("key")
