"""A tournament's number of rounds and its end.

- tournaments: `planned_rounds` (the rounds the organiser set; no round is drawn past them) and
  `ended_at` (the organiser ended it: its standings are final, no round is drawn, no match reopened).

Revision ID: 0003_tournament_end
Revises: 0002_revisions
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_tournament_end"
down_revision = "0002_revisions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("planned_rounds", sa.Integer))
    op.add_column("tournaments", sa.Column("ended_at", sa.String(40)))
