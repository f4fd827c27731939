"""Streamlit AppTest of the Match page: start, score deals, restart, two sessions, the manual scorer round trip."""

from __future__ import annotations

import pytest
import streamlit as st
from app_support import APP, TIMEOUT, ok, shown, shown_label
from match_support import EAST_PUNG, open_page, start_match
from streamlit.testing.v1 import AppTest

from ledger.match import Match, win
from ledger.store import LedgerStore

pytestmark = pytest.mark.usefixtures("fresh_ledger")


def add_win(at: AppTest, winner: str, notation: str, discarder: str | None) -> AppTest:
    at.selectbox(key="match.winner").select(winner).run()
    at.button_group(key="match.won_by").set_value("discard" if discarder else "self_drawn").run()
    if discarder:
        at.selectbox(key="match.discarder").select(discarder).run()
    at.text_input(key="match.notation").input(notation).run()
    return ok(at.button(key="match.add_win").click().run())


def false_win_by(at: AppTest, offender: str, then: str) -> AppTest:
    at.selectbox(key="match.offender").select(offender).run()
    at.button_group(key="match.fw_then").set_value(then).run()
    return ok(at.button(key="match.false_win").click().run())


def totals(at: AppTest) -> dict[str, int]:
    return {row["Player"]: row["Total"] for row in at.dataframe[0].value.to_dict("records")}


def header(at: AppTest) -> str:
    return at.subheader[0].value


def test_a_match_scored_deal_by_deal_with_totals_chart_and_standings():
    at = start_match(open_page())
    assert header(at) == "Deal 1 of 16 · E 东 round · dealer Ann"
    assert [row["Seat wind"] for row in at.dataframe[0].value.to_dict("records")] == ["E 东", "S 南", "W 西", "N 北"]
    at = add_win(at, "Ann", EAST_PUNG, "Cat")  # Ann dealer, East pung is her seat and the round's wind: 22
    assert totals(at) == {"Ann": 46, "Bob": -8, "Cat": -30, "Dan": -8}
    assert header(at) == "Deal 2 of 16 · E 东 round · dealer Bob"
    ok(at.button(key="match.draw").click().run())
    at = add_win(at, "Bob", EAST_PUNG, None)  # Bob seat N in deal 3: 21 self-drawn, 29 from each
    false_win_by(at, "Dan", then="void")
    assert totals(at) == {"Ann": 27, "Bob": 89, "Cat": -49, "Dan": -67}
    deals = at.dataframe[1].value.to_dict("records")
    assert [d["Result"] for d in deals] == ["win Ann ← Cat", "draw", "win Bob (Self-drawn)", "declared void"]
    assert [d["Fan"] for d in deals] == ["22", "", "21", ""]  # no "None" in the sheet
    assert deals[3]["Penalties"] == "Dan: false win (诈和), 10 to each other player"
    assert deals[3]["Seats"] == "S W N E" and deals[3]["Dan"] == -30 and deals[3]["Dan Σ"] == -67
    assert len(at.get("vega_lite_chart")) == 1
    standings = at.dataframe[2].value.to_dict("records")
    assert [(s["Player"], s["Table points"]) for s in standings] == [("Bob", 4), ("Ann", 2), ("Cat", 1), ("Dan", 0)]
    assert [b.label for b in at.get("download_button")] == ["Download CSV", "Download JSON"]
    # the app restarted (new process state: caches cleared, a fresh session) shows the same ledger
    st.cache_resource.clear()
    again = open_page()
    assert header(again) == "Deal 5 of 16 · S 南 round · dealer Bob"  # South round: Ann and Bob swapped places
    assert totals(again) == {"Ann": 27, "Bob": 89, "Cat": -49, "Dan": -67}
    # undo the last deal (named, and asked first): its false win stays with deal 4, now being played again
    assert shown_label(again.button(key="match.undo")) == "Undo deal 4: declared void"
    ok(again.button(key="match.undo").click().run())
    assert any("Undo deal 4 (declared void)?" in shown(w) for w in again.warning)
    ok(again.button(key="match.undo_no").click().run())
    assert header(again) == "Deal 5 of 16 · S 南 round · dealer Bob"
    ok(again.button(key="match.undo").click().run())
    ok(again.button(key="match.undo_yes").click().run())
    assert header(again) == "Deal 4 of 16 · E 东 round · dealer Dan"
    assert shown_label(again.button(key="match.redo")) == "Redo deal 4: declared void"  # undone by mistake?
    ok(again.button(key="match.redo").click().run())
    assert header(again) == "Deal 5 of 16 · S 南 round · dealer Bob" and not [b for b in again.button if b.key == "match.redo"]
    ok(again.button(key="match.undo").click().run())
    ok(again.button(key="match.undo_yes").click().run())
    assert totals(again) == {"Ann": 27, "Bob": 89, "Cat": -49, "Dan": -67}  # the penalty is pending in deal 4
    (entry,) = [b for b in again.button if shown_label(b).startswith("Take back: Dan")]
    ok(entry.click().run())
    assert totals(again) == {"Ann": 17, "Bob": 79, "Cat": -59, "Dan": -37}
    # edit deal 2 (a draw) into a false win by Bob, the deal void: the totals after it follow
    again.selectbox(key="match.deal_no").select(2).run()
    assert any("Deal 2 is recorded" in i.value for i in again.info)
    false_win_by(again, "Bob", then="void")
    assert totals(again) == {"Ann": 27, "Bob": 49, "Cat": -49, "Dan": -27}
    # deal 2 recorded by mistake: taken out, Bob's self-drawn win moves up to deal 2, where he deals: 23
    again.selectbox(key="match.deal_no").select(2).run()
    ok(again.button(key="match.remove").click().run())
    assert header(again) == "Deal 3 of 16 · E 东 round · dealer Cat"
    assert totals(again) == {"Ann": 15, "Bob": 85, "Cat": -61, "Dan": -39}


def test_two_sessions_share_the_match_and_lose_nothing():
    first = start_match(open_page())
    second = open_page()
    assert header(second) == "Deal 1 of 16 · E 东 round · dealer Ann"
    ok(first.button(key="match.draw").click().run())
    # the second session still shows deal 1: its click is refused naming what changed, nothing is overwritten
    second.button(key="match.draw").click().run()
    (refused,) = [shown(e) for e in second.error]
    assert refused.startswith("Not recorded: deal 1 was recorded by another phone at ") and refused.count(": a draw.") == 1
    assert header(second) == "Deal 2 of 16 · E 东 round · dealer Bob"
    false_win_by(second, "Cat", then="void")
    # the first session has not seen that: a rerun (typing, say) tells it, and its record is refused
    first.run()
    assert any("Changed on another phone: a penalty in deal 2" in shown(w) for w in first.warning)
    assert totals(first) == {"Ann": 10, "Bob": 10, "Cat": -30, "Dan": 10}
    first.button(key="match.draw").click().run()
    assert any("deal 2 was recorded by another phone" in e.value and "declared void" in shown(e) for e in first.error)
    # undo from the stale first session is refused too; once told, its undo of deal 2 goes through
    second.button(key="match.draw").click().run()  # deal 3
    ok(first.button(key="match.undo").click().run())
    assert any("Undo deal 2 (declared void)?" in shown(w) for w in first.warning)  # what its page showed
    first.button(key="match.undo_yes").click().run()
    assert any("deal 3 was recorded by another phone at" in shown(e) for e in first.error)
    with LedgerStore() as store:
        assert [d.result.value for d in store.deals(1)] == ["draw", "void", "draw"]
    assert shown_label(first.button(key="match.undo")) == "Undo deal 3: a draw"


def test_a_finished_match_is_locked_until_reopened_and_a_time_limit_ends_it():
    at = start_match(open_page())
    ok(at.button(key="match.draw").click().run())
    other = open_page()
    ok(at.button(key="match.close").click().run())
    assert any("End the match after 1 deals?" in shown(w) for w in at.warning)
    ok(at.button(key="match.close_yes").click().run())
    assert any("The match is over (time limit" in shown(s) for s in at.success)
    assert not [b for b in at.button if b.key == "match.draw"]  # nothing to record on a finished match
    other.button(key="match.draw").click().run()  # a phone that still shows the open match
    assert any("the match was ended by another phone" in shown(e) for e in other.error)
    other.button(key="match.draw").click().run() if [b for b in other.button if b.key == "match.draw"] else None
    with LedgerStore() as store:
        assert len(store.deals(1)) == 1 and store.ledger(1).finished
    ok(at.button(key="match.reopen").click().run())
    ok(at.button(key="match.reopen_yes").click().run())
    assert header(at) == "Deal 2 of 16 · E 东 round · dealer Bob"


def test_names_are_shown_as_plain_text():
    at = start_match(open_page(), names=("[link](https://example.com)", "**Bob**", "Cat", "Dan"))
    assert header(at) == "Deal 1 of 16 · E 东 round · dealer \\[link\\]\\(https\\://example\\.com\\)"
    from appui.match import plain

    assert plain("[x](y) *z*") == "\\[x\\]\\(y\\) \\*z\\*"


def test_a_table_link_opens_its_own_match():
    with LedgerStore() as store:
        first = store.create_match(Match(("Ann", "Bob", "Cat", "Dan"), table="1"))
        store.create_match(Match(("Eve", "Fay", "Gus", "Hal"), table="2"))
        uid = store.ledger(first).uid
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.query_params["match"] = uid
    at.switch_page("appui/pages/match.py").run()
    ok(at)
    assert header(at) == "Deal 1 of 16 · E 东 round · dealer Ann"  # not the newest match
    at.selectbox(key="match.id").select(2).run()
    assert header(at) == "Deal 1 of 16 · E 东 round · dealer Eve" and at.query_params["match"] != [uid]


def test_the_organiser_runs_a_three_round_tournament_of_eight():
    at = open_page()
    at.button_group(key="match.view").set_value("organiser").run()
    assert [i.value for i in at.info] == ["No tournament yet: register its players below."]
    at.text_input(key="match.t_name").input("Club cup")
    at.text_area(key="match.t_players").input("\n".join(f"P{i}" for i in range(8)))
    at.number_input(key="match.t_rounds_new").set_value(3)
    (register,) = [b for b in at.button if b.label == "Register"]
    register.click().run()
    assert [shown(s) for s in at.success] == ["Club cup: 8 players registered. Draw the first round below."]
    assert any(c.value == "0 of 3 rounds drawn." for c in at.caption)
    expected: dict[str, list[float]] = {f"P{i}": [0.0, 0] for i in range(8)}
    for round_no in (1, 2, 3):
        ok(at.button(key="match.t_draw").click().run())
        assert next(s.value for s in at.subheader if s.value.startswith("Round")) == f"Round {round_no}"
        assert at.button(key="match.t_draw").disabled  # round 1's tables are playing
        assert any(c.value == f"Round {round_no} is still being played at table(s) 1, 2: finish or end those matches first."
                   for c in at.caption)
        with LedgerStore() as store:
            tables = [s for s in store.list_matches(1) if s.round_no == round_no]
            links = [c.value for c in at.code if "/match?match=" in c.value]
            assert all(any(link.endswith(f"/match?match={s.uid}") for link in links) for s in tables)
            for s in tables:  # each table: the first deal's dealer self-draws; table 2 ends here, table 1 on the organiser's screen
                store.add_deal(s.id, win(s.match, 1, s.match.dealer(1), total=8 + s.table_no), seen=0)
            store.close_match(tables[1].id, seen=1)
        at.run()
        assert any(c.value == "playing · 1/16 deals" for c in at.caption)
        assert any(c.value == "finished at the time limit · 1 deal" for c in at.caption)
        playing = at.dataframe[0].value.to_dict("records")
        assert sum(p["Playing"] for p in playing) == 4  # table 1 still playing: its points are provisional
        ok(at.button(key=f"match.t_end_table_{tables[0].id}").click().run())
        assert any("End table 1's match at the time limit, after 1 deal?" in shown(w) for w in at.warning)
        ok(at.button(key=f"match.t_end_table_{tables[0].id}_yes").click().run())
        with LedgerStore() as store:
            for s in tables:
                for standing in store.ledger(s.id).standings():
                    expected[standing.player][0] += standing.table_points
                    expected[standing.player][1] += standing.points
    assert len(at.get("image")) == 6  # a QR code per table and round
    assert at.button(key="match.t_draw").disabled
    assert any(c.value.startswith("All 3 rounds are drawn: end the tournament") for c in at.caption)
    players = at.dataframe[0].value.to_dict("records")
    assert [(p["Player"], p["Table points"], p["Points"]) for p in players] == sorted(
        ((n, tp, pts) for n, (tp, pts) in expected.items()), key=lambda x: (-x[1], -x[2], x[0]))
    assert [p["Matches"] for p in players] == [3] * 8
    ranks = [p["Rank"] for p in players]
    keys = [(p["Table points"], p["Points"], p["First places"]) for p in players]
    assert ranks == [1 + sum(k > mine for k in keys) for mine in keys]  # equal players share a place
    assert any(c.value.startswith("Ranked by table points (4-2-1-0 at each table), then points, then first places")
               for c in at.caption)
    ok(at.button(key="match.t_end_1").click().run())
    ok(at.button(key="match.t_end_1_yes").click().run())
    assert any(shown(s).startswith("The tournament ended at ") for s in at.success)
    assert any(s.value == "Final standings" for s in at.subheader)
    assert not [b for b in at.button if b.key == "match.t_draw"]
    with LedgerStore() as store:
        assert store.tournament(1).ended


def test_a_tie_is_ranked_as_a_shared_place_on_the_organiser_screen():
    with LedgerStore() as store:
        tid = store.create_tournament("cup", [f"P{i}" for i in range(8)], seed=1, rounds=1)
        store.start_round(tid)
        for s in store.list_matches(tid):
            store.close_match(s.id, seen=0)  # no deal played: all eight equal
    at = open_page()
    at.button_group(key="match.view").set_value("organiser").run()
    players = ok(at).dataframe[0].value.to_dict("records")
    assert [p["Rank"] for p in players] == [1] * 8 and [p["Table points"] for p in players] == [1.75] * 8


def test_the_organiser_standings_download_as_csv_and_a_page_to_print():
    from appui.match_exchange import standings_html
    from ledger.exchange import standings_csv
    from ledger.tournament import tournament

    with LedgerStore() as store:
        tid = store.create_tournament("<Club> cup", [f"P{i}" for i in range(8)], seed=1, rounds=1)
        store.start_round(tid)
        for s in store.list_matches(tid):
            store.add_deal(s.id, win(s.match, 1, s.match.players[2], total=8), seen=0)
            store.close_match(s.id, seen=1)
        view = tournament(store.ledgers(tid), store.tournament(tid).players)
    page = standings_html("<Club> cup", view, final=True, rounds=1)
    assert "<h1>&lt;Club&gt; cup</h1><h2>Final standings</h2>" in page and page.count("<tr>") == 9
    first = view.players[0]
    assert f"<tr><td>1</td><td>{first.player}</td><td>1</td><td>4</td><td>{first.points}</td><td>1</td></tr>" in page
    lines = standings_csv(view).lstrip("\ufeff").splitlines()
    assert lines[0] == "rank,player,matches,table_points,points,firsts,playing" and len(lines) == 9
    at = open_page()
    at.button_group(key="match.view").set_value("organiser").run()
    assert len(ok(at).get("download_button")) == 2  # the CSV and the page to print


def test_score_in_the_manual_scorer_then_add_with_one_click():
    at = start_match(open_page())
    ok(at.button(key="match.draw").click().run())  # deal 2: Bob is dealer; Cat sits South
    at.selectbox(key="match.winner").select("Cat").run()
    at.selectbox(key="match.discarder").select("Ann").run()
    at.button(key="match.to_manual").click().run()
    assert not at.exception, at.exception
    state = at.session_state
    assert (state["manual.seat"], state["manual.prevalent"], state["manual.won_by"], state["manual.discarder"]) == (
        "S", "E", "discard", "N")
    # on the manual page the context form shows the deal's winds; the hand is entered there
    at.switch_page("appui/pages/manual.py").run()
    assert at.selectbox(key="manual.seat").value == "S" and at.selectbox(key="manual.discarder").value == "N"
    at.text_input(key="manual.notation").input(EAST_PUNG).run()
    at.button(key="manual.load").click().run()
    at.switch_page("appui/pages/match.py").run()
    assert at.button_group(key="match.source").value == "manual"
    assert any("20 fan" in c.value for c in at.caption)  # Cat seat S, round E: 16+2+1+1
    ok(at.button(key="match.add_win").click().run())
    assert totals(at) == {"Ann": -28, "Bob": -8, "Cat": 44, "Dan": -8}


def test_a_second_click_of_start_opens_the_same_match():
    at = start_match(open_page())
    (start,) = [b for b in at.button if b.label == "Start the match"]
    ok(start.click().run())
    with LedgerStore() as store:
        assert [s.id for s in store.list_matches()] == [1]


def test_bad_names_are_refused_with_the_reason():
    at = start_match_expecting_error(open_page(), ("Ann", "Ann", "Cat", "Dan"))
    assert any("different names" in shown(e) for e in at.error)


def start_match_expecting_error(at: AppTest, names) -> AppTest:
    for wind, name in zip("ESWN", names, strict=False):
        at.text_input(key=f"match.name_{wind}").input(name)
    (start,) = [b for b in at.button if b.label in ("Start the match", "开始对局")]
    return start.click().run()


def test_tournament_view_sums_table_points_over_tables():
    from ledger.match import draw, false_win

    with LedgerStore() as store:
        for table in ("1", "2"):
            match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan"), table=table, round_label="1"))
            store.add_deal(match_id, draw(1), seen=0)
            store.add_penalty(match_id, false_win(store.match(match_id), 2, "Dan"), seen=1)
            store.close_match(match_id, seen=2)
    at = ok(open_page())
    assert any(e.label.startswith("Tournament") for e in at.expander)
    players = at.dataframe[-1].value.to_dict("records")
    # each table: Dan last (0), the other three tied at +10 share (4+2+1)/3
    assert [(p["Player"], p["Matches"], round(p["Table points"], 3)) for p in players] == [
        ("Ann", 2, 4.667), ("Bob", 2, 4.667), ("Cat", 2, 4.667), ("Dan", 2, 0.0)]
    tables = at.dataframe[-2].value.to_dict("records")
    assert [(t["Table"], t["Deal"]) for t in tables] == [("1", 1), ("2", 1)]


def test_a_run_reads_the_ledgers_once(monkeypatch):
    at = start_match(open_page())
    ok(at.button(key="match.draw").click().run())
    reads: list[str] = []

    def counted(name: str):
        real = getattr(LedgerStore, name)

        def read(self, *args):
            reads.append(name)
            return real(self, *args)
        return read

    for name in ("ledger", "ledgers"):
        monkeypatch.setattr(LedgerStore, name, counted(name))
    ok(at.run())
    assert reads == ["ledgers"]
    assert header(at) == "Deal 2 of 16 · E 东 round · dealer Bob"


def test_the_organiser_is_told_in_chinese():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["lang"] = "zh"
    at.run()
    at.switch_page("appui/pages/match.py").run()
    at.button_group(key="match.view").set_value("organiser").run()
    at.text_area(key="match.t_players").input("甲\n乙\n丙")
    (register,) = [b for b in at.button if b.label == "登记"]
    register.click().run()
    assert [shown(e) for e in at.error] == ["每桌四人：登记人数须为 4 的倍数（已登记 3 人）。"]


def test_a_stale_write_is_told_in_chinese():
    first = start_match(open_page())
    second = AppTest.from_file(APP, default_timeout=TIMEOUT)
    second.session_state["lang"] = "zh"
    second.run()
    second.switch_page("appui/pages/match.py").run()
    ok(first.button(key="match.draw").click().run())
    second.button(key="match.draw").click().run()
    (refused,) = [shown(e) for e in second.error]
    assert refused.startswith("未记录：第 1 盘已由另一部手机于 ") and "记录：荒牌。页面已显示最新情况" in refused
    ok(first.button(key="match.close").click().run())
    ok(first.button(key="match.close_yes").click().run())
    second.button(key="match.draw").click().run()
    assert any("本局已由另一部手机于" in shown(e) and "结束（到达规定时间）" in shown(e) for e in second.error)
    assert any(s.value.startswith("本局已结束（到达规定时间") for s in second.success)


def test_the_page_in_chinese():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["lang"] = "zh"
    at.run()
    at.switch_page("appui/pages/match.py").run()
    at = start_match_expecting_error(at, ("甲", "乙", "丙", "丁"))
    ok(at)
    assert at.title[0].value == "对局记分"
    assert at.subheader[0].value == "第 1/16 盘 · 东风圈 · 庄家 甲"
    ok(at.button(key="match.draw").click().run())
    assert at.subheader[0].value == "第 2/16 盘 · 东风圈 · 庄家 乙"


def test_a_complete_match_reopened_is_corrected_and_ends_complete_again():
    from ledger.match import EndReason, draw

    with LedgerStore() as store:
        match_id = store.create_match(Match(("Ann", "Bob", "Cat", "Dan")))
        for n in range(1, 17):
            store.add_deal(match_id, draw(n), seen=n - 1)
    at = ok(open_page())
    assert any(s.value.startswith("The match is over (all 16 deals") for s in at.success)
    ok(at.button(key="match.reopen").click().run())
    ok(at.button(key="match.reopen_yes").click().run())
    assert next(i.value for i in at.info).startswith("All 16 deals are recorded: correct a deal below")
    assert not any("The match is over" in s.value for s in at.success)
    assert at.selectbox(key="match.deal_no").value == 16 and at.selectbox(key="match.deal_no").options[-1] == "16"
    assert [b.key for b in at.button].count("match.close") == 1
    assert len(at.get("download_button")) == 2 and any(s.value == "Deals" for s in at.subheader)  # the sheet is there
    at.selectbox(key="match.deal_no").select(7).run()
    add_win(at, "Cat", EAST_PUNG, discarder="Ann")
    assert at.button(key="match.close").label == "End the match (all 16 deals)"
    ok(at.button(key="match.close").click().run())
    assert any("End the match with all 16 deals?" in shown(w) for w in at.warning)
    ok(at.button(key="match.close_yes").click().run())
    assert any(s.value.startswith("The match is over (all 16 deals") for s in at.success)
    with LedgerStore() as store:
        ledger = store.ledger(match_id)
        assert ledger.closed.reason is EndReason.ALL_DEALS and ledger.rows[6].deal.winner == "Cat"


def test_an_import_is_confirmed_and_a_repeat_is_not_an_error():
    import json

    from ledger.exchange import ledger_to_json
    from ledger.match import build_ledger, draw

    match = Match(("Ann", "Bob", "Cat", "Dan")).validate()
    data = json.dumps(ledger_to_json(build_ledger(match, [draw(1)]))).encode()
    at = open_page()
    at.file_uploader(key="match.import").upload("m.json", data, "application/json").run()
    ok(at.button(key="match.import_go").click().run())
    assert [shown(s) for s in at.success] == ["Imported as match 1."]
    at.file_uploader(key="match.import").upload("m.json", data, "application/json").run()
    ok(at.button(key="match.import_go").click().run())  # no red error: nothing is wrong
    assert [shown(i) for i in at.info] == ["This file was imported before, as match 1: nothing was added."]
