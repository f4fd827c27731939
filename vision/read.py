"""Read a finished hand from a photo: detections -> layout -> hand -> score.

    python -m vision read IMAGE... [--self-drawn] [--seat-wind S] [--prevalent-wind W]
                                   [--last-tile] [--last-of-wall] [--kong-replacement]
                                   [--robbing-kong] [--model DIR]

prints one JSON object per image (`docs/spec/contracts.md`).  In Python:
`HandReader(detector).read(image_bgr, context)` with a model, or
`read_detections(dets, context)` without one (the app re-scores corrected tiles
through it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from scoring.hand import Hand, HandError, WinContext
from scoring.tiles import Tile

from .at_once import emit_lines
from .detections import Detections, Detector
from .issues import IssueCode, ReaderIssue, issue, messages
from .layout import Layout, merge_duplicates
from .repair import read_hand
from .settings import DEFAULT_SETTINGS, DetectorSettings, LayoutSettings, Settings
from .timing import DUPLICATES, LAYOUT, SCORE, stage

if TYPE_CHECKING:
    from scoring.scorer import ScoreResult


DEFAULT_CONTEXT = WinContext()  # claimed win, East seat and prevalent wind, no special flags


@dataclass(frozen=True)
class ReadResult:
    """One photo read: every tile with its group, the hand (or None), the issues and the score.

    The issues name tiles by their index in `tiles` (`ReaderIssue.tiles`).
    """

    tiles: tuple[dict[str, Any], ...]  # {"cls", "xyxy", "conf", "group"}; group None for an unplaced tile
    hand: Hand | None
    issues: tuple[ReaderIssue, ...]
    score: ScoreResult | None
    detections: Detections = field(repr=False, default_factory=Detections.empty)  # deduplicated
    layout: Layout | None = field(repr=False, default=None)

    def to_json(self, image: str) -> dict[str, Any]:
        """The `python -m vision read` line for this photo."""
        return {
            "image": image,
            "tiles": list(self.tiles),
            "hand": self.hand.to_json() if self.hand is not None else None,
            "issues": messages(self.issues),
            "score": self.score.to_json() if self.score is not None else None,
        }


def is_winning(hand: Hand) -> bool:
    """The scorer's win check, given to the repair search."""
    from scoring.scorer import is_winning as scorer_is_winning  # the scorer is large; load it when a hand is read

    return scorer_is_winning(hand)


def score_hand(hand: Hand) -> tuple[ScoreResult | None, list[ReaderIssue]]:
    """The score of a read hand, or None with the reason (a hand that is not a winning shape)."""
    from scoring.scorer import (
        score,  # the scorer is large; load it when a hand is scored
    )

    try:
        return score(hand), []
    except HandError as exc:  # NotWinningHand is a HandError
        return None, [issue(IssueCode.NOT_SCORED, reason=str(exc))]


def read_detections(
    dets: Detections,
    context: WinContext = DEFAULT_CONTEXT,
    settings: LayoutSettings = DEFAULT_SETTINGS.layout,
    with_score: bool = True,
) -> ReadResult:
    """Deduplicate, lay out, build the hand and score it.  `context.flowers` is replaced by the flowers read."""
    with stage(DUPLICATES):
        merged, issues = merge_duplicates(dets, settings)
    if len(left_out := cast(np.ndarray, dets.left_out)):
        centres = (left_out[:, :2] + left_out[:, 2:]) / 2
        issues.append(issue(IssueCode.UNLIKE_SET, at=tuple((round(float(x)), round(float(y))) for x, y in centres)))
    with stage(LAYOUT):
        reading = read_hand(merged, context, settings, is_winning)
    layout, hand = reading.layout, reading.hand
    issues += reading.issues
    result = None
    if hand is not None and with_score:
        with stage(SCORE):
            result, more = score_hand(hand)
        issues += more
    groups = layout.groups()
    as_read = reading.detections  # a doubtful tile may have been read as its second class
    tiles = tuple(
        {**tile, "group": groups.get(i)} for i, tile in enumerate(as_read.to_json())
    )
    return ReadResult(tiles, hand, tuple(issues), result, as_read, layout)


class HandReader:
    """A detector and the layout settings: photos in, `ReadResult`s out."""

    def __init__(self, detector: Detector, settings: Settings = DEFAULT_SETTINGS) -> None:
        self.detector = detector
        self.settings = settings

    def read(self, image_bgr: np.ndarray, context: WinContext = DEFAULT_CONTEXT) -> ReadResult:
        return read_detections(self.detector.detect(image_bgr), context, self.settings.layout)


# --- command line --------------------------------------------------------------------


def _wind(value: str) -> Tile:
    if value not in ("E", "S", "W", "N"):
        raise argparse.ArgumentTypeError(f"a wind is one of E S W N, not {value!r}")
    return Tile.parse(value)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m vision read",
        description="Read finished hands from photos laid out as in docs/spec/photo-layout.md; "
        "one JSON object per image: tiles with their groups, the hand, the issues and the score.",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo file(s)")
    p.add_argument("--self-drawn", action="store_true", help="the winning tile was drawn from the wall")
    p.add_argument("--seat-wind", type=_wind, default=Tile.parse("E"), metavar="{E,S,W,N}", help="seat wind (default E)")
    p.add_argument("--prevalent-wind", type=_wind, default=Tile.parse("E"), metavar="{E,S,W,N}",
                   help="prevalent wind (default E)")
    p.add_argument("--last-tile", action="store_true", help="the winning tile is the last of its kind")
    p.add_argument("--last-of-wall", action="store_true", help="won on the last tile of the wall")
    p.add_argument("--kong-replacement", action="store_true", help="won on a kong replacement tile")
    p.add_argument("--robbing-kong", action="store_true", help="won by robbing a kong")
    p.add_argument("--models", "--model", dest="model", type=Path, default=None,
                   help="models folder: its version in use is read (default: the repository's models/)")
    return p


def context_from_args(args: argparse.Namespace) -> WinContext:
    return WinContext(
        self_drawn=args.self_drawn,
        seat_wind=args.seat_wind,
        prevalent_wind=args.prevalent_wind,
        last_tile=args.last_tile,
        last_of_wall=args.last_of_wall,
        kong_replacement=args.kong_replacement,
        robbing_kong=args.robbing_kong,
    )


def load_detector(model_dir: Path | None, settings: DetectorSettings | None = None) -> Detector:
    """The model version in use (or the one in `model_dir`); raises with a clear message when it cannot load."""
    from .detector import TileDetector

    return TileDetector.load(model_dir) if settings is None else TileDetector.load(model_dir, settings)


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status 0 when every image was read, 1 when some could not be, 2 when the models cannot load."""
    args = build_parser().parse_args(argv)
    context = context_from_args(args)
    from .at_once import in_order, settings_for
    from .settings import DetectorSettings

    settings = settings_for(DetectorSettings(), len(args.images))
    try:
        from .registry import active_dir

        detector = load_detector(active_dir(args.model), settings)  # DIR's version in use
    except Exception as exc:
        print(f"error: cannot load the tile detector: {exc}", file=sys.stderr)
        return 2
    from .images import ImageError

    def read_one(image: str) -> dict[str, Any]:
        try:
            return read_detections(detect_file(detector, image), context).to_json(image)
        except ImageError as exc:
            return {"image": image, "error": str(exc)}
        except MemoryError:
            return {"image": image, "error": "out of memory while reading the image"}

    return emit_lines(in_order(read_one, args.images, settings.photos_at_once))


def detect_file(detector: Detector, path: str) -> Detections:
    """Detections of a photo file, in its original pixels (big photos are decoded reduced when the detector can)."""
    by_file = getattr(detector, "detect_file", None)
    if by_file is not None:
        dets, _size = by_file(path)
        return dets
    from .images import load_image

    return detector.detect(load_image(path))


if __name__ == "__main__":
    raise SystemExit(main())
