"""The photo page's correctable reading: the tiles as read, edited by the user, and the hand they make.

A `Reading` is a frozen tuple of `ReadTile`s (class, box, confidence, group).  Every edit returns
a new `Reading`; `to_hand` builds the hand straight from the groups the user sees, so a tile moved
to another group stays there (re-running the layout on the boxes would undo that).  Each tile
remembers its index in the reader's result (`source`), so the reader's issues, which name tiles by
that index, still point at the right tiles after tiles are removed or added.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from scoring.hand import Hand, HandError, Meld, WinContext
from scoring.tiles import Tile
from tileset.classes import BACK, CLASS_ID, is_flower
from tileset.groups import FLOWERS, GROUPS, HAND, MELD_GROUPS, UNPLACED, WIN
from vision.issues import ReaderIssue
from vision.layout import build_hand, type_group


@dataclass(frozen=True)
class ReadTile:
    cls: str
    xyxy: tuple[float, float, float, float]
    conf: float
    group: str
    edited: bool = False
    source: int | None = None  # index in the reader's result; None for a tile the user added
    # the other faces it may be (the frames' other readings, the classifier's runner-up), likeliest first
    alternatives: tuple[str, ...] = ()
    votes: tuple[tuple[str, int], ...] = ()  # live page: each face the frames read, with how many read it

    @staticmethod
    def from_json(data: Mapping[str, Any], source: int | None = None) -> ReadTile:
        group = str(data.get("group") or UNPLACED)
        x1, y1, x2, y2 = (float(v) for v in data["xyxy"])
        runner_up = data.get("runner_up")
        alternatives = data.get("alternatives") or ([runner_up] if runner_up else [])
        return ReadTile(
            cls=str(data["cls"]),
            xyxy=(x1, y1, x2, y2),
            conf=float(data.get("conf", 1.0)),
            group=group if group in GROUPS else UNPLACED,
            source=source,
            alternatives=tuple(str(a) for a in alternatives if a in CLASS_ID),
            votes=tuple((str(face), int(n)) for face, n in data.get("votes") or ()),
        )


class CorrectionError(ValueError):
    """An edit that cannot be made (unknown class or group, no such tile)."""


@dataclass(frozen=True)
class Reading:
    tiles: tuple[ReadTile, ...]

    @staticmethod
    def from_tiles(tiles: Iterable[Mapping[str, Any]]) -> Reading:
        """The reader's tiles (`ReadResult.tiles`), each remembering its index there."""
        return Reading(tuple(ReadTile.from_json(t, source=i) for i, t in enumerate(tiles)))

    @property
    def edits(self) -> int:
        return sum(t.edited for t in self.tiles)

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self.tiles):
            raise CorrectionError(f"there is no tile #{index + 1}")

    def _put(self, index: int, tile: ReadTile) -> Reading:
        return Reading((*self.tiles[:index], tile, *self.tiles[index + 1:]))

    def with_face(self, index: int, cls: str) -> Reading:
        self._check(index)
        if cls not in CLASS_ID:
            raise CorrectionError(f"unknown tile {cls!r}")
        return self._put(index, replace(self.tiles[index], cls=cls, edited=True))

    def with_group(self, index: int, group: str) -> Reading:
        self._check(index)
        if group not in GROUPS:
            raise CorrectionError(f"unknown group {group!r}")
        if group == WIN:
            return self.with_win(index)
        return self._put(index, replace(self.tiles[index], group=group, edited=True))

    def with_win(self, index: int) -> Reading:
        """Make tile `index` the winning tile; a previous winning tile goes back to the standing hand."""
        self._check(index)
        tiles = [
            replace(t, group=HAND, edited=True) if t.group == WIN and i != index else t
            for i, t in enumerate(self.tiles)
        ]
        tiles[index] = replace(tiles[index], group=WIN, edited=True)
        return Reading(tuple(tiles))

    def without(self, index: int) -> Reading:
        self._check(index)
        return Reading(self.tiles[:index] + self.tiles[index + 1 :])

    def with_added(self, cls: str, group: str) -> Reading:
        """Add a tile the detector missed; its box is guessed just right of its group's last tile."""
        if cls not in CLASS_ID:
            raise CorrectionError(f"unknown tile {cls!r}")
        if group not in GROUPS:
            raise CorrectionError(f"unknown group {group!r}")
        if group == WIN:
            reading = Reading(tuple(replace(t, group=HAND, edited=True) if t.group == WIN else t for t in self.tiles))
        else:
            reading = self
        box = reading._guess_box(group)
        return Reading((*reading.tiles, ReadTile(cls, box, 1.0, group, edited=True)))

    def _guess_box(self, group: str) -> tuple[float, float, float, float]:
        same = [t.xyxy for t in self.tiles if t.group == group] or [t.xyxy for t in self.tiles if t.group == HAND]
        if not same:
            same = [t.xyxy for t in self.tiles] or [(0.0, 0.0, 40.0, 56.0)]
        x1, y1, x2, y2 = max(same, key=lambda b: b[2])
        width = x2 - x1
        return (x2 + 0.1 * width, y1, x2 + 1.1 * width, y2)

    def group_members(self) -> dict[str, list[int]]:
        """Group -> indices of its tiles, left to right, groups in GROUPS order (empty ones left out)."""
        members: dict[str, list[int]] = {}
        for group in GROUPS:
            idx = [i for i, t in enumerate(self.tiles) if t.group == group]
            if idx:
                members[group] = sorted(idx, key=lambda i: self.tiles[i].xyxy[0])
        return members

    def _melds(self, members: dict[str, list[int]]) -> tuple[Meld, ...]:
        """The set each meld group shows (flowers in it aside), or HandError naming the first that is none."""
        return tuple(
            _meld(n + 1, [self.tiles[i].cls for i in members[g] if not is_flower(self.tiles[i].cls)])
            for n, g in enumerate(g for g in MELD_GROUPS if g in members)
        )

    def melds_and_standing(self) -> tuple[tuple[Meld, ...], tuple[Tile, ...]]:
        """The melds, and every standing tile with the winning-tile group included (for waits)."""
        members = self.group_members()
        melds = self._melds(members)
        standing = [
            self.tiles[i].cls for g in (HAND, WIN) for i in members.get(g, []) if not is_flower(self.tiles[i].cls)
        ]
        if BACK in standing:
            raise HandError("a face-down tile lies in the standing hand: turn it over or remove it")
        return melds, tuple(Tile.parse(c) for c in standing)

    @property
    def flower_count(self) -> int:
        """Flower and season tiles wherever they lie but unplaced, and any face-up tile in the flowers group.

        The reader puts tiles lying apart from the hand's rows in the flowers group even when the
        classifier named them as other faces (an artwork it does not know); they count as placed.
        """
        return sum((is_flower(t.cls) and t.group != UNPLACED) or (t.group == FLOWERS and t.cls != BACK)
                   for t in self.tiles)

    def to_hand(self, context: WinContext) -> Hand:
        """The hand these groups make, or HandError naming the first problem (in player terms).

        `context.flowers` is replaced by `flower_count`.
        """
        members = self.group_members()
        melds = self._melds(members)
        standing = [self.tiles[i].cls for i in members.get(HAND, []) if not is_flower(self.tiles[i].cls)]
        wins = [self.tiles[i].cls for i in members.get(WIN, []) if not is_flower(self.tiles[i].cls)]
        if BACK in standing:
            raise HandError("a face-down tile lies in the standing hand: turn it over or remove it")
        if not wins:
            raise HandError("no winning tile: mark one tile as the winning tile")
        if len(wins) > 1:
            raise HandError(f"{len(wins)} tiles are marked as the winning tile; mark exactly one")
        if BACK in wins:
            raise HandError("the winning tile is face down")
        return build_hand(melds, standing, wins[0], self.flower_count, context)

    def tiles_named_in(self, issue: ReaderIssue) -> list[int]:
        """Indices (in this reading) of the tiles an issue names and that are still here, in the issue's order."""
        here = {t.source: i for i, t in enumerate(self.tiles) if t.source is not None}
        return [here[source] for source in dict.fromkeys(issue.tiles) if source in here]

    def yolo_lines(self, width: int, height: int) -> list[str]:
        """The tiles as YOLO label lines: class id and normalized centre and size, boxes clipped to the image."""
        return [line for line, _ in self.labeled(width, height)]

    def labeled(self, width: int, height: int) -> list[tuple[str, float]]:
        """(YOLO line, confidence) per tile inside the image; a tile the user touched counts as sure (1.0)."""
        out = []
        for t in self.tiles:
            x1, y1, x2, y2 = (max(0.0, min(v, lim)) for v, lim in zip(t.xyxy, (width, height, width, height), strict=False))
            if x2 <= x1 or y2 <= y1:
                continue
            cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
            line = f"{CLASS_ID[t.cls]} {cx:.6f} {cy:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"
            out.append((line, 1.0 if t.edited else t.conf))
        return out


def _meld(number: int, classes: list[str]) -> Meld:
    """The set meld group `number` (from 1) shows, typed as the reader types it, or HandError saying why not."""
    typed = type_group(tuple(classes))
    if isinstance(typed, ReaderIssue):
        raise HandError(f"meld {number}: {typed.message()}")
    return typed
