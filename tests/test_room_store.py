"""The room store (serving/rooms.py): codes, the teacher's secret, students, caps, floods, questions, expiry."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from serving import rooms as rm
from serving.rooms import RoomError, RoomStore

STATE = {"query": {"preset": "statquest-self"}, "tab": "Workbench", "stage": None}


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def opened(store: RoomStore | None = None) -> tuple[RoomStore, rm.Room]:
    store = store or RoomStore()
    return store, store.open("10.0.0.1", dict(STATE))


def test_a_code_is_six_characters_without_look_alikes() -> None:
    store = RoomStore()
    codes = [store.open(f"10.0.{i}.1", {}).code for i in range(200)]
    assert all(len(c) == 6 for c in codes)
    assert not set("".join(codes)) & set("0O1IL")
    assert len(set(codes)) == 200
    assert rm.normal_code(" ab-c d23 ".replace("23", "2E")) == "ABCD2E"


def test_a_wrong_code_says_what_is_wrong_in_a_students_words() -> None:
    """A look-alike typed (O for what was never an O) is named as such: the alphabet leaves out both sides of each
    look-alike pair, so there is nothing to map it to, and 'as on the screen' alone told the student nothing."""
    assert not set(rm.LOOK_ALIKES) & set(rm.ALPHABET)  # no mapping exists: 0 and O, 1, I and L are all left out
    assert set(rm.LOOK_ALIKES) | set(rm.ALPHABET) == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    cases = {"YBGPEO": ["never use the letter O.", "leave out O, 0, I, L and 1, which look alike"],
             "ybgpe0": ["never use the digit 0 (zero)."], "Al1CDE": ["the letter L or the digit 1 (one)."],
             "AB!CDE": ["only the letters A to Z and the digits 2 to 9, not '!'"],
             "ABC": ["a code is 6 letters and digits", "this is 3"], "ABC DEFG": ["this is 7"]}  # fmt: skip
    for typed, says in cases.items():
        with pytest.raises(RoomError, match="is not a room code") as e:
            rm.normal_code(typed)
        assert e.value.status == 404 and all(s in str(e.value) for s in says), (typed, str(e.value))
        assert f"{typed!r} is not a room code" in str(e.value)
    assert rm.normal_code("ybg-pe2") == "YBGPE2"  # case, spaces and dashes still forgiven


def test_only_the_secret_drives_the_room_and_it_is_never_in_what_students_get() -> None:
    store, room = opened()
    for bad in (None, "", "x" * 32, room.secret[:-1], 42):
        with pytest.raises(RoomError) as e:
            store.set_state(room.code, bad, {"tab": "Mask lab"})
        assert e.value.status == 403
    v = store.set_state(room.code, room.secret, {"tab": "Mask lab"})
    assert v == room.version == 2
    token, _ = store.join(room.code, "10.0.0.9")
    store.ask(room.code, room.secret, "choice", "which?", "b", ["a", "b"])
    store.answer(room.code, token, 0, "a")
    _, text = store.payload(room.code)
    assert room.secret not in text and token not in text
    assert '"right"' not in text  # not revealed yet
    assert json.loads(text)["state"]["tab"] == "Mask lab"
    _, teacher = store.payload(room.code, teacher=True)
    assert json.loads(teacher)["question"]["right"] == "b"


def test_wrong_codes_are_named_and_a_flood_is_limited_to_its_own_address() -> None:
    clock = Clock()
    store, room = opened(RoomStore(clock))
    with pytest.raises(RoomError, match="not a room code") as e:
        store.join("ABC", "6.6.6.6")
    assert e.value.status == 404
    with pytest.raises(RoomError, match="no room 'ZZZZZZ' is open"):
        store.join("ZZZZZZ", "6.6.6.6")
    for i in range(1000):  # a script: 1,000 attempts in a minute, from one address and from many
        clock.t += 0.06
        for client in ("6.6.6.6", f"7.7.{i // 250}.{i % 250}"):
            try:
                store.join(f"Q{i:05d}"[-6:].replace("0", "A").replace("1", "B"), client)
            except RoomError as err:
                assert err.status in (404, 429)
    with pytest.raises(RoomError) as e:
        store.join(room.code, "6.6.6.6")
    assert e.value.status == 429  # the flooding address waits a minute
    token, st = store.join(room.code.lower(), "10.0.0.50")  # a real student still joins, code typed in lower case
    assert st.name and token in room.students
    assert store.counts()["clients"] <= rm.MAX_CLIENTS
    clock.t += 61
    store.join(room.code, "6.6.6.6")  # a minute later that address may try again


def test_a_full_room_takes_back_seats_of_scripted_joins_never_of_real_students(monkeypatch) -> None:
    monkeypatch.setattr(rm, "MAX_STUDENTS", 10)
    clock = Clock()
    store, room = opened(RoomStore(clock))
    real = []
    for i in range(4):  # real students: their pages follow
        token, _ = store.join(room.code, f"10.1.0.{i}")
        store.follow(room.code, token, +1)
        real.append(token)
    for i in range(6):
        store.join(room.code, f"6.6.6.{i}")  # scripted: join, never follow
    with pytest.raises(RoomError, match="full"):  # not yet idle for RECLAIM_S
        store.join(room.code, "10.1.0.99")
    assert room.refused == 1 and json.loads(store.payload(room.code, teacher=True)[1])["refused"] == 1
    clock.t += rm.RECLAIM_S
    for i in range(6):  # each takes a scripted join's seat
        token, _ = store.join(room.code, f"10.2.0.{i}")
        store.follow(room.code, token, +1)
        real.append(token)
    clock.t += rm.RECLAIM_S
    with pytest.raises(RoomError, match="full"):  # every seat is a real student's now, and stays theirs
        store.join(room.code, "10.1.0.99")
    assert set(room.students) == set(real)


def test_one_address_has_a_cap_of_its_own(monkeypatch) -> None:
    monkeypatch.setattr(rm, "MAX_STUDENTS_PER_CLIENT", 3)
    store, room = opened()
    for _ in range(3):
        store.join(room.code, "6.6.6.6")
    with pytest.raises(RoomError, match="3 students from this address"):
        store.join(room.code, "6.6.6.6")
    store.join(room.code, "10.0.0.3")


def test_a_token_rejoins_as_the_same_student_and_rooms_per_address_are_capped() -> None:
    store, room = opened()
    token, st = store.join(room.code, "10.0.0.2")
    again, st2 = store.join(room.code, "10.0.0.2", token)
    assert again == token and st2 is st and len(room.students) == 1
    for _ in range(rm.MAX_ROOMS_PER_CLIENT - 1):
        store.open("10.0.0.1", {})
    with pytest.raises(RoomError, match="close one first") as e:
        store.open("10.0.0.1", {})
    assert e.value.status == 429


def test_idle_rooms_expire_and_closed_rooms_say_so() -> None:
    clock = Clock()
    store, room = opened(RoomStore(clock))
    other = store.open("10.0.0.7", {})
    store.close(other.code, other.secret)
    assert json.loads(store.payload(other.code)[1])["closed"] is True
    with pytest.raises(RoomError, match="closed") as e:
        store.join(other.code, "10.0.0.8")
    assert e.value.status == 410
    clock.t += rm.IDLE_S + 1
    store.open("10.0.0.9", {})  # (expiry runs as rooms are opened)
    with pytest.raises(RoomError, match="no room"):
        store.join(room.code, "10.0.0.2")
    assert store.counts()["rooms"] == 1


def test_answers_one_per_student_changeable_until_closed_and_capped() -> None:
    store, room = opened()
    a, _ = store.join(room.code, "10.0.0.2")
    b, _ = store.join(room.code, "10.0.0.3")
    qid = store.ask(room.code, room.secret, "predict", "weights[2,1]?", "0.25")
    with pytest.raises(RoomError, match="not a number"):
        store.answer(room.code, a, qid, "a quarter")
    with pytest.raises(RoomError, match="between 1 and 40"):
        store.answer(room.code, a, qid, "1" * 41)
    with pytest.raises(RoomError) as e:
        store.answer(room.code, "forged", qid, "0.2")
    assert e.value.status == 403
    store.answer(room.code, a, qid, "0.5")
    store.answer(room.code, a, qid, "0.251")  # changed: still one answer
    store.answer(room.code, b, qid, "0.9")
    assert room.questions[qid].answers == {a: "0.251", b: "0.9"}
    store.end_question(room.code, room.secret, reveal=True)
    with pytest.raises(RoomError, match="closed"):
        store.answer(room.code, b, qid, "0.25")
    public = json.loads(store.payload(room.code)[1])["question"]
    assert public["right"] == "0.25" and "count" not in public and "answers" not in public
    assert json.loads(store.payload(room.code, teacher=True)[1])["question"]["count"] == 2
    rows = store.results(room.code, room.secret)
    assert [(r["answer"], r["correct"]) for r in rows] == [("0.251", True), ("0.9", False)]
    with pytest.raises(RoomError) as e:
        store.results(room.code, "nope")
    assert e.value.status == 403


def test_followers_wait_for_the_next_version_and_the_payload_is_made_once() -> None:
    store, room = opened()

    async def run() -> list[int]:
        waits = [asyncio.create_task(store.wait(room.code, room.version, 5)) for _ in range(50)]
        await asyncio.sleep(0.05)
        store.set_state(room.code, room.secret, {"stage": "scores"})  # (from this thread: the event loop's)
        return await asyncio.gather(*waits)

    assert asyncio.run(run()) == [2] * 50
    assert store.payload(room.code)[1] is store.payload(room.code)[1]
    assert store.set_state(room.code, room.secret, {"stage": "scores"}) == 2  # nothing changed: no new version


def test_joins_and_answers_wake_only_the_teacher_and_a_question_wakes_everyone() -> None:
    store, room = opened()
    token, _ = store.join(room.code, "10.0.0.2")
    qid = store.ask(room.code, room.secret, "predict", "weights[0,0]?", "0.5")
    v, tv = store.version(room.code), store.version(room.code, teacher=True)

    async def run() -> tuple[list[int], int]:
        students = [asyncio.create_task(store.wait(room.code, v, 0.3)) for _ in range(20)]
        teacher = asyncio.create_task(store.wait(room.code, tv, 5, teacher=True))
        await asyncio.sleep(0.05)
        for i in range(30):
            store.join(room.code, f"10.0.1.{i}")
        store.answer(room.code, token, qid, "0.4")
        return await asyncio.gather(*students), await teacher

    seen, teacher_v = asyncio.run(run())
    assert seen == [v] * 20  # (each waited its whole 0.3 s: nothing they show changed)
    assert teacher_v > tv and store.version(room.code, teacher=True) == tv + 31
    assert json.loads(store.payload(room.code, teacher=True)[1])["students"] == 31


# ---- closing, grading, rejoining: each check takes a store, so tests/test_room_redis.py runs it on Redis too ----


def check_a_closed_room_refuses_answers_and_keeps_its_results(store: RoomStore) -> None:
    """Closing a room closes its open question; an answer after that is refused naming the room (as a join is), and
    the teacher's results stay downloadable with the secret for as long as the closed room is kept."""
    room = store.open("10.0.0.1", dict(STATE))
    token, _ = store.join(room.code, "10.0.0.2")
    qid = store.ask(room.code, room.secret, "choice", "which?", "t2", ["t1", "t2", "t3"])
    store.answer(room.code, token, qid, "t1")
    store.close(room.code, room.secret)
    assert json.loads(store.payload(room.code)[1])["question"]["closed"] is True
    assert store.get(room.code).questions[qid].closed
    with pytest.raises(RoomError, match="room: the teacher has closed this room") as e:
        store.answer(room.code, token, qid, "t3")
    assert e.value.status == 410
    rows = store.results(room.code, room.secret)
    assert [(r["answer"], r["correct"]) for r in rows] == [("t1", False)]  # the answer before the close, kept
    with pytest.raises(RoomError) as e:
        store.results(room.code, "nope")
    assert e.value.status == 403


def check_a_prediction_is_graded_by_the_rule_the_pages_are_sent(store: RoomStore) -> None:
    """A revealed prediction carries the server's tolerance as data, and the page's formula (static/room.js right,
    math.isclose's: |a − r| ≤ max(rel·max(|a|, |r|), abs)) with it grades as the CSV does. The walk's case: right
    3.309, answer 3.34226 (0.03326 ≤ 0.0334226: right; the page's old |a − r| ≤ max(0.01, 0.01·|r|) said wrong)."""
    room = store.open("10.0.0.1", dict(STATE))
    token, _ = store.join(room.code, "10.0.0.2")
    qid = store.ask(room.code, room.secret, "predict", "scores[2, 2]?", "3.309")
    store.answer(room.code, token, qid, "3.34226")
    store.end_question(room.code, room.secret, reveal=True)
    public = json.loads(store.payload(room.code)[1])["question"]
    tol = public["tol"]

    def page(a: str, r: str) -> bool:  # static/room.js right(), line for line
        x, y = float(a), float(r)
        return abs(x - y) <= max(tol["rel"] * max(abs(x), abs(y)), tol["abs"])

    assert store.results(room.code, room.secret)[0]["correct"] is True
    assert page("3.34226", public["right"]) is True
    q = store.get(room.code).questions[qid]
    for a in ("3.34226", "3.2759", "3.276", "3.3421", "3.343", "-3.309", "0", "3.309", "3.30"):
        assert page(a, q.right) is q.correct(a), a
    for right, a in (("0.005", "0.0149"), ("0.005", "0.0151"), ("-100", "-101.0101"), ("-100", "-98.99")):
        q.right = right
        assert page(a, right) is q.correct(a), (right, a)


def check_a_rejoin_brings_back_the_students_own_answers(store: RoomStore) -> None:
    """A student's own answers, by question id, for their token (a reload's rejoin shows them again); nobody
    else's, and none for a token that never joined."""
    room = store.open("10.0.0.1", dict(STATE))
    a, _ = store.join(room.code, "10.0.0.2")
    b, _ = store.join(room.code, "10.0.0.3")
    q0 = store.ask(room.code, room.secret, "choice", "which?", "t2", ["t1", "t2"])
    store.answer(room.code, a, q0, "t2")
    store.answer(room.code, b, q0, "t1")
    q1 = store.ask(room.code, room.secret, "predict", "weights[0, 0]?", "0.5")
    store.answer(room.code, a, q1, "0.45")
    assert store.own_answers(room.code, a) == {str(q0): "t2", str(q1): "0.45"}
    assert store.own_answers(room.code, b) == {str(q0): "t1"}
    with pytest.raises(RoomError) as e:
        store.own_answers(room.code, "forged")
    assert e.value.status == 403


def check_the_results_have_no_row_for_a_question_asked_before_a_student_came(store: RoomStore) -> None:
    """The CSV's rows are the questions put to each student: one asked and closed before a student joined has no row
    for them (it had one, blank, which read as a question they left unanswered); one open as they join has, answered
    or not; one asked after has, for everyone."""
    room = store.open("10.0.0.1", dict(STATE))
    early, _ = store.join(room.code, "10.0.0.2")
    q0 = store.ask(room.code, room.secret, "choice", "which?", "t2", ["t1", "t2"])
    store.answer(room.code, early, q0, "t2")
    store.end_question(room.code, room.secret, reveal=True)
    late, _ = store.join(room.code, "10.0.0.3")  # after q0 closed
    q1 = store.ask(room.code, room.secret, "predict", "weights[0, 0]?", "0.5")
    during, _ = store.join(room.code, "10.0.0.4")  # while q1 is open: put to them, unanswered
    store.answer(room.code, late, q1, "0.5")
    store.ask(room.code, room.secret, "predict", "weights[1, 0]?", "0.25")
    names = {t: store.get(room.code).students[t].name for t in (early, late, during)}
    rows = [(r["question"], r["student"], r["answer"]) for r in store.results(room.code, room.secret)]
    e, la, du = names[early], names[late], names[during]
    assert rows == [(q0 + 1, e, "t2"),
                    (q1 + 1, e, None), (q1 + 1, la, "0.5"), (q1 + 1, du, None),
                    (q1 + 2, e, None), (q1 + 2, la, None), (q1 + 2, du, None)]  # fmt: skip


def test_the_results_have_no_row_for_a_question_asked_before_a_student_came() -> None:
    check_the_results_have_no_row_for_a_question_asked_before_a_student_came(RoomStore())


def test_a_closed_room_refuses_answers_and_keeps_its_results() -> None:
    check_a_closed_room_refuses_answers_and_keeps_its_results(RoomStore())


def test_a_prediction_is_graded_by_the_rule_the_pages_are_sent() -> None:
    check_a_prediction_is_graded_by_the_rule_the_pages_are_sent(RoomStore())


def test_a_rejoin_brings_back_the_students_own_answers() -> None:
    check_a_rejoin_brings_back_the_students_own_answers(RoomStore())


def asked_state_kept(store: RoomStore, other: RoomStore | None = None) -> None:
    """A question keeps the state it was asked on, its head and the cell its reveal outlines; ``moved`` (the teacher's
    state moved so that its answer now reads otherwise) is told to every page, and grading stays with the state
    asked. ``other``: a second replica of the same rooms, which reads what the first one wrote."""
    other = other or store
    room = store.open("10.0.0.1", dict(STATE))
    asked = {"query": {"preset": "statquest-mha2", "head_shown": "2"}, "body": {"kind": "predict", "head": 2}}
    about = {"head": 2, "mark": [["weights", 2, 1]], "asked": asked}
    qid = store.ask(room.code, room.secret, "predict", "Predict weights[t3, t2] (head 2)", "0.3213", None, None, about)
    token, _ = other.join(room.code, "10.0.0.2")
    other.answer(room.code, token, qid, "0.33")
    sent = json.loads(other.payload(room.code)[1])["question"]
    assert (sent["head"], sent["moved"], "mark" in sent) == (2, False, False)
    v = other.version(room.code)
    store.moved(room.code, room.secret, qid, True)
    assert other.version(room.code) > v  # (a change every follower is woken for)
    store.end_question(room.code, room.secret, reveal=True)
    sent = json.loads(other.payload(room.code)[1])["question"]
    assert (sent["right"], sent["moved"], sent["mark"]) == ("0.3213", True, {"mark": [["weights", 2, 1]], "head": 1})
    assert other.results(room.code, room.secret)[0]["correct"] is True  # graded against the state asked
    assert other.get(room.code).questions[qid].asked == asked
    store.ask(room.code, room.secret, "predict", "another?", "1")
    assert other.get(room.code).questions[qid].asked == {}  # (only the last one follows: the room's JSON stays small)
    with pytest.raises(RoomError) as e:
        other.moved(room.code, "not the secret", qid, False)
    assert e.value.status == 403


def test_a_question_keeps_its_state_its_head_and_says_when_the_teacher_moved_on() -> None:
    asked_state_kept(RoomStore())


@pytest.mark.parametrize(
    ("typed", "said"),
    [("0,32", "answer: '0,32' is not a number; write 0.32, with a point"),
     ("-1,5", "answer: '-1,5' is not a number; write -1.5, with a point"),
     ("abc", "answer: 'abc' is not a number"), ("1,2,3", "answer: '1,2,3' is not a number")],
)  # fmt: skip
def test_a_prediction_with_a_decimal_comma_is_refused_saying_how_to_write_it(typed: str, said: str) -> None:
    """A student writing 0,32 (a decimal comma) was told only "'0,32' is not a number"; the answer is not stored."""
    store = RoomStore()
    room = store.open("10.0.0.1", dict(STATE))
    token, _ = store.join(room.code, "10.0.0.2")
    qid = store.ask(room.code, room.secret, "predict", "weights[0, 0]?", "0.32")
    with pytest.raises(RoomError) as e:
        store.answer(room.code, token, qid, typed)
    assert (e.value.status, str(e.value)) == (400, said)
    assert store.own_answers(room.code, token) == {}
    if "with a point" in said:  # (written as it says, it is taken)
        pointed = typed.replace(",", ".")
        store.answer(room.code, token, qid, pointed)
        assert store.own_answers(room.code, token) == {str(qid): pointed}


def two_asks_at_once(store: RoomStore, other: RoomStore | None = None) -> None:
    """Two quiz asks at once (a double click on "Ask", two teacher tabs, or two replicas: ``other``): each draws its
    question by a count of its own, 0 and 1, and the room holds two different questions. (The route read the count
    from the room it had driven, outside the store's lock, so both drew question 0: on Redis each call's room is a
    copy.) The draw waits 0.2 s, so the second ask comes while the first draws."""
    _, room = opened(store)
    counts: list[int] = []
    seen: list[list[str]] = []  # the prompts asked before each draw, as the store read them
    started = threading.Event()

    def draw(n: int, asked: list[str]) -> tuple[str, str, str]:
        counts.append(n)
        seen.append(asked)
        started.set()
        time.sleep(0.2)
        return "predict", f"question drawn at count {n}", "1.5"

    def ask(s: RoomStore) -> int:
        if s is not store:
            started.wait(5)  # (the second ask once the first is drawing)
        return s.ask_drawn(room.code, room.secret, draw)

    with ThreadPoolExecutor(2) as pool:
        ids = list(pool.map(ask, [store, other or store]))
    assert sorted(counts) == [0, 1] and sorted(ids) == [0, 1], (counts, ids)
    prompts = [q.prompt for q in store.drive(room.code, room.secret).questions]
    assert len(set(prompts)) == 2, prompts
    assert sorted(seen, key=len) == [[], [prompts[0]]]  # (the second drew knowing the first's prompt)


def test_two_asks_at_once_draw_two_questions() -> None:
    two_asks_at_once(RoomStore())
