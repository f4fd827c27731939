"""Tile pictures as HTML glyphs: the Chinese face in the suit's colour over the tile's name.

Drawn by the browser's own fonts, so no tile artwork ships with the app.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from tileset.classes import NAMES_ZH

SUIT_COLOURS = {"m": "#b3261e", "p": "#1a4fa0", "s": "#1e7a34", "wind": "#222222", "f": "#7b3fa0", "back": "#6d4c41"}
DRAGON_COLOURS = {"C": "#b3261e", "F": "#1e7a34", "P": "#1a4fa0"}

TILE_CSS = (
    "display:inline-flex;flex-direction:column;align-items:center;justify-content:center;"
    "width:2.4em;height:3.2em;margin:0 2px;border:1px solid #9e9e9e;border-radius:5px;"
    "background:#fffdf5;box-shadow:1px 2px 0 #c8c2b0;font-family:sans-serif;vertical-align:top;"
)


def tile_colour(name: str) -> str:
    if name in DRAGON_COLOURS:
        return DRAGON_COLOURS[name]
    if name in ("E", "S", "W", "N"):
        return SUIT_COLOURS["wind"]
    if name == "back":
        return SUIT_COLOURS["back"]
    if name[0] in "fs" and len(name) == 2 and name[1].isdigit():
        return SUIT_COLOURS["f"]
    return SUIT_COLOURS.get(name[-1], "#222222")


def tile_label(name: str) -> str:
    """Button text for a tile: its Chinese face and its name, e.g. '五万 5m'."""
    return f"{NAMES_ZH.get(name, name)} {name}"


MARKDOWN_COLOURS = {"m": "red", "p": "blue", "s": "green", "C": "red", "F": "green", "P": "blue"}


def tile_button_label(name: str) -> str:
    """Button text with the face in the suit's colour (Streamlit markdown), e.g. ':red[五万] 5m'."""
    zh = NAMES_ZH.get(name, name)
    colour = MARKDOWN_COLOURS.get(name if len(name) == 1 else name[-1])
    return f":{colour}[**{zh}**] {name}" if colour else f"**{zh}** {name}"


def tile_html(name: str, *, highlight: bool = False, sideways: bool = False) -> str:
    zh = NAMES_ZH.get(name, name)
    colour = tile_colour(name)
    border = "border:2px solid #f9a825;" if highlight else ""
    turn = "transform:rotate(90deg);margin:0 10px;" if sideways else ""
    face = (
        f"<span style='font-size:1.25em;line-height:1.1;color:{colour};font-weight:700'>{escape(zh[0])}</span>"
        + (f"<span style='font-size:0.8em;line-height:1;color:{colour}'>{escape(zh[1:])}</span>" if len(zh) > 1 else "")
    )
    return (
        f"<span title='{escape(name)}' style='{TILE_CSS}{border}{turn}'>{face}"
        f"<span style='font-size:0.6em;color:#555'>{escape(name)}</span></span>"
    )


def strip_html(groups: Sequence[tuple[str, Sequence[str]]]) -> str:
    """Groups of tiles side by side, each captioned: [(caption, [names...]), ...]."""
    parts = []
    for caption, names in groups:
        tiles = "".join(tile_html(n) for n in names)
        parts.append(
            "<span style='display:inline-block;margin:0 14px 8px 0;vertical-align:top'>"
            f"<div style='font-size:0.75em;color:#666'>{escape(caption)}</div>{tiles}</span>"
        )
    return "<div>" + "".join(parts) + "</div>"
