"""Photo page, the reader's doubts: what it is unsure of in player words, which doubts the hand settles,
the faces that would make the hand win (the live page uses these too).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from scoring.hand import HandError, WinContext
from scoring.scorer import is_winning
from tileset.classes import CLASS_NAMES

from .correction import HAND, MELD_GROUPS, WIN, CorrectionError, Reading
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


_CONFIRMABLE = frozenset({"low_confidence"})  # doubts about one face, which the hand's shape can settle


def other_winning_faces(reading: Reading, index: int, context: WinContext) -> Iterator[str]:
    """The faces, other than the one read, that make the hand win when tile `index` is read as them."""
    for face in CLASS_NAMES[:34]:
        if face == reading.tiles[index].cls:
            continue
        try:
            if is_winning(reading.with_face(index, face).to_hand(context)):
                yield face
        except (HandError, CorrectionError):
            continue


def _confirmed_by_hand(reading: Reading, index: int) -> bool:
    """The hand wins as read, and with no other face at `index`: its shape confirms that tile."""
    context = WinContext()
    try:
        if not is_winning(reading.to_hand(context)):
            return False
    except (HandError, CorrectionError):
        return False
    if reading.tiles[index].cls not in TILE_NAMES or reading.tiles[index].group not in (HAND, WIN, *MELD_GROUPS):
        return False
    return next(other_winning_faces(reading, index, context), None) is None


def open_doubts(original: Reading, reading: Reading, issues: Sequence[Any]) -> tuple[list[tuple[int, Any, list[int]]], list[Any]]:
    """(the reader's `issues` still in doubt as (number, issue, tiles it names in `reading`), the ones the hand
    settles), for `reading` as the player has corrected `original` (the photo and the live page share it).

    An issue about tiles is settled once the player has corrected (or removed) each of them, and a
    doubt about a face once the hand wins with that face and with no other; an issue about the
    hand as a whole once the player has corrected anything.
    """
    corrected = reading.edits > 0 or len(reading.tiles) != len(original.tiles)
    open_: list[tuple[int, Any, list[int]]] = []
    settled: list[Any] = []
    for n, issue in enumerate(issues):
        named = reading.tiles_named_in(issue) if getattr(issue, "tiles", ()) else []
        if getattr(issue, "tiles", ()):
            if not named or all(reading.tiles[i].edited for i in named):
                continue
            if str(getattr(issue, "code", "")) in _CONFIRMABLE and all(
                _confirmed_by_hand(reading, i) for i in named
            ):
                settled.append(issue)
                continue
        elif corrected:
            continue
        open_.append((n, issue, named))
    return open_, settled


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


def doubt_texts(open_: list[tuple[int, Any, list[int]]]) -> None:
    """What the reader doubts, in player words, one short line each."""
    for _, issue, _ in open_:
        st.markdown(f":orange-background[:material/help: {issue_text(issue)}]")


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


