"""outbox claims

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-09 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.types

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_until", db.types.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("claim_token", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("claim_token")
        batch_op.drop_column("claimed_until")
