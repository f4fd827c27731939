"""Every write names the revision it saw; penalties of their own; closed matches; tournaments.

- matches: `uid` (an import is recognised by it), `revision` (bumped by every write), `closed_reason` /
  `closed_at` (a closed match takes no writes until reopened), `tournament_id`, `round_no`, `table_no`;
- changes: one row per write, keyed (match, revision): two writers that saw the same revision cannot
  both insert the next one;
- penalties: any player, points, reason, paid to the others (a false win) or only taken off;
- tournaments and their registered entrants.

A false-win deal of revision 0001 becomes what it meant: a false-win penalty and the deal declared void
(its offender/penalty columns stay, unused). A match with 16 deals is closed. schema_version is set to 2,
so a ledger from before Alembic refuses this database instead of writing past the revision check.

Revision ID: 0002_revisions
Revises: 0001_matches
"""

import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0002_revisions"
down_revision = "0001_matches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uid", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_table(
        "entrants",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.UniqueConstraint("tournament_id", "name", name="uq_entrants_tournament_name"),
    )
    op.add_column("matches", sa.Column("uid", sa.String(64)))
    op.add_column("matches", sa.Column("revision", sa.Integer, nullable=False, server_default="0"))
    op.add_column("matches", sa.Column("closed_reason", sa.String(20)))
    op.add_column("matches", sa.Column("closed_at", sa.String(40)))
    op.add_column("matches", sa.Column("tournament_id", sa.Integer))
    op.add_column("matches", sa.Column("round_no", sa.Integer))
    op.add_column("matches", sa.Column("table_no", sa.Integer))
    op.create_index("uq_matches_uid", "matches", ["uid"], unique=True)
    op.create_index("uq_matches_seat", "matches", ["tournament_id", "round_no", "table_no"], unique=True)
    op.create_table(
        "changes",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("number", sa.Integer),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_table(
        "penalties",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("player", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("to_others", sa.Boolean, nullable=False),
        sa.Column("false_win", sa.Boolean, nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
    )
    conn = op.get_bind()
    now = datetime.now(UTC).isoformat(timespec="seconds")
    matches = sa.table("matches", sa.column("id"), sa.column("uid"), sa.column("revision"),
                       sa.column("closed_reason"), sa.column("closed_at"))
    deals = sa.table("deals", sa.column("match_id"), sa.column("number"), sa.column("result"), sa.column("offender"),
                     sa.column("penalty"), sa.column("recorded_at"))
    penalties = sa.table("penalties", sa.column("match_id"), sa.column("deal"), sa.column("player"), sa.column("points"),
                         sa.column("reason"), sa.column("to_others"), sa.column("false_win"), sa.column("recorded_at"))
    for false_win in conn.execute(sa.select(deals).where(deals.c.result == "false_win")).all():
        conn.execute(sa.insert(penalties).values(
            match_id=false_win.match_id, deal=false_win.number, player=false_win.offender, points=false_win.penalty,
            reason="false win (诈和)", to_others=True, false_win=True, recorded_at=false_win.recorded_at))
    conn.execute(sa.update(deals).where(deals.c.result == "false_win").values(result="void", offender=None, penalty=None))
    counts: dict[int, int] = dict(conn.execute(sa.select(deals.c.match_id, sa.func.count()).group_by(deals.c.match_id)).all())
    for (match_id,) in conn.execute(sa.select(matches.c.id)).all():
        done = counts.get(match_id, 0)
        conn.execute(sa.update(matches).where(matches.c.id == match_id).values(
            uid=str(uuid.uuid4()), revision=done,
            closed_reason="all_deals" if done == 16 else None, closed_at=now if done == 16 else None))
    version = sa.table("schema_version", sa.column("version"))
    conn.execute(sa.delete(version))
    conn.execute(sa.insert(version).values(version=2))
