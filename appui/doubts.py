"""The doubts that matter, for the photo page and the live page alike (no Streamlit).

A tile is unsure when the frames read it as different faces, when it was read with little confidence
(`DoubtSettings.unsure_conf`) or when a reader issue about its face names it (`FACE_ISSUES`).  It is in doubt only when a face it
may be (the frames' other readings, the classifier's runner-up, else any face that makes the hand
win) changes what the hand makes: the total in the hand's context, whether it wins, how far it is
from ready or what it waits on.  A flower's face never does (a flower counts as one whatever its
face), nor does a tile set aside.  `tile_doubts` lists them with what each face would give;
`fix_choices` gives the one-tap faces for a tile from its own group (flowers offer flowers);
`open_doubts` is the photo page's reckoning of the reader's issues with that same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scoring.hand import HandError, WinContext
from tileset.classes import FLOWER_NAMES, TILE_NAMES, is_flower
from tileset.groups import FLOWERS, HAND, MELD_GROUPS, UNPLACED, WIN
from vision.issues import IssueCode

from .correction import CorrectionError, Reading
from .live_analysis import analyse, meld_sets, reading_key
from .settings import DEFAULT_DOUBT_SETTINGS, DoubtSettings

DEFAULT_CONTEXT = WinContext()  # a claimed win, East seat and round: the total before "Won by" is answered
# the reader's issues about a tile's face (the others name tiles for the layout: a group that is no set, a gap)
FACE_ISSUES = frozenset({
    IssueCode.DUPLICATE_READING, IssueCode.LOW_CONFIDENCE, IssueCode.SECOND_READING, IssueCode.DEDUCED,
    IssueCode.GROUP_MADE_SET, IssueCode.LIKELIEST_FACE, IssueCode.BACK_AS_FLOWER,
})


def face_doubted(reading: Reading, issues: Sequence[Any]) -> tuple[int, ...]:
    """The tiles of `reading` that the reader's issues about faces name."""
    return tuple(sorted({i for issue in issues if getattr(issue, "code", None) in FACE_ISSUES
                         for i in reading.tiles_named_in(issue)}))


@dataclass(frozen=True)
class Outcome:
    """What a reading makes, as far as one tile's face can change it."""

    kind: str  # finished | ready | standing | empty | invalid (appui.live_analysis.LiveAnalysis.kind)
    total: int | None = None  # a finished hand's total in the context
    shanten: int | None = None
    waits: tuple[str, ...] = ()

    @property
    def wins(self) -> bool:
        return self.kind == "finished" and self.total is not None


@dataclass(frozen=True)
class Alternative:
    """Tile read otherwise: as `face`, the hand makes `outcome`."""

    face: str
    outcome: Outcome


@dataclass(frozen=True)
class TileDoubt:
    """A tile whose face matters and is not sure: what it was read as, what the frames read, and the faces
    it may be that change the hand (none known: `could_be` empty, the player is asked to check it)."""

    index: int  # in the reading
    read_as: str
    group: str
    now: Outcome
    could_be: tuple[Alternative, ...]
    votes: tuple[tuple[str, int], ...] = ()  # live page: each face the frames read, with how many read it

    @property
    def change(self) -> int | None:
        """By how much the total changes with the likeliest other face, when both are totals."""
        if not self.could_be or self.now.total is None or self.could_be[0].outcome.total is None:
            return None
        return self.could_be[0].outcome.total - self.now.total


def _tile_dicts(reading: Reading) -> tuple[dict[str, Any], ...]:
    return tuple({"cls": t.cls, "group": t.group, "xyxy": t.xyxy} for t in reading.tiles)


@lru_cache(maxsize=512)
def _outcome_of(key: tuple[tuple[str, str], ...], context: WinContext) -> Outcome:
    analysis = analyse(key, context)
    return Outcome(analysis.kind, analysis.score.total if analysis.score is not None else None, analysis.shanten,
                   tuple(w.wait.tile.name for w in analysis.waits))


def outcome(reading: Reading, context: WinContext) -> Outcome:
    """What the reading's tiles make in `context` (its flowers are the reading's own)."""
    return _outcome_of(reading_key(_tile_dicts(reading)), context)


def _may_matter(reading: Reading, index: int) -> bool:
    """A tile whose face can change the hand: a face-up tile of the standing row, the winning tile or a meld.
    Flowers (a flower counts whatever its face) and tiles set aside never do."""
    tile = reading.tiles[index]
    return tile.group in (HAND, WIN, *MELD_GROUPS) and not is_flower(tile.cls)


def unsure(reading: Reading, named: Iterable[int] = (), settings: DoubtSettings = DEFAULT_DOUBT_SETTINGS) -> list[int]:
    """The tiles not fixed by the player that the frames disagree on, that were read with little confidence,
    or that a reader issue names (`named`)."""
    named = set(named)
    return [
        i for i, t in enumerate(reading.tiles)
        if not t.edited and (len(t.votes) > 1 or t.conf < settings.unsure_conf or i in named)
    ]


def _faces_to_try(reading: Reading, index: int, context: WinContext) -> list[str]:
    """The faces tile `index` may be: those some frames read and the runner-up, else any that makes the hand win."""
    tile = reading.tiles[index]
    known = [f for f in dict.fromkeys(tile.alternatives) if f != tile.cls and f in TILE_NAMES]
    return known or list(other_winning_faces(reading, index, context))


def tile_doubts(reading: Reading, context: WinContext, named: Iterable[int] = (),
                settings: DoubtSettings = DEFAULT_DOUBT_SETTINGS) -> list[TileDoubt]:
    """The unsure tiles (`unsure`) whose face matters, in the reading's order, each with the faces it may be
    that change what the hand makes."""
    now = outcome(reading, context)
    found = (tile_doubt(reading, index, context, now, settings) for index in unsure(reading, named, settings))
    return [d for d in found if d is not None]


def tile_doubt(reading: Reading, index: int, context: WinContext, now: Outcome | None = None,
               settings: DoubtSettings = DEFAULT_DOUBT_SETTINGS) -> TileDoubt | None:
    """Tile `index` as a doubt, or None when no face it may be changes what the hand makes.

    A hand that wins as read confirms the tile unless another face wins too, with another total: a face
    that breaks the win is no doubt (the hand's shape says the reading is right).  A hand that does not
    win is in doubt about a face that changes whether it wins, how far it is from ready or its waits; with
    no face known to try it stays a doubt with none to offer (`could_be` empty).
    """
    if not _may_matter(reading, index):
        return None
    now = outcome(reading, context) if now is None else now
    tile = reading.tiles[index]
    faces = _faces_to_try(reading, index, context)
    changed = []
    for face in faces:
        other = outcome(reading.with_face(index, face), context)
        if other != now and (other.wins or not now.wins):
            changed.append(Alternative(face, other))
    if not changed and (faces or now.wins):
        return None
    return TileDoubt(index, tile.cls, _shown_group(reading, index, now), now, tuple(changed[:settings.faces_named]),
                     tile.votes)


def _shown_group(reading: Reading, index: int, now: Outcome) -> str:
    """Where the tile is, as the player sees it: tiles grouped apart that make no meld count as standing, and
    a tile set apart from a hand that is not finished is one of the standing row."""
    group = reading.tiles[index].group
    if group in MELD_GROUPS and group not in meld_sets(reading_key(_tile_dicts(reading))):
        return HAND
    return HAND if group == WIN and now.kind != "finished" else group


def other_winning_faces(reading: Reading, index: int, context: WinContext) -> Iterator[str]:
    """The faces, other than the one read, that make the hand win when tile `index` is read as them."""
    from vision.read import is_winning

    for face in TILE_NAMES:
        if face == reading.tiles[index].cls:
            continue
        try:
            if is_winning(reading.with_face(index, face).to_hand(context)):
                yield face
        except (HandError, CorrectionError):
            continue


def fix_choices(reading: Reading, index: int, context: WinContext, limit: int) -> list[str]:
    """The one-tap faces for tile `index`, from its own group: a flower (or any tile in the flowers row) is
    offered the flowers, the faces it may be first; a tile of the hand the faces it may be, then those that
    make the hand win; a tile set aside only the faces it may be."""
    tile = reading.tiles[index]
    if tile.group == FLOWERS or is_flower(tile.cls):
        pool: Sequence[str] = FLOWER_NAMES
        faces = [f for f in tile.alternatives if f in pool] + list(pool)
    else:
        faces = [f for f in tile.alternatives if f in TILE_NAMES]
        if tile.group != UNPLACED:
            faces += list(other_winning_faces(reading, index, context))
    return [f for f in dict.fromkeys(faces) if f != tile.cls][:limit]


def open_doubts(original: Reading, reading: Reading, issues: Sequence[Any], context: WinContext = DEFAULT_CONTEXT,
                settings: DoubtSettings = DEFAULT_DOUBT_SETTINGS) -> tuple[list[tuple[int, Any, list[int]]], list[Any]]:
    """(the reader's `issues` still in doubt as (number, issue, tiles it names in `reading`), the ones settled),
    for `reading` as the player has corrected `original` (the photo and the live page share it).

    An issue about tiles is settled once the player has corrected (or removed) each of them; one about their
    faces (`FACE_ISSUES`) also when none of its tiles is in doubt (`tile_doubt`: no face it may be changes
    the hand); an issue about the hand as a whole once the player has corrected anything.  Each issue is
    listed once (the same issue twice is one).
    """
    corrected = reading.edits > 0 or len(reading.tiles) != len(original.tiles)
    open_: list[tuple[int, Any, list[int]]] = []
    settled: list[Any] = []
    seen: set[Any] = set()
    for n, issue in enumerate(issues):
        if issue in seen:
            continue
        seen.add(issue)
        named = reading.tiles_named_in(issue) if getattr(issue, "tiles", ()) else []
        if getattr(issue, "tiles", ()):
            if not named or all(reading.tiles[i].edited for i in named):
                continue
            now = outcome(reading, context)
            if getattr(issue, "code", None) in FACE_ISSUES and all(
                    reading.tiles[i].edited or tile_doubt(reading, i, context, now, settings) is None for i in named):
                settled.append(issue)
                continue
        elif corrected:
            continue
        open_.append((n, issue, named))
    return open_, settled


def doubt_text(doubt: TileDoubt, language: str | None = None) -> str:
    """The doubt as a player reads it: which tile, where, what the frames read, and what each face it may be
    gives ("Check the 1 character 一万 (winning tile), read so in 3 of 5 frames: as 4 characters 四万 the
    total is 12 (-5).")."""
    from .i18n import t, tile_words

    frames = ""
    if len(doubt.votes) > 1:
        frames = t("doubt_frames", language, n=dict(doubt.votes).get(doubt.read_as, 0), m=sum(n for _, n in doubt.votes))
    where = t("doubt_group_meld", language) if doubt.group in MELD_GROUPS else t(f"group_{doubt.group}", language)
    tile = tile_words(doubt.read_as, language)
    if not doubt.could_be:
        return t("doubt_unknown", language, tile=tile, where=where, frames=frames)
    faces = "; ".join(_as_face(doubt.now, alternative, language) for alternative in doubt.could_be)
    return t("doubt_tile", language, tile=tile, where=where, frames=frames, faces=faces)


def _as_face(now: Outcome, alternative: Alternative, language: str | None) -> str:
    from .i18n import t, tile_words

    face, then = tile_words(alternative.face, language), alternative.outcome
    if then.wins and now.wins:
        return t("doubt_as_total", language, face=face, total=then.total, change=int(then.total or 0) - int(now.total or 0))
    if then.wins:
        return t("doubt_as_wins", language, face=face, total=then.total)
    if now.wins:
        return t("doubt_as_no_win", language, face=face)
    if then.kind == "ready" and then.waits:
        return t("doubt_as_waits", language, face=face, waits=" ".join(then.waits))
    if then.kind in ("standing", "ready") and then.shanten is not None:
        return t("doubt_as_shanten", language, face=face, n=then.shanten)
    return t("doubt_as_other", language, face=face)


def with_runner_ups(tiles: Sequence[dict[str, Any]], detections: Any) -> list[dict[str, Any]]:
    """The reader's tiles (`vision.read.ReadResult.tiles`) each with the classifier's runner-up, from the
    detections they were read from (`ReadResult.detections`, in the same order): the face a doubt tries."""
    from tileset.classes import CLASS_NAMES

    runner_ups = getattr(detections, "runner_up", None)
    if runner_ups is None or len(runner_ups) != len(tiles):
        return [dict(tile) for tile in tiles]
    return [{**tile, "runner_up": CLASS_NAMES[int(r)] if int(r) >= 0 else None} for tile, r in zip(tiles, runner_ups, strict=True)]
