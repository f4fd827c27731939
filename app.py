"""MCR camera scorer: the Streamlit app.  Run with `bash scripts/app.sh` (or `--lan` for phones).

Thin on purpose: page set-up, the language switch, LAN mode's access code and the navigation.
The pages live in `appui/` (their logic in the packages), the cached models in `appui/models.py`.
"""

from __future__ import annotations

import os

import streamlit as st

from appui.access import gate, lan_mode
from appui.i18n import LANG_KEY, t
from appui.navigation import open_start_page_by_its_name, page_specs

st.set_page_config(page_title="MCR scorer 国标麻将算番", page_icon="🀄", layout="wide")

st.session_state.setdefault(LANG_KEY, "en")
with st.sidebar:
    st.segmented_control(
        t("language"), ["en", "zh"], required=True, key=LANG_KEY,
        format_func=lambda code: {"en": "English", "zh": "中文"}[code],
    )

pages = [
    st.Page(spec.script, title=t(spec.title_key), icon=spec.icon, url_path=spec.url_path, default=i == 0)
    for i, spec in enumerate(page_specs())
]
open_start_page_by_its_name()
if not gate():  # LAN mode: no page before the access code; the URL's page opens once it is entered
    st.navigation(pages, position="hidden")
    st.stop()
if lan_mode():
    from appui.lan import LAN_URL_ENV, qr_png

    url = os.environ.get(LAN_URL_ENV)
    if url:
        with st.sidebar:
            st.image(qr_png(url), caption=url, width=160)
            st.caption(t("lan_scan"))
st.navigation(pages).run()
