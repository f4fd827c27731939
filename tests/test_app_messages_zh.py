"""Every message the photo page can show is in Chinese too: each reader issue in player words (none
falls back to the reader's English sentence), and the program's own sentences inside a message,
made here by the real code (vision.images on bad photos, scoring on bad hands), translated by
appui.i18n.message_text."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from appui.draft import Draft, Target
from appui.i18n import message_text, t
from appui.photo import issue_text
from scoring import parse_hand
from scoring.hand import HandError, Meld, MeldKind
from scoring.tiles import Tile
from scoring.waits import waits
from vision.images import ImageError, decode_image
from vision.issues import IssueCode, issue
from vision.settings import DetectorSettings

SHOWN = "1m 2m 4m"
TILE_AT = {"name": "4m", "x": 120, "y": 340, "conf": 0.41, "read_as": "1m"}
ISSUE_EXAMPLES: dict[IssueCode, dict] = {
    IssueCode.DUPLICATE_READING: {"x": 10, "y": 20, "kept": "1p", "kept_conf": 0.9, "dropped": "2p", "dropped_conf": 0.5},
    IssueCode.LOW_CONFIDENCE: {"name": "4m", "x": 1, "y": 2, "conf": 0.4},
    IssueCode.NO_TILES: {},
    IssueCode.ONLY_FLOWERS: {},
    IssueCode.ROWS_TILTED: {"angle_deg": 12.3},
    IssueCode.ROWS_UPRIGHT: {},
    IssueCode.TOO_MANY_GROUPS: {"groups": 5},
    IssueCode.TOO_MANY_COPIES: {"name": "1p", "seen": 5, "limit": 4},
    IssueCode.BACK_IN_STANDING: {"name": "back", "x": 1, "y": 2},
    IssueCode.STANDING_TOO_SHORT: {},
    IssueCode.WIN_NOT_SET_APART: {"name": "9s", "x": 1, "y": 2},
    IssueCode.WIDE_GAP_IN_SET: {"shown": SHOWN},
    IssueCode.SETS_TOUCH: {"shown": SHOWN, "after": "E E E"},
    IssueCode.UNUSUAL_CONCEALED_KONG: {"shown": SHOWN},
    IssueCode.GROUP_BACK_NOT_KONG: {"shown": SHOWN},
    IssueCode.KONG_ONLY_BACKS: {},
    IssueCode.KONG_FACES_DIFFER: {"shown": SHOWN},
    IssueCode.KONG_TILE_MISSING: {"shown": SHOWN, "tile": "5p"},
    IssueCode.GROUP_NOT_SUIT_OR_HONOR: {"shown": SHOWN},
    IssueCode.GROUP_SIZE: {"shown": SHOWN, "size": 5},
    IssueCode.GROUP_NOT_SET: {"shown": SHOWN},
    IssueCode.STRAY_UNUSED: {"names": ("1m", "2m")},
    IssueCode.STRAY_AS_FLOWERS: {"names": ("f1",)},
    IssueCode.NO_WIN_TILE: {},
    IssueCode.MELD_NOT_SET: {},
    IssueCode.STANDING_NOT_FACES: {"names": ("back",)},
    IssueCode.TILE_COUNT: {"melds": 1, "expected": 10, "held": 9},
    IssueCode.TOO_MANY_FLOWERS: {"flowers": 9},
    IssueCode.INVALID_HAND: {"reason": "1p appears 5 times; a set has only 4 of each tile"},
    IssueCode.SECOND_READING: {**TILE_AT, "wins": True},
    IssueCode.LEFT_OUT: {"seen": (("1p", 1, 2, 0.4),)},
    IssueCode.DEDUCED: TILE_AT,
    IssueCode.GROUP_MADE_SET: TILE_AT,
    IssueCode.LIKELIEST_FACE: TILE_AT,
    IssueCode.BACK_AS_FLOWER: TILE_AT,
    IssueCode.NOT_SCORED: {"reason": "with 1 meld(s) the standing hand must hold 10 tiles plus the winning tile, but it holds 9"},
    IssueCode.UNLIKE_SET: {"at": ((10, 20),)},
}
ENGLISH_WORD = re.compile(r"(?<![A-Za-z])[A-Za-z]{3,}(?![A-Za-z])")
KEPT_WORDS = {"JPEG", "PNG", "HEIF", "WEBP", "BMP", "TIFF", "seat", "prevalent", "flowers", "self", "drawn"}  # formats, notation


def english_left(text: str) -> list[str]:
    """English words still in `text`, leaving out paths and the quoted text a player typed."""
    text = re.sub(r"/\S+|'[^']*'", "", text)
    return [w for w in ENGLISH_WORD.findall(text) if w not in KEPT_WORDS]


def test_every_issue_code_has_an_example():
    assert set(ISSUE_EXAMPLES) == set(IssueCode)


@pytest.mark.parametrize("code", list(IssueCode))
def test_every_reader_issue_is_said_in_both_languages(code):
    doubt = issue(code, **ISSUE_EXAMPLES[code])
    english, chinese = issue_text(doubt, "en"), issue_text(doubt, "zh")
    assert english != doubt.message(), "the reader's own sentence, not the player words"
    assert re.search(r"[\u4e00-\u9fff]", chinese) and not english_left(chinese), chinese


def test_the_copies_issue_of_the_report():
    doubt = issue(IssueCode.TOO_MANY_COPIES, name="1p", seen=5, limit=4)
    assert issue_text(doubt, "zh") == "一筒 出现 5 次, 但一副牌只有 4 张: 其中一张是别的牌。"
    assert "1 dot 一筒" in issue_text(doubt, "en") and "1p is seen" not in issue_text(doubt, "en")


def image_errors(tmp_path) -> list[str]:
    ok, jpeg = cv2.imencode(".jpg", np.full((64, 64, 3), 128, np.uint8))
    assert ok
    _, png = cv2.imencode(".png", np.zeros((40, 50, 3), np.uint8))
    sources: list[tuple[object, DetectorSettings]] = [
        (b"", DetectorSettings()),
        (b"a text file, not a photo", DetectorSettings()),
        (jpeg.tobytes()[:300], DetectorSettings()),  # cut off in the middle
        (png.tobytes(), DetectorSettings(max_pixels=100)),
        (png.tobytes(), DetectorSettings(max_full_decode_pixels=100)),
        (tmp_path / "missing.jpg", DetectorSettings()),
        (tmp_path, DetectorSettings()),
    ]
    big = tmp_path / "big.png"
    big.write_bytes(png.tobytes())
    sources.append((big, DetectorSettings(max_file_bytes=10)))
    said = []
    for source, settings in sources:
        with pytest.raises(ImageError) as error:
            decode_image(source, settings)  # type: ignore[arg-type]
        said.append(str(error.value))
    return said


def test_every_image_error_is_said_in_chinese(tmp_path):
    for english in image_errors(tmp_path):
        chinese = t("bad_image", "zh", msg=english)
        assert message_text(english, "zh") != english, english
        assert not english_left(chinese), (english, chinese)
        assert t("bad_image", "en", msg=english).endswith(english)  # English stays as it was


def hand_errors() -> list[str]:
    tries = [
        lambda: parse_hand("11111p 234m 567s 88s +9s").validate(),
        lambda: parse_hand("123m 456m 789m 11p 2p +2p").validate(),
        lambda: parse_hand("[123m] [456m] [789m] [123p] [456p] 1s +1s").validate(),
        lambda: Meld(MeldKind.CHOW, (Tile.parse("1m"), Tile.parse("2m"), Tile.parse("4m"))).validate(),
        lambda: Meld(MeldKind.PUNG, (Tile.parse("1m"), Tile.parse("1m"), Tile.parse("2m"))).validate(),
        lambda: Meld(MeldKind.CHOW, (Tile.parse("1m"), Tile.parse("2m"), Tile.parse("3m")), concealed=True).validate(),
        lambda: parse_hand("123m 456m 789m 11p 22p +2p flowers=9"),
        lambda: parse_hand("123m 456m 789m 11p 22p +2p seat=X"),
        lambda: parse_hand("123m 456m 789m 11p 22p 2p"),
        lambda: parse_hand("123m 45 6m 789m 11p 22p +2p"),
        lambda: parse_hand("123m 456m 789m 11p 22p +2p +3p"),
        lambda: parse_hand("[123m 456m 789m 11p 22p +2p"),
        lambda: parse_hand("123m 456m 789m 11p 22p +2p windy"),
        lambda: parse_hand("123m 456m 789x 11p 22p +2p"),
        lambda: waits([], [Tile.parse("1m")] * 5 + [Tile.parse("2m")] * 8),
        lambda: waits([], [Tile.parse("1m")] * 4),
    ]
    said = []
    for attempt in tries:
        with pytest.raises(HandError) as error:
            attempt()
        said.append(str(error.value))
    draft = Draft()
    for _ in range(4):
        draft = draft.add(Tile.parse("5m"), Target.STANDING)
    with pytest.raises(HandError) as error:
        draft.add(Tile.parse("5m"), Target.STANDING)
    said.append(str(error.value))
    return said


def test_every_hand_error_the_pages_show_is_said_in_chinese():
    said = hand_errors()
    assert len(set(said)) == len(said)  # each try made its own error
    for english in said:
        chinese = t("cannot_score", "zh", msg=english)
        assert message_text(english, "zh") != english, english
        assert not english_left(chinese), (english, chinese)
    doubt = issue(IssueCode.INVALID_HAND, reason=said[0])
    assert not english_left(issue_text(doubt, "zh"))


def test_an_unknown_sentence_stays_as_it_is():
    assert message_text("something new happened", "zh") == "something new happened"
    assert message_text("1p appears 5 times; a set has only 4 of each tile", "en").startswith("1p appears")
