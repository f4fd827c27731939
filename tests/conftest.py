"""Fixtures several test files ask for by name (`pytest.mark.usefixtures`); none applies unasked."""

from __future__ import annotations

import pytest
import streamlit as st


@pytest.fixture
def fresh_ledger(tmp_path, monkeypatch):
    """An empty data folder, so an empty SQLite ledger, and no app state cached from another test."""
    monkeypatch.setenv("MCR_DATA", str(tmp_path))
    monkeypatch.delenv("MCR_DATABASE_URL", raising=False)
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()
