"""`python -m ledger`: a match kept from the command line, JSON out, clear errors without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.__main__ import main

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
    fourth = cli("add", "1", "--false-win", "Dan")  # the usual penalty, and the table declared the deal void
    assert fourth["totals"] == {"Ann": 27, "Bob": 89, "Cat": -49, "Dan": -67} and fourth["deal"]["result"] == "void"
    assert fourth["penalties"] == [{"deal": 4, "player": "Dan", "points": 10, "reason": "false win (诈和)",
                                    "to_others": True, "false_win": True}]
    edited = cli("add", "1", "--deal", "2", "--replace", "--win", "Cat", "--self-drawn", "--fan", "8")
    assert edited["totals"] == {"Ann": 11, "Bob": 73, "Cat": -1, "Dan": -83}  # 16 more to Cat from each
    shown = cli("show", "1")
    assert [d["result"] for d in shown["deals"]] == ["win", "win", "win", "void"] and shown["revision"] == 6
    assert [s["player"] for s in shown["standings"]] == ["Bob", "Ann", "Cat", "Dan"]
    stale = cli("add", "1", "--draw", "--seen", "5", ok=False)
    assert "deal 2 was changed by another phone" in stale and "Cat's self-draw, 8" in stale
    assert "deal 3 is not the last deal (deal 4 is)" in cli("undo", "1", "--deal", "3", ok=False)
    assert cli("undo", "1", "--deal", "4")["undone"]["result"] == "void"
    assert cli("show", "1")["penalties"][0]["deal"] == 4  # the penalty stays: deal 4 is being played again
    removed = cli("remove", "1", "--deal", "2")  # Cat's paper 8 never happened: Bob's win moves to deal 2
    assert removed["deals"] == 2 and removed["totals"] == {"Ann": 25, "Bob": 95, "Cat": -51, "Dan": -69}
    cli("add", "1", "--deal", "2", "--replace", "--win", "Cat", "--self-drawn", "--fan", "8")
    cli("add", "1", "--win", "Bob", "--hand", EAST_PUNG + " self-drawn")

    out = tmp_path / "m.json"
    cli("export", "1", "-o", str(out))
    same = cli("import", str(out))  # the match's own export: recognised by its uid, nothing added
    assert same["match"] == 1 and not same["imported"] and "already imported as match 1" in same["note"]
    copy = tmp_path / "copy.json"  # the same deals as another table's match, without the uid
    copy.write_text(json.dumps({**json.loads(out.read_text()), "uid": None, "match": {"players": ["Ann", "Bob", "Cat", "Dan"], "table": "2"}}))
    imported = cli("import", str(copy))
    assert imported["match"] == 2 and imported["imported"] and imported["totals"] == {"Ann": 11, "Bob": 73, "Cat": -1, "Dan": -83}
    again = cli("import", str(copy))  # the same file twice: recognised, nothing added
    assert again["match"] == 2 and not again["imported"] and "already imported as match 2" in again["note"]
    csv_text = cli("export", "2", "--format", "csv")
    assert csv_text.startswith("\ufeffdeal,") and csv_text.splitlines()[2].startswith("2,E,Bob,win,Cat,,yes,8,,N,-16,30,")
    assert [m["match"] for m in cli("list")] == [1, 2]
    assert cli("tournament")["players"][0] == {"rank": 1, "player": "Ann", "matches": 0, "table_points": 0.0, "points": 0,
                                               "firsts": 0, "playing": 2}
    closed = cli("close", "1")
    assert closed["finished"] and closed["closed"]["reason"] == "time_limit" and closed["next_deal"] is None
    assert "the match is finished (closed at the time limit" in cli("add", "1", "--draw", ok=False)
    cli("close", "2")
    standings = cli("tournament")["players"]
    assert standings[0] == {"rank": 1, "player": "Bob", "matches": 2, "table_points": 8.0, "points": 146, "firsts": 2}
    assert cli("reopen", "1")["next_deal"] == 4


def test_a_three_round_tournament_of_eight_players(cli):
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
    made = cli("tournament", "new", "--name", "Club cup", "--seed", "7", "--rounds", "2", "--players", *names)
    assert made["tournament"] == 1 and made["players"] == names and made["rounds"] == 2
    assert cli("tournament", "rounds", "1", "3") == {"tournament": 1, "rounds": 3, "drawn": 0}
    expected: dict[str, list[float]] = {n: [0.0, 0, 0] for n in names}
    met: set[frozenset[str]] = set()
    repeated = 0
    for round_no in (1, 2, 3):
        drawn = cli("tournament", "round", "1", "--url", "http://192.168.1.5:8501")
        assert drawn["round"] == round_no and [t["table"] for t in drawn["tables"]] == [1, 2]
        seated = [p for t in drawn["tables"] for p in t["players"]]
        assert sorted(seated) == sorted(names)  # everyone plays once a round
        for table in drawn["tables"]:
            assert table["link"].startswith("http://192.168.1.5:8501/match?match=")
            players = table["players"]
            pairs = {frozenset((a, b)) for a in players for b in players if a < b}
            repeated += len(pairs & met)
            met |= pairs
            match = str(table["match"])
            # the dealer of deal 1 (East) self-draws 8 + the table's number of fan; deal 2 is a draw
            first = cli("add", match, "--win", players[0], "--self-drawn", "--fan", str(8 + table["table"]))
            cli("add", match, "--draw")
            if table["table"] == 2:  # a false win, the deal goes on and ends in a draw
                cli("penalty", match, "--false-win", players[3])
                cli("add", match, "--draw")
            shown = cli("close", match)  # the time limit
            assert shown["finished"] and first["points"][players[0]] == 3 * (16 + table["table"])
            for standing in shown["standings"]:
                expected[standing["player"]][0] += standing["table_points"]
                expected[standing["player"]][1] += standing["points"]
                expected[standing["player"]][2] += standing["rank"] == 1
        if round_no == 1:
            assert all(p["matches"] == 1 for p in cli("tournament", "standings", "1")["players"])
    assert repeated == 4 + 8  # two tables of four: 4 pairs meet again in round 2, 8 in round 3 (the fewest possible)
    standings = cli("tournament", "standings", "1")
    assert standings["rounds"] == 3 and len(standings["tables"]) == 6 and all(t["finished"] for t in standings["tables"])
    players = standings["players"]
    assert [p["matches"] for p in players] == [3] * 8 and standings["ranked_by"] == ["table_points", "points", "firsts"]
    assert [(p["player"], p["table_points"], p["points"], p["firsts"]) for p in players] == sorted(
        ((n, tp, pts, firsts) for n, (tp, pts, firsts) in expected.items()), key=lambda x: (-x[1], -x[2], -x[3], x[0]))
    assert players[0]["rank"] == 1 and not standings["final"]
    assert "all 3 rounds are drawn: end the tournament" in cli("tournament", "round", "1", ok=False)
    ended = cli("tournament", "end", "1")
    assert ended["ended_at"] and ended["players"] == players
    assert cli("tournament", "standings", "1")["final"]
    assert "has ended" in cli("tournament", "round", "1", ok=False) and "has ended" in cli("reopen", "1", ok=False)
    csv_text = cli("tournament", "standings", "1", "--format", "csv")
    rows = csv_text.lstrip("\ufeff").splitlines()
    assert rows[0] == "rank,player,matches,table_points,points,firsts,playing"
    assert rows[1] == f"1,{players[0]['player']},3,{players[0]['table_points']:g},{players[0]['points']},{players[0]['firsts']},0"


@pytest.mark.parametrize(
    "args, message",
    [
        (("add", "1", "--win", "Ann", "--hand", EAST_PUNG), "say who discarded the winning tile"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--self-drawn", "--fan", "9"), "self-drawn win has no discarder"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat"), "needs --hand, --hand-json or --fan"),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--hand", "[EEE] 1s +1s"), "the hand: "),
        (("add", "1", "--win", "Ann", "--discarder", "Cat", "--fan", "6"), "under the 8-fan minimum"),
        (("add", "1", "--false-win", "Zed"), "no player 'Zed'"),
        (("penalty", "1", "--player", "Ann", "--points", "1000000000000"), "a penalty must be a whole number from 1 to 1000"),
        (("add", "1", "--win", "Ann", "--self-drawn", "--fan", "99999999"), "more than any hand scores"),
        (("new", "--players", "A" * 101, "B", "C", "D"), "at most 100"),
        (("add", "1", "--draw", "--seen", "0"), "deal 1 was recorded by another phone"),
        (("tournament", "new", "--players", "A", "B", "C"), "register a multiple of 4 players (3 registered)"),
        (("tournament", "round", "5"), "no tournament 5"),
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


def test_no_deal_17_a_finished_match_says_it_is_finished(cli):
    cli("new", "--players", "Ann", "Bob", "Cat", "Dan")
    for _ in range(16):
        cli("add", "1", "--draw")
    assert "the match is finished (closed after all 16 deals" in cli("add", "1", "--draw", ok=False)
    cli("reopen", "1")
    refused = cli("add", "1", "--draw", ok=False)
    assert "the match is finished: all 16 deals are recorded" in refused and "1 to 16" not in refused
    cli("add", "1", "--deal", "7", "--replace", "--win", "Cat", "--self-drawn", "--fan", "8")
    closed = cli("close", "1")
    assert closed["closed"]["reason"] == "all_deals" and closed["totals"]["Cat"] == 48
