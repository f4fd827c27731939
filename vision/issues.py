"""What the reader was unsure of, as typed values: a code, the tiles it concerns and its parameters.

A `ReaderIssue` names its tiles by their index in the reading's detections (the `tiles` of
`vision.read.ReadResult`, after duplicates are merged), so a page can point at them without
parsing the sentence; `message()` gives the English sentence (`str()` too), built from the
parameters alone, so another language can be written from the same code and parameters.
The `python -m vision read` JSON keeps the sentences (`docs/spec/contracts.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class IssueCode(StrEnum):
    """Every kind of issue the reader raises; the parameters each one carries are listed beside it."""

    DUPLICATE_READING = "duplicate_reading"  # x, y, kept, kept_conf, dropped, dropped_conf
    LOW_CONFIDENCE = "low_confidence"  # name, x, y, conf
    NO_TILES = "no_tiles"
    ONLY_FLOWERS = "only_flowers"
    ROWS_TILTED = "rows_tilted"  # angle_deg
    ROWS_UPRIGHT = "rows_upright"  # most tiles line up top to bottom
    TOO_MANY_GROUPS = "too_many_groups"  # groups
    TOO_MANY_COPIES = "too_many_copies"  # name, seen, limit
    BACK_IN_STANDING = "back_in_standing"  # name, x, y
    STANDING_TOO_SHORT = "standing_too_short"
    WIN_NOT_SET_APART = "win_not_set_apart"  # name, x, y (the last tile of the standing row)
    WIDE_GAP_IN_SET = "wide_gap_in_set"  # shown
    SETS_TOUCH = "sets_touch"  # shown, after
    UNUSUAL_CONCEALED_KONG = "unusual_concealed_kong"  # shown
    GROUP_BACK_NOT_KONG = "group_back_not_kong"  # shown
    KONG_ONLY_BACKS = "kong_only_backs"
    KONG_FACES_DIFFER = "kong_faces_differ"  # shown
    KONG_TILE_MISSING = "kong_tile_missing"  # shown, tile
    GROUP_NOT_SUIT_OR_HONOR = "group_not_suit_or_honor"  # shown
    GROUP_SIZE = "group_size"  # shown, size
    GROUP_NOT_SET = "group_not_set"  # shown
    STRAY_UNUSED = "stray_unused"  # names
    STRAY_AS_FLOWERS = "stray_as_flowers"  # names
    NO_WIN_TILE = "no_win_tile"
    MELD_NOT_SET = "meld_not_set"
    STANDING_NOT_FACES = "standing_not_faces"  # names
    TILE_COUNT = "tile_count"  # melds, expected, held
    TOO_MANY_FLOWERS = "too_many_flowers"  # flowers
    INVALID_HAND = "invalid_hand"  # reason
    SECOND_READING = "second_reading"  # name, x, y, conf, read_as, wins
    LEFT_OUT = "left_out"  # seen: ((name, x, y, conf), ...)
    DEDUCED = "deduced"  # name, x, y, conf, read_as
    GROUP_MADE_SET = "group_made_set"  # name, x, y, conf, read_as
    LIKELIEST_FACE = "likeliest_face"  # name, x, y, conf, read_as
    BACK_AS_FLOWER = "back_as_flower"  # name, x, y, conf, read_as
    NOT_SCORED = "not_scored"  # reason
    UNLIKE_SET = "unlike_set"  # at: ((x, y), ...) centres of boxes left out, not tiles of the reading


def _at(x: float, y: float) -> str:
    return f"({x:.0f}, {y:.0f})"


def _the(name: str, x: float, y: float, conf: float) -> str:
    return f"the {name} at {_at(x, y)} ({conf:.2f})"


def _names(names: Iterable[str]) -> str:
    return " ".join(names)


_Params = Mapping[str, Any]
_MESSAGES: dict[IssueCode, Callable[[_Params], str]] = {
    IssueCode.DUPLICATE_READING: lambda p: (
        f"two readings of one tile at {_at(p['x'], p['y'])}: kept {p['kept']} ({p['kept_conf']:.2f}) "
        f"over {p['dropped']} ({p['dropped_conf']:.2f})"
    ),
    IssueCode.LOW_CONFIDENCE: lambda p: f"low confidence ({p['conf']:.2f}) for the {p['name']} at {_at(p['x'], p['y'])}",
    IssueCode.NO_TILES: lambda p: "no tiles were found in the photo",
    IssueCode.ONLY_FLOWERS: lambda p: "only flowers and seasons were found: no hand",
    IssueCode.ROWS_TILTED: lambda p: (
        f"the rows run at {p['angle_deg']:.0f} degrees; the layout should be photographed square to its rows"
    ),
    IssueCode.ROWS_UPRIGHT: lambda p: "most tiles line up from top to bottom: turn the photo so that the rows run left to right",
    IssueCode.TOO_MANY_GROUPS: lambda p: f"the meld row shows {p['groups']} groups; a hand has at most 4 sets",
    IssueCode.TOO_MANY_COPIES: lambda p: f"{p['name']} is seen {p['seen']} times; a set has only {p['limit']} of it",
    IssueCode.BACK_IN_STANDING: lambda p: (
        f"a face-down tile ({p['name']} at {_at(p['x'], p['y'])}) lies in the standing hand; "
        "if it is a white dragon (P), correct it"
    ),
    IssueCode.STANDING_TOO_SHORT: lambda p: (
        "the standing row holds fewer than two tiles: no winning tile can be set apart"
    ),
    IssueCode.WIN_NOT_SET_APART: lambda p: (
        "could not tell the winning tile: no gap sets a tile apart at the right end of the standing row "
        f"(the last tile there is {p['name']} at {_at(p['x'], p['y'])}); pick the winning tile"
    ),
    IssueCode.WIDE_GAP_IN_SET: lambda p: f"a wide gap inside the set {p['shown']}; read as one set",
    IssueCode.SETS_TOUCH: lambda p: (
        f"the sets {p['shown']} and {p['after']} touch with no gap between them; read as two sets"
    ),
    IssueCode.UNUSUAL_CONCEALED_KONG: lambda p: (
        f"the concealed kong {p['shown']} does not show the usual two outer backs; "
        "check that it is not a pung with a stray tile"
    ),
    IssueCode.GROUP_BACK_NOT_KONG: lambda p: (
        f"the group {p['shown']} holds a face-down tile but is not a concealed kong of four"
    ),
    IssueCode.KONG_ONLY_BACKS: lambda p: "a concealed kong shows only backs: its tile cannot be read",
    IssueCode.KONG_FACES_DIFFER: lambda p: f"the concealed kong {p['shown']} shows different faces",
    IssueCode.KONG_TILE_MISSING: lambda p: (
        f"the group {p['shown']} holds a face-down tile: read as a concealed kong of {p['tile']} with a tile not "
        "found; check it"
    ),
    IssueCode.GROUP_NOT_SUIT_OR_HONOR: lambda p: f"the group {p['shown']} holds a tile that is not part of a set",
    IssueCode.GROUP_SIZE: lambda p: (
        f"the group {p['shown']} has {p['size']} tiles: a set has 3 (chow, pung) or 4 (kong)"
    ),
    IssueCode.GROUP_NOT_SET: lambda p: f"the group {p['shown']} is not a chow, pung or kong",
    IssueCode.STRAY_UNUSED: lambda p: (
        f"{len(p['names'])} tile(s) lie apart from the standing and meld rows and were not used: {_names(p['names'])}"
    ),
    IssueCode.STRAY_AS_FLOWERS: lambda p: (
        f"{len(p['names'])} tile(s) lying apart from the standing and meld rows, read as {_names(p['names'])}, "
        "were counted as flowers and seasons: a finished hand shows nothing else; correct any that is not a flower, "
        "and remove a die or a coin boxed as a tile"
    ),
    IssueCode.NO_WIN_TILE: lambda p: "no hand: the winning tile is not known",
    IssueCode.MELD_NOT_SET: lambda p: "no hand: a group in the meld row is not a set",
    IssueCode.STANDING_NOT_FACES: lambda p: (
        f"no hand: the standing row holds tiles that are not faces: {_names(p['names'])}"
    ),
    IssueCode.TILE_COUNT: lambda p: (
        f"the tile count does not make a hand: with {p['melds']} meld(s) the standing row should hold "
        f"{p['expected']} tiles plus the winning tile, but it holds {p['held']} plus the winning tile"
    ),
    IssueCode.TOO_MANY_FLOWERS: lambda p: f"{p['flowers']} flowers and seasons were read; a set has 8",
    IssueCode.INVALID_HAND: lambda p: f"no hand: {p['reason']}",
    IssueCode.SECOND_READING: lambda p: (
        f"read {_the(p['name'], p['x'], p['y'], p['conf'])} as {p['read_as']}, its second reading: "
        + ("so the tiles make a winning hand" if p["wins"] else "so the tiles make a hand, though not a winning one")
    ),
    IssueCode.LEFT_OUT: lambda p: (
        f"left out {', '.join(_the(*seen) for seen in p['seen'])} as a doubtful detection: "
        "without it the tiles make a complete hand"
    ),
    IssueCode.DEDUCED: lambda p: (
        f"read {_the(p['name'], p['x'], p['y'], p['conf'])} as {p['read_as']}: "
        "the only tile face there that makes the hand win; check it"
    ),
    IssueCode.GROUP_MADE_SET: lambda p: (
        f"read {_the(p['name'], p['x'], p['y'], p['conf'])} as {p['read_as']}: so its group in the meld row is a "
        "set, changing the tiles read with the least confidence; check it"
    ),
    IssueCode.LIKELIEST_FACE: lambda p: (
        f"read {_the(p['name'], p['x'], p['y'], p['conf'])} as {p['read_as']}: of the single changes that make "
        "the hand win, by far the likeliest; check it"
    ),
    IssueCode.BACK_AS_FLOWER: lambda p: (
        f"counted {_the(p['name'], p['x'], p['y'], p['conf'])} as {p['read_as']}: it lies apart from the rows, "
        "and its face reads as that flower of the calibrated set; correct it if it is a back"
    ),
    IssueCode.NOT_SCORED: lambda p: f"not scored: {p['reason']}",
    IssueCode.UNLIKE_SET: lambda p: (
        f"left out {len(p['at'])} box(es) the finder was unsure of that look like none of the calibrated set's "
        f"faces or like the table it was calibrated on, at {', '.join(_at(x, y) for x, y in p['at'])}: "
        "add any that is a tile"
    ),
}


@dataclass(frozen=True)
class ReaderIssue:
    """One thing the reader was unsure of: what kind (`code`), which tiles, and the values the sentence quotes.

    `tiles` are indices into the reading's detections; `params` hold plain values (str, int,
    float, bool and tuples of them), listed per code in `IssueCode`.
    """

    code: IssueCode
    tiles: tuple[int, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=True)

    def message(self) -> str:
        """The English sentence, as the reader has always written it."""
        return _MESSAGES[self.code](self.params)

    def __str__(self) -> str:
        return self.message()

    def with_tiles(self, tiles: Iterable[int]) -> ReaderIssue:
        return ReaderIssue(self.code, tuple(int(i) for i in tiles), self.params)


def issue(code: IssueCode, tiles: Iterable[int] = (), **params: Any) -> ReaderIssue:
    """A `ReaderIssue`, with its tile indices as plain ints."""
    return ReaderIssue(code, tuple(int(i) for i in tiles), params)


def messages(issues: Iterable[ReaderIssue]) -> list[str]:
    """The English sentences of issues, in order (the JSON form of `python -m vision read`)."""
    return [i.message() for i in issues]
