"""A match imported from its JSON file (a repeat is recognised) and exported as CSV or JSON."""

from __future__ import annotations

import json

import streamlit as st

from ledger.exchange import ledger_from_json, ledger_to_csv, ledger_to_json
from ledger.match import Ledger, LedgerError

from .match_state import MATCH_ID, PREFIX, flash, store
from .match_words import tr


def on_import() -> None:
    upload = st.session_state.get(PREFIX + "import")
    if upload is None:
        return
    try:
        imported = store().import_match(ledger_from_json(upload.getvalue()))
        st.session_state[MATCH_ID] = imported.match_id
        flash(None if imported.new else tr("already_imported", id=imported.match_id))
    except LedgerError as exc:
        flash(str(exc))


def import_form() -> None:
    """A match's JSON file (exported here or by `python -m ledger export`) taken in as a new match."""
    if st.file_uploader(tr("import"), type=["json"], key=PREFIX + "import") is not None:
        st.button(tr("import"), key=PREFIX + "import_go", on_click=on_import)


def downloads(ledger: Ledger, match_id: int) -> None:
    """The score sheet as CSV and the match as JSON (re-importable)."""
    c1, c2 = st.columns(2)
    c1.download_button(tr("csv"), ledger_to_csv(ledger).encode("utf-8"), file_name=f"match-{match_id}.csv", mime="text/csv",
                       key=PREFIX + "csv", width="stretch")
    c2.download_button(tr("json"), json.dumps(ledger_to_json(ledger), ensure_ascii=False, indent=1),
                       file_name=f"match-{match_id}.json", mime="application/json", key=PREFIX + "json",
                       width="stretch")
