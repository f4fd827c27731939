"""One of each face, laid out in no order: the most likely assignment of distinct faces to tiles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.calibration_layout import one_of_each


@pytest.mark.parametrize("seed", range(20))
def test_matches_brute_force_on_small_photos(seed):
    rng = np.random.default_rng(seed)
    tiles, faces = int(rng.integers(1, 7)), 6
    scores = np.log(rng.dirichlet(np.ones(faces), size=tiles))
    got = one_of_each(scores)
    assert len(set(got)) == tiles
    best = max(itertools.permutations(range(faces), tiles), key=lambda p: sum(scores[t, f] for t, f in enumerate(p)))
    assert np.isclose(sum(scores[t, f] for t, f in enumerate(got)), sum(scores[t, f] for t, f in enumerate(best)))


def test_two_tiles_read_as_one_face_are_told_apart():
    # both read as 1m, the second less surely and with 4m next: one of each gives it 4m
    names = ["1m", "4m", "5m"]
    probs = np.array([[0.90, 0.05, 0.05], [0.60, 0.35, 0.05], [0.10, 0.10, 0.80]])
    assert [names[f] for f in one_of_each(np.log(probs))] == ["1m", "4m", "5m"]


def test_a_full_set_of_42_is_assigned_quickly_and_exactly():
    rng = np.random.default_rng(1)
    truth = rng.permutation(42)
    probs = rng.dirichlet(np.ones(42) * 0.3, size=42) * 0.5
    probs[np.arange(42), truth] += 0.5
    assert one_of_each(np.log(probs)) == truth.tolist()


def test_more_tiles_than_faces_is_refused():
    with pytest.raises(ValueError, match="3 tiles but only 2 faces"):
        one_of_each(np.zeros((3, 2)))
