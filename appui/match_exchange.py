"""A match imported from its JSON file (a repeat is recognised) and exported as CSV or JSON."""

from __future__ import annotations

import json
from html import escape

import streamlit as st

from ledger.exchange import ledger_from_json, ledger_to_csv, ledger_to_json
from ledger.match import Ledger, LedgerError
from ledger.tournament import Tournament

from .match_state import MATCH_ID, PREFIX, flash, store
from .match_words import tr


def on_import() -> None:
    upload = st.session_state.get(PREFIX + "import")
    if upload is None:
        return
    try:
        imported = store().import_match(ledger_from_json(upload.getvalue()))
        st.session_state[MATCH_ID] = imported.match_id
        if imported.new:
            flash(tr("imported", id=imported.match_id), "success")
        else:
            flash(tr("already_imported", id=imported.match_id), "info")  # nothing wrong: the file is already here
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


def standings_html(title: str, view: Tournament, *, final: bool, rounds: int, language: str | None = None) -> str:
    """The standings as a page of their own, to print: the title, final or not, the tie-breaks, a row a player."""
    heading = tr("t_final" if final else "t_standings_print", language, rounds=rounds)
    columns = ("rank", "player", "matches_played", "table_points", "points", "t_firsts")
    head = "".join(f"<th>{escape(tr(c, language))}</th>" for c in columns)
    rows = "".join(
        f"<tr><td>{p.rank}</td><td>{escape(p.player)}</td><td>{p.matches}</td><td>{p.table_points:g}</td>"
        f"<td>{p.points}</td><td>{p.firsts}</td></tr>" for p in view.players)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title><style>"
            "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "th,td{border:1px solid #999;padding:4px 10px;text-align:right}td:nth-child(2),th:nth-child(2){text-align:left}"
            f"</style></head><body><h1>{escape(title)}</h1><h2>{escape(heading)}</h2>"
            f"<p>{escape(tr('t_ranked_by', language))}</p><table><tr>{head}</tr>{rows}</table></body></html>\n")
