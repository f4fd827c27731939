"""The match ledger: a whole MCR match at one table, deal by deal (see `ledger.match`).

`rules`, `match` and `exchange` are pure (standard library and `scoring`); `store` keeps matches
in SQLite or PostgreSQL through SQLAlchemy Core; `python -m ledger` is the command line.
"""
