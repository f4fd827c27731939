"""The ledger's schema as Alembic migrations (run by `LedgerStore.migrate`, never by hand)."""
