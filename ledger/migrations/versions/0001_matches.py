"""Matches, their players and deals (the schema the ledger had before Alembic: created only where missing).

Revision ID: 0001_matches
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_matches"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "schema_version" not in existing:  # read by the ledger before Alembic: it refuses a version above 1
        op.create_table("schema_version", sa.Column("version", sa.Integer, nullable=False))
    if "matches" not in existing:
        op.create_table(
            "matches",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("table_label", sa.String(100), nullable=False),
            sa.Column("round_label", sa.String(100), nullable=False),
            sa.Column("seat_rule", sa.String(20), nullable=False),
            sa.Column("false_win_penalty", sa.Integer, nullable=False),
            sa.Column("created_at", sa.String(40), nullable=False),
        )
    if "players" not in existing:
        op.create_table(
            "players",
            sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
            sa.Column("place", sa.Integer, primary_key=True),
            sa.Column("name", sa.String(100), nullable=False),
            sa.UniqueConstraint("match_id", "name", name="uq_players_match_name"),
        )
    if "deals" not in existing:
        op.create_table(
            "deals",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("result", sa.String(20), nullable=False),
            sa.Column("winner", sa.Integer),
            sa.Column("discarder", sa.Integer),
            sa.Column("offender", sa.Integer),
            sa.Column("total", sa.Integer),
            sa.Column("penalty", sa.Integer),
            sa.Column("hand_json", sa.Text),
            sa.Column("recorded_at", sa.String(40), nullable=False),
            sa.UniqueConstraint("match_id", "number", name="uq_deals_match_number"),
        )
