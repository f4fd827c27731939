"""Adaptation decisions: tile matching, the held-back split, when to promote, when to retrain the finder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileset.labelfiles import Photo
from training.adapt import (
    AdaptError,
    ReadMetrics,
    decide,
    match_tiles,
    needs_detector,
    split_photos,
)
from vision.settings import AdaptSettings

SETTINGS = AdaptSettings()


def metrics(read: int, tiles: int = 100, found: int = 100) -> ReadMetrics:
    return ReadMetrics(photos=5, tiles=tiles, found=found, read=read, photos_exact=0)


@pytest.mark.parametrize(
    ("old", "new", "promote", "word"),
    [
        (80, 95, True, "better"),
        (95, 95, False, "not better"),
        (95, 80, False, "worse"),
        (0, 1, True, "better"),
    ],
)
def test_promotes_only_a_strictly_better_model(old: int, new: int, promote: bool, word: str) -> None:
    decision = decide(metrics(old), metrics(new), SETTINGS)
    assert decision.promote is promote
    assert word in decision.reason


def test_min_gain_is_respected() -> None:
    settings = AdaptSettings(min_gain=0.05)
    assert not decide(metrics(80), metrics(84), settings).promote
    assert decide(metrics(80), metrics(86), settings).promote


def test_match_tiles_is_one_to_one_and_checks_class() -> None:
    truth = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], np.float32)
    truth_cls = np.array([1, 2, 3])
    dets = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10], [80, 0, 90, 10]], np.float32)
    det_cls = np.array([1, 1, 9, 3])
    found, right, extra = match_tiles(truth, truth_cls, dets, det_cls, 0.5)
    assert (found, right, extra) == (2, 1, 2)  # duplicate box and far box are extra; wrong class is found, not read


def test_match_tiles_with_nothing() -> None:
    empty = np.zeros((0, 4), np.float32)
    assert match_tiles(empty, np.zeros(0), np.array([[0, 0, 1, 1]], np.float32), np.array([0]), 0.5) == (0, 0, 1)


def test_read_metrics_rates() -> None:
    m = ReadMetrics(photos=2, tiles=40, found=39, read=37, photos_exact=1)
    assert m.read_accuracy == pytest.approx(37 / 40)
    assert m.recall == pytest.approx(39 / 40)
    assert m.to_json()["read_accuracy"] == pytest.approx(0.925)


def photos(n: int) -> list[Photo]:
    return [Photo(Path(f"/x/images/p{i:02d}.jpg"), Path("/x/labels")) for i in range(n)]


def test_split_is_seeded_disjoint_and_never_empty() -> None:
    train, held = split_photos(photos(20), SETTINGS, seed=1)
    assert len(held) == 5 and len(train) == 15
    assert not {p.name for p in train} & {p.name for p in held}
    assert split_photos(photos(20), SETTINGS, seed=1) == (train, held)
    assert split_photos(photos(20), SETTINGS, seed=2) != (train, held)
    small_train, small_held = split_photos(photos(4), SETTINGS)
    assert len(small_held) == 1 and len(small_train) == 3


def test_too_few_photos_is_a_clear_error() -> None:
    with pytest.raises(AdaptError, match="label at least 4"):
        split_photos(photos(3), SETTINGS)


def test_detector_is_retrained_only_when_recall_is_poor() -> None:
    assert not needs_detector(0.995, SETTINGS)
    assert needs_detector(0.90, SETTINGS)
