"""`python -m ledger`: a match kept from the command line, JSON out, clear errors without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from ledger.__main__ import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EAST_PUNG = "[EEE] [123p] 456p 789p 1s +1s"


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MCR_DATABASE_URL", raising=False)

    def run(*args: str, ok: bool = True):
        code = main(list(args))
        out, err = capsys.readouterr()
        assert (code == 0) == ok, (code, out, err)
        return json.loads(out) if ok and out.lstrip().startswith(("{", "[")) else (out if ok else err)

    return run


def test_a_match_from_the_command_line(cli, tmp_path):
    new = cli("new", "--players", "Ann", "Bob", "Cat", "Dan", "--table", "3", "--round", "1")
    assert new["match"] == 1 and new["next"]["dealer"] == "Ann" and new["next"]["seat_winds"]["Dan"] == "N"
    first = cli("add", "1", "--win", "Ann", "--discarder", "Cat", "--hand", EAST_PUNG)
    assert first["deal"]["total"] == 22 and first["points"] == {"Ann": 46, "Bob": -8, "Cat": -30, "Dan": -8}
    assert first["next"] == {"dealer": "Bob", "prevalent_wind": "E",
                             "seat_winds": {"Ann": "N", "Bob": "E", "Cat": "S", "Dan": "W"}}
    cli("add", "1", "--draw")
    third = cli("add", "1", "--win", "Bob", "--hand", EAST_PUNG + " self-drawn")  # Bob seat N: 21, 29 from each
    assert third["totals"] == {"Ann": 17, "Bob": 79, "Cat": -59, "Dan": -37}
    fourth = cli("add", "1", "--false-win", "Dan")
    assert fourth["totals"] == {"Ann": 27, "Bob": 89, "Cat": -49, "Dan": -67}
    edited = cli("add", "1", "--deal", "2", "--replace", "--win", "Cat", "--self-drawn", "--fan", "8")
    assert edited["totals"] == {"Ann": 11, "Bob": 73, "Cat": -1, "Dan": -83}  # 16 more to Cat from each
    shown = cli("show", "1")
    assert [d["result"] for d in shown["deals"]] == ["win", "win", "win", "false_win"]
    assert [s["player"] for s in shown["standings"]] == ["Bob", "Ann", "Cat", "Dan"]
    assert cli("undo", "1")["undone"]["result"] == "false_win"
    removed = cli("remove", "1", "--deal", "2")  # Cat's paper 8 never happened: Bob's win moves to deal 2
    assert removed["deals"] == 2 and removed["totals"] == {"Ann": 15, "Bob": 85, "Cat": -61, "Dan": -39}
    cli("add", "1", "--deal", "2", "--replace", "--win", "Cat", "--self-drawn", "--fan", "8")
    cli("add", "1", "--win", "Bob", "--hand", EAST_PUNG + " self-drawn")

    out = tmp_path / "m.json"
    cli("export", "1", "-o", str(out))
    imported = cli("import", str(out))
    assert imported["match"] == 2 and imported["totals"] == {"Ann": 1, "Bob": 63, "Cat": -11, "Dan": -53}
    csv_text = cli("export", "2", "--format", "csv")
    assert csv_text.splitlines()[2].startswith("2,E,Bob,win,Cat,,yes,8,,N,-16,30,")
    assert [m["match"] for m in cli("list")] == [1, 2]
    standings = cli("tournament")["players"]
    assert standings[0] == {"player": "Bob", "matches": 2, "table_points": 8.0, "points": 126}


@pytest.mark.parametrize(
    "args, message",
    [
        (("add", "1", "--win", "Ann", "--hand", EAST_PUNG), "say who discarded the winning tile"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--self-drawn", "--fan", "9"), "self-drawn win has no discarder"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat"), "needs --hand, --hand-json or --fan"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--hand", "[EEE] 1s +1s"), "the hand: "),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--fan", "6"), "under the 8-fan minimum"),
        (("add", "1", "--false-win", "Zed"), "no player 'Zed'"),
        (("add", "1", "--deal", "1", "--draw"), "deal 1 is already recorded"),
        (("add", "1", "--deal", "3", "--draw"), "cannot be recorded before deal 2"),
        (("add", "9", "--draw"), "no match 9"),
        (("import", "/no/such/file.json"), "cannot read /no/such/file.json"),
        (("new", "--players", "A", "A", "B", "C"), "different names"),
    ],
)
def test_bad_input_is_a_clear_error(cli, args, message):
    cli("new", "--players", "Ann", "Bob", "Cat", "Dan")
    cli("add", "1", "--draw")
    err = cli(*args, ok=False)
    assert err.startswith("error: ") and message in err
    assert len(cli("show", "1")["deals"]) == 1  # nothing lost, nothing added


def test_help_and_no_traceback_as_a_program(tmp_path):
    env = {**os.environ, "MCR_DATA": str(tmp_path)}
    env.pop("MCR_DATABASE_URL", None)
    helped = subprocess.run([sys.executable, "-m", "ledger", "add", "--help"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--false-win" in helped.stdout and "--self-drawn" in helped.stdout
    bad = subprocess.run([sys.executable, "-m", "ledger", "--database", "nosuch://", "list"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and bad.stderr.startswith("error: cannot use database") and "Traceback" not in bad.stderr
