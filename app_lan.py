"""LAN mode's server: the app (app.py) behind `appui.access.AccessMiddleware`.

`python -m appui.lan serve` (what `bash scripts/app.sh --lan` runs) starts `streamlit run app_lan.py`;
Streamlit finds the `st.App` below and serves app.py with the middleware in front: uploads only from
sessions that entered the access code, no metrics or agent endpoints, a browser cookie that lets a
reload in again. A plain http:// request on the port is answered with a redirect to https (appui.lan).
"""

import os

import streamlit as st
from starlette.middleware import Middleware

from appui.access import AccessMiddleware
from appui.lan import LAN_URL_ENV, answer_plain_http

answer_plain_http(os.environ.get(LAN_URL_ENV) or "https://127.0.0.1")

app = st.App("app.py", middleware=[Middleware(AccessMiddleware)])
