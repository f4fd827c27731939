"""Photo page, the reader's doubts: what it is unsure of in player words, which doubts the hand settles and
what a doubted face would give (`appui.doubts`, the live page's too), the faces that would make the hand win.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from scoring.hand import WinContext
from tileset.classes import CLASS_NAMES

from . import doubts
from .correction import HAND, WIN, Reading
from .doubts import DEFAULT_CONTEXT, other_winning_faces
from .i18n import t, tile_short, tile_words
from .photo_read import PREFIX, PhotoRead, select

# --- the reader's doubts, in player words --------------------------------------------------------


def issue_text(issue: Any, language: str | None = None) -> str:
    """A reader issue as a player reads it, in the page's language (the code's label, its values filled)."""
    code = str(getattr(issue, "code", ""))
    params = dict(getattr(issue, "params", {}) or {})
    key = f"issue_{code}"
    try:
        values = _issue_values(params, language)
        return t(key, language, **values)
    except (KeyError, IndexError, ValueError, TypeError):
        return str(issue)  # an issue this table does not know yet: the reader's own sentence


def _issue_values(params: dict[str, Any], language: str | None) -> dict[str, Any]:
    out: dict[str, Any] = dict(params)
    for name in ("name", "kept", "dropped", "read_as"):
        if name in params:
            out[name] = tile_words(str(params[name]), language)
    if "names" in params:
        out["names"] = ", ".join(tile_words(str(n), language) for n in params["names"])
    seen_tiles = params.get("seen")  # left_out: the tiles (name, x, y, conf); too_many_copies: a count
    if isinstance(seen_tiles, (tuple, list)) and seen_tiles and isinstance(seen_tiles[0], (tuple, list)):
        out["names"] = ", ".join(tile_words(str(seen[0]), language) for seen in params["seen"])
    if "at" in params:
        out["count"] = len(params["at"])
        out["where"] = ", ".join(f"({x}, {y})" for x, y in params["at"])
    if "angle_deg" in params:
        out["angle"] = f"{float(params['angle_deg']):.0f}"
    return out


def open_doubts(original: Reading, reading: Reading, issues: Sequence[Any],
                context: WinContext = DEFAULT_CONTEXT) -> tuple[list[tuple[int, Any, list[int]]], list[Any]]:
    """(the reader's `issues` still in doubt as (number, issue, tiles it names), the ones settled): the live
    page's reckoning too, `appui.doubts.open_doubts` (a doubt about a face is settled when no face the tile
    may be changes the hand)."""
    return doubts.open_doubts(original, reading, issues, context)


def doubted_tiles(open_: list[tuple[int, Any, list[int]]]) -> list[int]:
    """The tiles the open doubts name, each once, in the doubts' order (their numbers on the photo)."""
    return list(dict.fromkeys(index for _, _, named in open_ for index in named))


def checks(photo: PhotoRead, open_: list[tuple[int, Any, list[int]]], doubted: list[int]) -> None:
    """"Check these N tiles": a button per doubted tile (numbered as on the photo; a tap opens its
    editor under the photo) and what the reader doubts, in player words."""
    if not open_:
        st.caption(t("no_doubts"))
        return
    if doubted:
        st.markdown(f"**{t('check_tiles', n=len(doubted)) if len(doubted) > 1 else t('check_one_tile')}**")
        with st.container(horizontal=True, gap="small", key="photo_checks"):
            for n, index in enumerate(doubted, start=1):
                st.button(f"{n} · {tile_short(photo.reading.tiles[index].cls)}", key=f"{PREFIX}check.{index}",
                          on_click=select, args=(index, "photo"), icon=":material/search:",
                          help=tile_words(photo.reading.tiles[index].cls))


def doubt_texts(open_: list[tuple[int, Any, list[int]]], reading: Reading | None = None,
                context: WinContext | None = None) -> None:
    """What the reader doubts, in player words, one short line each, each once; a doubt about a tile's face
    says what each face it may be would give (`appui.doubts.doubt_text`, in the hand's `context` once known)."""
    lines = []
    for _, issue, named in open_:
        said = []
        if reading is not None and getattr(issue, "code", None) in doubts.FACE_ISSUES:
            now = doubts.outcome(reading, context or DEFAULT_CONTEXT)
            found = (doubts.tile_doubt(reading, i, context or DEFAULT_CONTEXT, now) for i in named)
            said = [doubts.doubt_text(d) for d in found if d is not None and d.could_be]
        lines += said or [issue_text(issue)]
    for line in dict.fromkeys(lines):
        st.markdown(f":orange-background[:material/help: {line}]")


def settled_doubts(settled: list[Any]) -> None:
    if settled:
        with st.expander(t("settled_doubts", n=len(settled))):
            for issue in settled:
                st.caption(issue_text(issue))


TILE_NAMES = frozenset(CLASS_NAMES[:34])


@dataclass(frozen=True)
class WinningHint:
    """Changing the tile `index` to `face` would make the hand win."""

    index: int
    face: str


def winning_hints(reading: Reading, context: WinContext, limit: int = 3) -> list[WinningHint]:
    """The standing tiles (and the winning tile) that, read as another face, would make the hand win;
    doubtful and corrected tiles first."""
    candidates = [i for i, tile in enumerate(reading.tiles) if tile.group in (HAND, WIN) and tile.cls in TILE_NAMES]
    candidates.sort(key=lambda i: (not reading.tiles[i].edited, reading.tiles[i].conf))
    hints: list[WinningHint] = []
    for index in candidates:
        face = next(other_winning_faces(reading, index, context), None)
        if face is not None:
            hints.append(WinningHint(index, face))
        if len(hints) >= limit:
            break
    return hints


