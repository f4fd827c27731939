"""The match ledger: a whole MCR match at one table, deal by deal (see `ledger.match`), and tournaments.

`rules`, `match`, `exchange` and `tournament` are pure (standard library and `scoring`); `store` keeps
matches and tournaments in SQLite or PostgreSQL through SQLAlchemy Core, its schema versioned with
Alembic (`migrations`); `python -m ledger` is the command line.
"""
