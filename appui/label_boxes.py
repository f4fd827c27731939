"""The Label page's boxes without the page: faces by code, Chinese or English name, box numbers in reading
order, what a click or drag on the shown photo picks or draws, and the photo drawn with its numbered boxes.
"""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

from tileset.classes import CLASS_NAMES, NAMES_ZH
from tileset.labelfiles import LabelFileError, PhotoLabels

DRAG_MIN_PX = 6  # a press and release closer than this (screen pixels) is a click, not a drag
LOW_CONFIDENCE = 0.5  # boxes below this are drawn in red: look at them first

SUIT_WORDS = {"m": "characters wan", "p": "dots circles pin", "s": "bamboo sou"}
NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
NAMES_EN = {
    **{f"{r}{s}": f"{NUMBER_WORDS[r - 1]} of {SUIT_WORDS[s]}" for s in "mps" for r in range(1, 10)},
    "E": "east wind", "S": "south wind", "W": "west wind", "N": "north wind",
    "C": "red dragon", "F": "green dragon", "P": "white dragon",
    "f1": "plum flower", "f2": "orchid flower", "f3": "chrysanthemum flower", "f4": "bamboo flower",
    "s1": "spring season", "s2": "summer season", "s3": "autumn season", "s4": "winter season",
    "back": "tile back",
}

CHECKED_COLOUR = (60, 180, 75)  # BGR; green only for what a person checked: a fixed box or a reviewed photo
UNCHECKED_COLOUR = (230, 150, 40)  # the model's reading, not yet checked (a sure box can still be wrong)
UNSURE_COLOUR = (40, 40, 230)
SELECTED_COLOUR = (0, 200, 255)


def class_label(class_id: int) -> str:
    """Code, Chinese and English name: the face picker finds a face by any of them ("summer", "夏", "s2")."""
    name = CLASS_NAMES[class_id]
    return f"{name} {NAMES_ZH[name]} {NAMES_EN[name]}"


def parse_faces(text: str) -> list[int]:
    """Class ids of a row of faces typed as codes, Chinese names or English words, e.g. "f1 f2 s3",
    "梅兰菊竹", "spring summer"; LabelFileError naming what is not a face."""
    by_word = {name.lower(): i for i, name in enumerate(CLASS_NAMES)}
    by_word |= {NAMES_ZH[name]: i for i, name in enumerate(CLASS_NAMES)}
    by_word |= {NAMES_EN[name].split()[0]: i for i, name in enumerate(CLASS_NAMES)
                if not name[0].isdigit() and name not in ("f4",)}  # "bamboo" is a suit; the flower is f4
    faces = []
    for word in text.replace(",", " ").split():
        word = word.lower()
        if word in by_word:
            faces.append(by_word[word])
        elif all(ch in by_word for ch in word):  # Chinese names written together: 梅兰菊竹
            faces.extend(by_word[ch] for ch in word)
        else:
            raise LabelFileError(f"{word!r} is not a face: use codes (1m, E, f1, s2), Chinese (梅, 春) or "
                                 "English (plum, spring, east)")
    return faces


def box_numbers(labels: PhotoLabels) -> dict[int, int]:
    """Box index -> the number shown for it: 1, 2, ... in reading order when pre-labeled, kept across
    edits (a deleted box's number is not reused; an added box gets the next free one)."""
    return dict(enumerate(labels.ids()))


def box_at(labels: PhotoLabels, x: float, y: float, width: int, height: int) -> int | None:
    """The box under the point (pixels of the photo): the smallest one holding it, or None."""
    holding = [(box.w * box.h, index) for index, box in enumerate(labels.boxes)
               if (c := box.xyxy(width, height))[0] <= x <= c[2] and c[1] <= y <= c[3]]
    return min(holding)[1] if holding else None


def boxes_inside(labels: PhotoLabels, corners: tuple[float, float, float, float], width: int,
                 height: int) -> list[int]:
    """The boxes whose centre lies inside the rectangle (pixels of the photo)."""
    x1, y1, x2, y2 = corners
    return [i for i, box in enumerate(labels.boxes)
            if x1 <= box.cx * width <= x2 and y1 <= box.cy * height <= y2]


# ("pick", box index) or ("draw", (left, top, right, bottom) in photo pixels)
CanvasAction = tuple[Literal["pick"], int] | tuple[Literal["draw"], tuple[float, float, float, float]]


def canvas_action(labels: PhotoLabels, value: object, width: int, height: int) -> CanvasAction | None:
    """What a click or drag on the shown photo means: ("pick", box index), ("draw", corners in photo
    pixels) or None.  `value` is streamlit-image-coordinates' answer, in screen pixels of the photo
    as shown (`value["width"]` wide)."""
    if not isinstance(value, dict) or not value.get("width"):
        return None
    try:
        scale = width / float(value["width"])
        if "x1" in value:
            x1, y1, x2, y2 = (float(value[k]) for k in ("x1", "y1", "x2", "y2"))
        else:
            x1 = x2 = float(value["x"])
            y1 = y2 = float(value["y"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    if abs(x2 - x1) < DRAG_MIN_PX and abs(y2 - y1) < DRAG_MIN_PX:
        index = box_at(labels, x1 * scale, y1 * scale, width, height)
        return None if index is None else ("pick", index)
    left, right = sorted((min(max(x1 * scale, 0.0), width), min(max(x2 * scale, 0.0), width)))
    top, bottom = sorted((min(max(y1 * scale, 0.0), height), min(max(y2 * scale, 0.0), height)))
    if right - left < 1 or bottom - top < 1:
        return None
    return ("draw", (left, top, right, bottom))


def draw_boxes(image_bgr: np.ndarray, labels: PhotoLabels, selected: list[int] | int | None) -> np.ndarray:
    """The photo with every box numbered in reading order (`selected`: box numbers): picked orange, checked by a person green, unsure
    red, the model's other readings blue (not green: a sure reading can still be wrong).

    Only the number is written on the photo (the face is in the list beside it), inside the box's top
    edge, so labels of a dense row do not overlap.
    """
    picked = set(selected if isinstance(selected, list) else [] if selected is None else [selected])
    canvas = image_bgr.copy()
    height, width = canvas.shape[:2]
    thickness = max(1, round(max(width, height) / 600))
    numbers = box_numbers(labels)
    for index, (box, conf) in enumerate(zip(labels.boxes, labels.confidences(), strict=False)):
        x1, y1, x2, y2 = (round(v) for v in box.xyxy(width, height))
        colour = (SELECTED_COLOUR if numbers[index] in picked else CHECKED_COLOUR if labels.meta.reviewed or conf >= 1.0
                  else UNSURE_COLOUR if conf < LOW_CONFIDENCE else UNCHECKED_COLOUR)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness * (2 if numbers[index] in picked else 1))
        scale = max(0.3, min(0.5 * thickness, (x2 - x1) / 40))
        cv2.putText(canvas, str(numbers[index]), (x1 + thickness + 1, y1 + round(22 * scale) + thickness),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)
    return canvas
