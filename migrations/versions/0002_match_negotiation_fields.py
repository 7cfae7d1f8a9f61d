"""match negotiation fields

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 14:44:14.164394
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("board", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(sa.Column("chooser_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("td_assigns", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_matches_chooser_id_players"), "players", ["chooser_id"], ["id"]
        )

    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thread_id", sa.BigInteger(), nullable=True))

    with op.batch_alter_table("stages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seeding", sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_column("thread_id")

    with op.batch_alter_table("stages", schema=None) as batch_op:
        batch_op.drop_column("seeding")

    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_matches_chooser_id_players"), type_="foreignkey")
        batch_op.drop_column("message_id")
        batch_op.drop_column("td_assigns")
        batch_op.drop_column("chooser_id")
        batch_op.drop_column("board")
