"""`python -m scoring`: --jsonl as in contracts.md, the human score sheet, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.hands import random_hands
from scoring.hand import Hand
from scoring.scorer import score

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scoring", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60, check=False)


def test_jsonl_scores_every_line_in_order_and_reports_bad_lines() -> None:
    hands = random_hands(42, 30)
    good = [json.dumps(h.to_json()) for h in hands]
    five_copies = hands[0].to_json() | {"hand": ["1m"] * 5 + ["2m"] * 8, "melds": [], "win_tile": "1m"}
    not_winning = hands[0].to_json() | {"melds": [], "hand": [*list("ESWNCFP"), "1m", "3m", "5m", "7m", "9m", "2p"],
                                        "win_tile": "4p"}
    bad = {
        3: "{not json",
        7: json.dumps({"melds": []}),
        11: json.dumps(five_copies),
        15: json.dumps(not_winning),
        19: "",
        23: "[1, 2]",
        27: json.dumps(hands[0].to_json() | {"win_tile": "X"}),
    }
    lines = [bad.get(i, good[i]) for i in range(len(good))]
    out = run("--jsonl", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(lines)
    for i, result in enumerate(results):
        if i in bad:
            assert set(result) == {"error"} and result["error"], (i, result)
        else:
            expected = score(hands[i]).to_json()
            assert result == expected
            assert {"total", "meets_minimum", "fans", "warnings"} <= set(result)
            assert result["total"] == sum(f["points"] * f["count"] for f in result["fans"])
    messages = {i: results[i]["error"] for i in bad}
    assert "JSON" in messages[3]
    assert "missing field" in messages[7]
    assert "1m appears 6 times" in messages[11]
    assert "win" in messages[15].lower()
    assert "JSON object" in messages[23]
    assert "unknown tile 'X'" in messages[27]


def test_jsonl_matches_the_contract_example_keys() -> None:
    hand = Hand.from_json({"melds": [], "hand": ["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m"],
                           "win_tile": "5m", "self_drawn": False, "flowers": 2, "seat_wind": "E", "prevalent_wind": "E"})
    out = run("--jsonl", stdin=json.dumps(hand.to_json()) + "\n")
    result = json.loads(out.stdout)
    assert result["meets_minimum"] is True
    fans = {f["id"]: f for f in result["fans"]}
    assert fans[4] == {"id": 4, "name_en": "Nine Gates", "name_zh": "九莲宝灯", "points": 88, "count": 1}
    assert fans[81]["count"] == 2 and fans[81]["points"] == 1
    assert result["total"] == score(hand).total


def test_human_score_sheet() -> None:
    out = run("[123m] 456789m11m55m +5m", "--self-drawn", "--seat-wind", "S", "--flowers", "1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    result = score(Hand.from_json({"melds": [{"kind": "chow", "tiles": ["1m", "2m", "3m"], "concealed": False}],
                                   "hand": ["4m", "5m", "6m", "7m", "8m", "9m", "1m", "1m", "5m", "5m"], "win_tile": "5m",
                                   "self_drawn": True, "flowers": 1, "seat_wind": "S", "prevalent_wind": "E"}))
    for fc in result.fans:
        assert fc.fan.name_zh in text and fc.fan.name_en in text
    assert "清一色 Full Flush" in text and "清龙 Pure Straight" in text
    total_line = next(line for line in text.splitlines() if line.startswith("Total "))
    assert total_line.split() == ["Total", str(result.total)]
    assert "meets the 8-fan minimum" in text
    paid = result.total + 8
    assert f"each other player pays 8 + {result.total} = {paid}" in text
    assert f"E -{paid} S +{3 * paid} W -{paid} N -{paid}" in text
    assert "excluded by" in text  # Full Flush excludes No Honors and One Voided Suit...


def test_human_discard_payments_and_minimum() -> None:
    out = run("[123m] [456p] [789s] [234s] 9p +9p")
    assert out.returncode == 0, out.stderr
    total = score(Hand.from_json(json.loads(run("[123m] [456p] [789s] [234s] 9p +9p", "--json").stdout)["hand"])).total
    assert f"the discarder pays 8 + {total} = {8 + total}, the other two pay 8 each" in out.stdout
    out = run("[123m] [456p] [789s] [234s] 9p +9p", "--discarder", "W")
    assert f"E +{24 + total} S -8 W -{8 + total} N -8" in out.stdout


def test_below_minimum_is_scored_and_said() -> None:
    out = run("[123m] [345p] 567s2sNNN +2s")
    assert out.returncode == 0
    assert "is BELOW the 8-fan minimum" in out.stdout


def test_contradictory_flags_are_warnings() -> None:
    out = run("123m456p789s11sEE +E", "--self-drawn", "--robbing-kong")
    assert out.returncode == 0, out.stderr
    assert "Warnings:" in out.stdout
    assert "抢杠和" not in out.stdout.split("Warnings:")[0].split("Not counted")[0]


def test_json_mode() -> None:
    out = run("19m19p19sESWNCFP +C", "--json", "--seat-wind", "N")
    data = json.loads(out.stdout)
    assert data["score"]["total"] == score(Hand.from_json(data["hand"])).total
    assert {f["id"] for f in data["score"]["fans"]} >= {7}
    assert data["payments"] == {"discarder": -(8 + data["score"]["total"]), "others": -8,
                                "winner": 24 + data["score"]["total"]}


def test_waits_mode() -> None:
    out = run("1112345678999m", "--waits")
    assert out.returncode == 0, out.stderr
    assert "Waits of 1112345678999m: 1m 2m 3m 4m 5m 6m 7m 8m 9m" in out.stdout
    data = json.loads(run("1112345678999m", "--waits", "--json").stdout)
    assert [w["tile"] for w in data["waits"]] == [f"{r}m" for r in range(1, 10)]
    assert "score" not in data


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["11111m23456789m +9m"], "1m appears 5 times"),
        (["123m456p789s11 +1s"], "digits"),
        (["123m456p789s1s +1s"], "must hold 13 tiles"),
        (["123m456p789s11X +1s"], "unknown tile character 'X'"),
        (["1357m2468p13579s +E"], "win"),
        (["123m456p789s11s"], "no winning tile"),
        ([], "give a hand"),
        (["123m456p789sEE45s +3s", "--discarder", "E"], "--discarder"),
        (["123m456p789sEE45s +3s", "--flowers", "9"], "--flowers: flowers must be a number 0 to 8"),
        (["--jsonl", "123m"], "give no notation"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(args: list[str], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("error: ") and message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_help() -> None:
    out = run("--help")
    assert out.returncode == 0 and "--jsonl" in out.stdout and "--waits" in out.stdout


def test_jsonl_on_the_scored_sample_gives_the_expected_totals_and_fans() -> None:
    sample = ROOT / "tests/data/scored-hands-sample.jsonl"
    if not sample.exists():
        pytest.skip("the 999-hand sample is not in tests/data")
    records = [json.loads(line) for line in sample.read_text().splitlines() if line.strip()]
    out = run("--jsonl", stdin="".join(json.dumps(r["hand"]) + "\n" for r in records))
    assert out.returncode == 0
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(records)
    wrong = [
        (i, r["expected_total"], got.get("total", got.get("error")))
        for i, (r, got) in enumerate(zip(records, results, strict=False))
        if got.get("total") != r["expected_total"]
        or sorted((f["id"], f["points"] * f["count"]) for f in got["fans"])
        != sorted((f["id"], f["points_total"]) for f in r["expected_fans"])
    ]
    assert wrong == []
