"""The ledger's storage, the same tests on SQLite and on a real PostgreSQL server started here
(tests/postgres_support.py: a throwaway cluster on a unix socket; skipped, saying why, where it cannot start).
"""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa
from postgres_support import start_postgres

from datafolder import data_root
from ledger.exchange import ledger_from_json, ledger_to_json
from ledger.match import (
    EndReason,
    LedgerError,
    Match,
    MatchLocked,
    Result,
    StaleWrite,
    build_ledger,
    draw,
    false_win,
    penalty,
    void,
    win,
)
from ledger.store import SCHEMA_REVISION, AllRoundsDrawn, LedgerStore, TournamentEnded, default_url
from ledger.tournament import tournament

PLAYERS = ("Ann", "Bob", "Cat", "Dan")


@pytest.fixture(scope="session")
def postgres():
    yield from start_postgres()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def store(database_url):
    with LedgerStore(database_url) as opened:
        yield opened


def test_a_match_survives_reopening(database_url):
    with LedgerStore(database_url) as first:
        match = Match(PLAYERS, name="club night", table="2", round_label="1").validate()
        match_id = first.create_match(match)
        m = first.match(match_id)
        first.add_deal(match_id, win(m, 1, "Ann", discarder="Cat", hand=_east_pung()), seen=0)
        first.add_deal(match_id, draw(2), seen=1)
        first.add_penalty(match_id, false_win(m, 3, "Dan"), seen=2)
        first.add_deal(match_id, void(3), seen=3)
        before = first.ledger(match_id)
    with LedgerStore(database_url) as again:
        after = again.ledger(match_id)
        assert again.schema_version() == SCHEMA_REVISION
    assert after.match == match
    assert after.rows == before.rows and after.revision == 4 and after.uid == before.uid != ""
    assert after.totals == (56, 2, -20, -38)  # 46/-8/-30/-8, then Dan pays 10 to each
    assert after.rows[0].deal.hand["seat_wind"] == "E" and after.rows[0].deal.total == 22
    assert after.next_deal == 4


def test_a_stale_write_is_refused_naming_what_changed(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    store.add_deal(match_id, draw(1), seen=0)
    store.add_deal(match_id, win(m, 2, "Ann", total=8), seen=1)  # Ann's self-draw: 16 from each
    with pytest.raises(StaleWrite, match=r"deal 2 was recorded by another phone at \d\d:\d\d: Ann's self-draw, 8") as refused:
        store.add_deal(match_id, draw(2), seen=1)  # the second phone still showed deal 2 as next
    assert [c.number for c in refused.value.changes] == [2]
    with pytest.raises(StaleWrite, match=r"deal 1 was recorded.*a draw; deal 2 was recorded"):
        store.undo_last(match_id, seen=0, number=1)
    with pytest.raises(LedgerError, match="deal 1 is not the last deal"):
        store.undo_last(match_id, seen=2, number=1)
    assert store.undo_last(match_id, seen=2, number=2).winner == "Ann"
    with pytest.raises(StaleWrite, match=r"deal 2 \(Ann's self-draw, 8\) was undone by another phone"):
        store.add_deal(match_id, draw(3), seen=2)
    with pytest.raises(StaleWrite):
        store.replace_deal(match_id, draw(1), seen=2)
    assert [d.result for d in store.deals(match_id)] == [Result.DRAW] and store.ledger(match_id).revision == 3


def test_a_finished_match_is_locked_until_reopened(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    for n in range(1, 16):
        store.add_deal(match_id, draw(n), seen=n - 1)
    last = store.add_deal(match_id, win(m, 16, "Dan", discarder="Bob", total=14), seen=15)
    assert last.finished and last.closed.reason is EndReason.ALL_DEALS and last.next_deal is None
    for write in (lambda: store.add_deal(match_id, draw(16), seen=16), lambda: store.replace_deal(match_id, draw(16), seen=16),
                  lambda: store.undo_last(match_id, seen=16, number=16), lambda: store.remove_deal(match_id, 16, seen=16),
                  lambda: store.add_penalty(match_id, penalty(m, 16, "Ann", 5), seen=16),
                  lambda: store.close_match(match_id, seen=16)):
        with pytest.raises(MatchLocked, match=r"the match is finished .closed after all 16 deals at \d\d:\d\d.: reopen it"):
            write()
    assert store.ledger(match_id).totals == last.totals
    reopened = store.reopen_match(match_id, seen=16)
    assert not reopened.finished and reopened.next_deal is None  # all 16 recorded: a deal may be edited, not added
    store.replace_deal(match_id, draw(16), seen=17)
    with pytest.raises(StaleWrite, match=r"deal 16 was changed by another phone .* to a draw"):
        store.close_match(match_id, seen=17)
    with pytest.raises(LedgerError, match="the match is finished: all 16 deals are recorded"):
        store.ledger(match_id).deal_to_add()  # no deal 17: the page and the command line say so
    closed = store.close_match(match_id, seen=18)  # all 16 recorded: ended as complete, not at a time limit
    assert closed.finished and closed.closed.reason is EndReason.ALL_DEALS and closed.totals == (0, 0, 0, 0)
    assert store.changes_since(match_id, 18)[0].reason is EndReason.ALL_DEALS


def test_a_session_ended_by_the_time_limit(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    store.add_deal(match_id, win(m, 1, "Ann", total=8), seen=0)
    store.add_penalty(match_id, false_win(m, 2, "Bob"), seen=1)  # the deal goes on...
    playing = store.ledger(match_id)
    assert not playing.finished and playing.next_deal == 2 and playing.totals == (58, -46, -6, -6)
    assert tournament({match_id: playing}).players[0].matches == 0  # unfinished: not in the standings
    closed = store.close_match(match_id, seen=2)  # ...and the time limit ends the session in it
    assert closed.finished and closed.closed.reason is EndReason.TIME_LIMIT and closed.next_deal is None
    assert closed.totals == (58, -46, -6, -6) and closed.pending  # the penalty of the unplayed deal still counts
    view = tournament({match_id: closed})
    assert [(p.player, p.matches, p.table_points) for p in view.players] == [
        ("Ann", 1, 4.0), ("Cat", 1, 1.5), ("Dan", 1, 1.5), ("Bob", 1, 0.0)]


def test_penalties_can_be_taken_back_and_go_with_their_deal(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    store.add_deal(match_id, draw(1), seen=0)
    ledger = store.add_penalty(match_id, penalty(m, 1, "Cat", 5, "slow play"), seen=1)
    assert ledger.totals == (0, 0, -5, 0) and ledger.rows[0].penalties[0].reason == "slow play"
    entry = ledger.rows[0].penalties[0]
    with pytest.raises(LedgerError, match="a penalty in deal 3, but deal 2 is the one being played"):
        store.add_penalty(match_id, penalty(m, 3, "Cat", 5), seen=2)
    assert store.remove_penalty(match_id, entry.id, seen=2).totals == (0, 0, 0, 0)
    store.add_penalty(match_id, penalty(m, 1, "Dan", 7), seen=3)
    store.add_penalty(match_id, penalty(m, 2, "Ann", 3), seen=4)  # in deal 2, being played
    assert store.undo_last(match_id, seen=5, number=1).result is Result.DRAW
    assert store.ledger(match_id).pending == (penalty(m, 1, "Dan", 7), penalty(m, 1, "Ann", 3))  # deal 1 is being played again


def test_edit_and_undo_recompute_the_rest(store):
    match_id = store.create_match(Match(PLAYERS))
    m = store.match(match_id)
    store.add_deal(match_id, draw(1), seen=0)
    store.add_deal(match_id, win(m, 2, "Bob", total=8), seen=1)  # Bob dealer in deal 2, self-drawn: 16 from each
    assert store.ledger(match_id).totals == (-16, 48, -16, -16)
    store.add_penalty(match_id, false_win(m, 1, "Cat"), seen=2)
    edited = store.replace_deal(match_id, void(1), seen=3)
    assert [row.totals for row in edited.rows] == [(10, 10, -30, 10), (-6, 58, -46, -6)]
    assert store.undo_last(match_id, seen=4, number=2).number == 2
    assert store.ledger(match_id).totals == (10, 10, -30, 10)
    with pytest.raises(LedgerError, match="deal 5 is not recorded yet"):
        store.replace_deal(match_id, draw(5), seen=5)
    # a deal recorded by mistake: the later ones move up and are scored with their new winds
    store.add_deal(match_id, draw(2), seen=5)
    store.add_deal(match_id, win(m, 3, "Ann", discarder="Bob", hand=_east_pung()), seen=6)  # Ann seat W: 20
    moved = store.remove_deal(match_id, 2, seen=7)
    assert [(r.deal.number, r.deal.result.value, r.deal.total) for r in moved.rows] == [(1, "void", None), (2, "win", 20)]
    assert store.ledger(match_id).rows == moved.rows
    assert moved.totals == (10 + 44, 10 - 28, -30 - 8, 10 - 8)  # deal 2: Ann seat N, Bob (dealer) discards: 28


def _scripted(match: Match) -> list:
    """16 deals: the third of each round a self-drawn win by its dealer (8 + the deal number fan), the others draws."""
    return [win(match, n, match.dealer(n), total=8 + n) if n % 4 == 3 else draw(n) for n in range(1, 17)]


def _a_round_at_once(database_url: str, tables: int, clients: int) -> None:
    """`tables` matches, `clients` phones at each recording the same 16 deals at once, each write naming
    the revision its phone last read; every phone also tries once to write what it saw before another's write."""
    with LedgerStore(database_url) as setup:
        ids = [setup.create_match(Match(tuple(f"{p}{t}" for p in PLAYERS), table=str(t + 1), round_label="1"))
               for t in range(tables)]
        expected = {i: build_ledger(setup.match(i), _scripted(setup.match(i))) for i in ids}
    start = threading.Barrier(tables * clients)
    recorded: list[tuple[int, int]] = []
    refused: list[str] = []
    errors: list[BaseException] = []

    def phone(match_id: int) -> None:
        try:
            with LedgerStore(database_url) as mine:
                script = _scripted(mine.match(match_id))
                start.wait()
                while True:
                    seen = mine.ledger(match_id)
                    if seen.next_deal is None:
                        break
                    try:
                        mine.add_deal(match_id, script[seen.next_deal - 1], seen=seen.revision)
                        recorded.append((match_id, seen.next_deal))
                    except StaleWrite as stale:
                        refused.append(str(stale))
                        continue
                    try:  # what this phone showed before its own write is stale now
                        mine.add_deal(match_id, draw(seen.next_deal), seen=seen.revision)
                        errors.append(AssertionError(f"a stale write got through in match {match_id}"))
                    except (StaleWrite, MatchLocked) as stale:
                        refused.append(str(stale))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=phone, args=(match_id,)) for match_id in ids for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors[:3]
    assert sorted(recorded) == sorted((i, n) for i in ids for n in range(1, 17))  # every deal exactly once
    assert len(refused) >= 16 * tables and all("by another phone" in r or "the match is finished" in r for r in refused)
    with LedgerStore(database_url) as check:
        ledgers = check.ledgers()
    for match_id in ids:
        assert ledgers[match_id].rows == expected[match_id].rows and ledgers[match_id].finished
        assert ledgers[match_id].revision == 16
    view = tournament(ledgers)
    wanted = tournament(expected)
    assert view.players == wanted.players and all(p.matches == 1 for p in view.players)
    # at each table the dealers of deals 3, 7, 11, 15 (Cat, Dan, Bob, Ann) self-draw 11, 15, 19, 23 fan:
    # Ann takes 3 * (23 + 8) and pays 11 + 8, 15 + 8 and 19 + 8: first at every table
    firsts = [p for p in view.players if p.table_points == 4.0]
    assert sorted(p.player for p in firsts) == sorted(f"Ann{t}" for t in range(tables))
    assert all(p.points == 3 * 31 - 19 - 23 - 27 for p in firsts)


@pytest.mark.slow
def test_a_round_of_8_tables_with_4_phones_each_on_postgresql(postgres):
    _a_round_at_once(postgres.new_database(), tables=8, clients=4)


def test_a_round_of_2_tables_with_3_phones_each_on_sqlite(tmp_path):
    _a_round_at_once(f"sqlite:///{tmp_path / 'ledger.sqlite3'}", tables=2, clients=3)


def test_two_processes_at_once_lose_nothing(database_url, monkeypatch):
    import multiprocessing
    import sys
    import types

    # a spawned process runs __main__ again: after an AppTest.from_function in this session that is the AppTest's
    # script (NameError on its __args); an empty __main__ leaves the workers to import only what they name
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    with LedgerStore(database_url) as setup:
        match_id = setup.create_match(Match(PLAYERS))
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_false_win_deals, args=(database_url, match_id, name, 8)) for name in ("Cat", "Dan")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=180)
    assert [w.exitcode for w in workers] == [0, 0]
    with LedgerStore(database_url) as check:
        ledger = check.ledger(match_id)
    assert [row.deal.number for row in ledger.rows] == list(range(1, 17))
    assert sorted(row.penalties[0].player for row in ledger.rows) == ["Cat"] * 8 + ["Dan"] * 8
    assert ledger.totals == (160, 160, -160, -160)


def _add_false_win_deals(database_url: str, match_id: int, offender: str, count: int) -> None:
    """One process's phone: `count` deals each a false win and void, a refused write tried again on what is there now."""
    with LedgerStore(database_url) as mine:
        m = mine.match(match_id)
        recorded = 0
        while recorded < count:
            seen = mine.ledger(match_id)
            if seen.pending:  # the other phone's penalty is in; its void deal follows
                continue
            try:
                after = mine.add_penalty(match_id, false_win(m, seen.next_deal, offender), seen=seen.revision)
                mine.add_deal(match_id, void(seen.next_deal), seen=after.revision)
                recorded += 1
            except StaleWrite:
                pass


def test_import_export_and_tournament(store):
    first = store.create_match(Match(PLAYERS, table="1", round_label="1"))
    m = store.match(first)
    store.add_deal(first, win(m, 1, "Ann", discarder="Cat", hand=_east_pung()), seen=0)
    store.close_match(first, seen=1)
    data = ledger_to_json(store.ledger(first))
    again = store.import_match(ledger_from_json(data))
    assert (again.match_id, again.new) == (first, False)  # recognised: nothing added
    second = store.import_match(ledger_from_json({**data, "uid": "", "match": {**data["match"], "table": "2"}}))
    assert second.new and store.ledger(second.match_id).totals == (46, -8, -30, -8)
    assert store.import_match(ledger_from_json({**data, "uid": "", "match": {**data["match"], "table": "2"}})).new is False
    assert [s.match.table for s in store.list_matches()] == ["1", "2"]
    view = tournament(store.ledgers())
    assert [(line.round_label, line.table, line.deals) for line in view.matches] == [("1", "1", 1), ("1", "2", 1)]
    # per match: Ann 4; Bob and Dan tie for second at -8, (2+1)/2 each; Cat 0. Summed over both tables:
    assert [(p.player, p.matches, p.table_points, p.points) for p in view.players] == [
        ("Ann", 2, 8.0, 92), ("Bob", 2, 3.0, -16), ("Dan", 2, 3.0, -16), ("Cat", 2, 0.0, -60),
    ]
    store.delete_match(second.match_id)
    assert [s.id for s in store.list_matches()] == [first]


def test_the_same_limits_on_every_database(store):
    long_name = "名" * 101
    with pytest.raises(LedgerError, match="a player's name has 101 characters; at most 100"):
        store.create_match(Match((long_name, "Bob", "Cat", "Dan")))
    longest = "名" * 100
    match_id = store.create_match(Match((longest, "Bob", "Cat", "Dan"), name="n" * 200))
    assert store.match(match_id).players[0] == longest
    m = store.match(match_id)
    with pytest.raises(LedgerError, match="more than any hand scores"):
        store.add_deal(match_id, win(m, 1, "Bob", total=99999999), seen=0)
    with pytest.raises(LedgerError, match="from 1 to 1000"):
        store.add_penalty(match_id, penalty(m, 1, "Bob", 10**12), seen=0)
    with pytest.raises(LedgerError, match="the tournament's name has 201"):
        store.create_tournament("t" * 201, [f"P{i}" for i in range(8)], 1)
    assert store.ledger(match_id).revision == 0


def test_a_tournament_draws_rounds_and_counts_finished_matches(store):
    names = [f"P{i}" for i in range(8)]
    with pytest.raises(LedgerError, match=r"register a multiple of 4 players .6 registered."):
        store.create_tournament("cup", names[:6], 1)
    with pytest.raises(LedgerError, match="P1 appear twice"):
        store.create_tournament("cup", [*names[:7], "P1"], 1)
    tid = store.create_tournament("cup", names, seed=5)
    with pytest.raises(LedgerError, match=r"a tournament named 'cup' is already registered .#1."):
        store.create_tournament("cup", names, seed=5)
    assert store.start_round(tid) == 1
    tables = store.list_matches(tid)
    assert [(s.round_no, s.table_no) for s in tables] == [(1, 1), (1, 2)]
    assert sorted(p for s in tables for p in s.match.players) == names
    with pytest.raises(LedgerError, match="round 1 is still being played at tables 1, 2"):
        store.start_round(tid)
    with pytest.raises(LedgerError, match="round 1 is still being played at tables 1, 2"):
        store.end_tournament(tid)
    for s in tables:
        store.close_match(s.id, seen=0)
    assert store.start_round(tid) == 2
    second = [s.match.players for s in store.list_matches(tid) if s.round_no == 2]
    for table in second:  # two tables of four after two of four: two pairs at each table met before, no more
        first_tables = [set(s.match.players) for s in tables]
        assert sorted(len(set(table) & t) for t in first_tables) == [2, 2]
    other = LedgerStore(store.url)
    try:  # the same seed draws the same seating in another database's tournament of the same players
        assert other.tournament(tid).seed == 5
    finally:
        other.close()


def test_a_database_of_the_first_schema_is_migrated(database_url):
    engine = sa.create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    old = _first_schema()
    old.create_all(engine)
    stamp = "2026-01-01T00:00:00+00:00"
    with engine.begin() as conn:
        t = old.tables
        conn.execute(sa.insert(t["schema_version"]).values(version=1))
        conn.execute(sa.insert(t["matches"]).values(id=1, name="", table_label="", round_label="", seat_rule="official",
                                                    false_win_penalty=10, created_at=stamp))
        conn.execute(sa.insert(t["players"]), [{"match_id": 1, "place": i, "name": n} for i, n in enumerate(PLAYERS)])
        conn.execute(sa.insert(t["deals"]).values(match_id=1, number=1, result="draw", recorded_at=stamp))
        conn.execute(sa.insert(t["deals"]).values(match_id=1, number=2, result="false_win", offender=3, penalty=10, recorded_at=stamp))
        if conn.dialect.name == "postgresql":  # rows inserted with their ids: move the sequence past them
            conn.exec_driver_sql("SELECT setval('matches_id_seq', 1)")
    with LedgerStore(database_url) as store:
        assert store.schema_version() == SCHEMA_REVISION
        ledger = store.ledger(1)
        assert [r.deal.result for r in ledger.rows] == [Result.DRAW, Result.VOID]
        assert ledger.rows[1].penalties == (false_win(ledger.match, 2, "Dan"),) and ledger.totals == (10, 10, 10, -30)
        assert ledger.revision == 2 and ledger.uid and not ledger.finished
        store.add_deal(1, draw(3), seen=2)
        assert store.create_match(Match(PLAYERS)) == 2
    with engine.connect() as conn:  # the ledger before Alembic reads this and refuses the newer schema
        assert conn.execute(sa.select(old.tables["schema_version"].c.version)).scalar() == 2
    engine.dispose()


def _first_schema() -> sa.MetaData:
    """The ledger's tables before Alembic (schema_version 1), as that program created them."""
    old = sa.MetaData()
    sa.Table("schema_version", old, sa.Column("version", sa.Integer, nullable=False))
    sa.Table("matches", old, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("name", sa.String(200), nullable=False), sa.Column("table_label", sa.String(100), nullable=False),
             sa.Column("round_label", sa.String(100), nullable=False), sa.Column("seat_rule", sa.String(20), nullable=False),
             sa.Column("false_win_penalty", sa.Integer, nullable=False), sa.Column("created_at", sa.String(40), nullable=False))
    sa.Table("players", old, sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
             sa.Column("place", sa.Integer, primary_key=True), sa.Column("name", sa.String(100), nullable=False),
             sa.UniqueConstraint("match_id", "name", name="uq_players_match_name"))
    sa.Table("deals", old, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
             sa.Column("number", sa.Integer, nullable=False), sa.Column("result", sa.String(20), nullable=False),
             sa.Column("winner", sa.Integer), sa.Column("discarder", sa.Integer), sa.Column("offender", sa.Integer),
             sa.Column("total", sa.Integer), sa.Column("penalty", sa.Integer), sa.Column("hand_json", sa.Text),
             sa.Column("recorded_at", sa.String(40), nullable=False),
             sa.UniqueConstraint("match_id", "number", name="uq_deals_match_number"))
    return old


def test_newer_schema_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    LedgerStore(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0099_future'")
    engine.dispose()
    with pytest.raises(LedgerError, match="schema is revision 0099_future, newer than this program"):
        LedgerStore(url)


def test_data_folder_and_url_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MCR_DATABASE_URL", raising=False)
    assert data_root() == tmp_path / "data" and not (tmp_path / "data").exists()
    assert default_url() == f"sqlite:///{tmp_path / 'data' / 'ledger.sqlite3'}"
    assert (tmp_path / "data").is_dir()  # the SQLite file's folder is made when the URL is taken
    with LedgerStore() as opened:
        opened.create_match(Match(PLAYERS))
    assert (tmp_path / "data" / "ledger.sqlite3").is_file()
    monkeypatch.setenv("MCR_DATABASE_URL", "nosuchdb://x")
    with pytest.raises(LedgerError, match="cannot use database 'nosuchdb://x'"):
        LedgerStore()


def _east_pung():
    from scoring.notation import parse_hand

    return parse_hand("[EEE] [123p] 456p 789p 1s +1s").to_json()


def test_a_tournament_of_two_rounds_ends_and_its_standings_are_final(store):
    names = [f"P{i}" for i in range(8)]
    with pytest.raises(LedgerError, match="the number of rounds must be a whole number from 1 to 50, not 0"):
        store.create_tournament("cup", names, seed=2, rounds=0)
    tid = store.create_tournament("cup", names, seed=2, rounds=2)
    info = store.tournament(tid)
    assert (info.planned_rounds, info.rounds, info.rounds_left, info.ended) == (2, 0, 2, False)
    with pytest.raises(LedgerError, match="no round has been drawn"):
        store.end_tournament(tid)
    for round_no in (1, 2):
        assert store.start_round(tid) == round_no
        for s in store.list_matches(tid):
            if s.round_no == round_no:
                store.add_deal(s.id, draw(1), seen=0)
                store.close_match(s.id, seen=1)
    with pytest.raises(AllRoundsDrawn, match="all 2 rounds are drawn: end the tournament, or set more rounds"):
        store.start_round(tid)
    with pytest.raises(LedgerError, match="2 rounds are drawn already: the tournament plays at least 2"):
        store.set_rounds(tid, 1)
    first = store.list_matches(tid)[0]
    store.reopen_match(first.id, seen=2)  # a correction before the end: the table plays on
    with pytest.raises(LedgerError, match="round 1 is still being played at table 1"):
        store.end_tournament(tid)
    store.close_match(first.id, seen=3)
    ended = store.end_tournament(tid)
    assert ended.ended and ended.ended_at and store.end_tournament(tid).ended_at == ended.ended_at  # a second click
    for refused in (lambda: store.start_round(tid), lambda: store.set_rounds(tid, 3),
                    lambda: store.reopen_match(first.id, seen=4)):
        with pytest.raises(TournamentEnded, match=r"the tournament 'cup' has ended at .*: its standings are final"):
            refused()
    assert store.ledger(first.id).finished


def test_a_database_of_the_second_schema_keeps_its_tournaments(tmp_path):
    from alembic import command
    from alembic.config import Config

    from ledger.store import MIGRATIONS

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # the schema as revision 0002 left it, with one tournament
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        command.upgrade(config, "0002_revisions")
        conn.exec_driver_sql("INSERT INTO tournaments (uid, name, seed, created_at) VALUES ('u1', 'old cup', 3, 'x')")
    engine.dispose()
    with LedgerStore(url) as store:
        assert store.schema_version() == SCHEMA_REVISION == "0003_tournament_end"
        (info,) = store.tournaments()
        assert (info.name, info.seed, info.planned_rounds, info.ended) == ("old cup", 3, None, False)
        assert store.set_rounds(info.id, 4).planned_rounds == 4
