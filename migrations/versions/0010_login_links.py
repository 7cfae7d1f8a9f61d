"""login links: the single-use "Log in with Lichess" links /register gives (issue 33)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import db.types

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.Column("expires_at", db.types.UTCDateTime(), nullable=False),
        sa.Column("started_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("state_hash", sa.String(length=64), nullable=True),
        sa.Column("code_verifier", sa.String(length=128), nullable=True),
        sa.Column("finished_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["challenge_id"],
            ["ownership_challenges.id"],
            name=op.f("fk_login_links_challenge_id_ownership_challenges"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_links")),
        sa.UniqueConstraint("state_hash", name=op.f("uq_login_links_state_hash")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_login_links_token_hash")),
    )
    with op.batch_alter_table("login_links", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_login_links_challenge_id"), ["challenge_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("login_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_links_challenge_id"))
    op.drop_table("login_links")
