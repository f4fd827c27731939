"""The Streamlit app's pages and their logic.

Page modules (`manual`, `photo`, `live`) hold the Streamlit calls; the pure logic they use
(`draft`, `winctx`, `correction`, `overlay`, `live_loop`, ...) imports no Streamlit and is
tested directly.  `app.py` only sets up the page and the navigation.
"""
