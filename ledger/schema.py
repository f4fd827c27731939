"""The ledger's tables as the queries see them (their DDL is in the migrations, `ledger/migrations`), and the time
stamps written in them."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa


def now_iso() -> str:
    """Now, as the ledger stores times: ISO 8601, UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")

metadata = sa.MetaData()
matches = sa.Table(
    "matches", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, default=""),
    sa.Column("table_label", sa.String(100), nullable=False, default=""),
    sa.Column("round_label", sa.String(100), nullable=False, default=""),
    sa.Column("seat_rule", sa.String(20), nullable=False),
    sa.Column("false_win_penalty", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("uid", sa.String(64)),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("closed_reason", sa.String(20)),
    sa.Column("closed_at", sa.String(40)),
    sa.Column("tournament_id", sa.Integer),
    sa.Column("round_no", sa.Integer),
    sa.Column("table_no", sa.Integer),
)
players = sa.Table(
    "players", metadata,
    sa.Column("match_id", sa.Integer, primary_key=True),
    sa.Column("place", sa.Integer, primary_key=True),  # 0..3: starting place E S W N
    sa.Column("name", sa.String(100), nullable=False),
)
deals = sa.Table(
    "deals", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("match_id", sa.Integer, nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("result", sa.String(20), nullable=False),
    sa.Column("winner", sa.Integer),  # player places 0..3
    sa.Column("discarder", sa.Integer),
    sa.Column("total", sa.Integer),
    sa.Column("hand_json", sa.Text),
    sa.Column("recorded_at", sa.String(40), nullable=False),
)
penalties = sa.Table(
    "penalties", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("match_id", sa.Integer, nullable=False),
    sa.Column("deal", sa.Integer, nullable=False),
    sa.Column("player", sa.Integer, nullable=False),
    sa.Column("points", sa.Integer, nullable=False),
    sa.Column("reason", sa.String(200), nullable=False),
    sa.Column("to_others", sa.Boolean, nullable=False),
    sa.Column("false_win", sa.Boolean, nullable=False),
    sa.Column("recorded_at", sa.String(40), nullable=False),
)
changes = sa.Table(
    "changes", metadata,
    sa.Column("match_id", sa.Integer, primary_key=True),
    sa.Column("revision", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("number", sa.Integer),
    sa.Column("at", sa.String(40), nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
)
tournaments = sa.Table(
    "tournaments", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("uid", sa.String(64), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("planned_rounds", sa.Integer),
    sa.Column("ended_at", sa.String(40)),
)
entrants = sa.Table(
    "entrants", metadata,
    sa.Column("tournament_id", sa.Integer, primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
)
