"""The room routes (ui/room.py) over HTTP, in process: 403 for anything without the teacher's secret, clear 404s
for wrong codes, the flood limit, the caps on answers, questions computed by the server, results as CSV."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from fastapi.testclient import TestClient
from harness import ROOT, free_port
from starlette.requests import Request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attention_core as ac
import playground
from serving import rooms as rm
from ui import room as ui_room
from ui.learn import hidden as learn_hidden
from ui.room import ROOMS
from ui.share import link_values
from ui.values import PageValues


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(playground.make_app()) as c:
        yield c


@pytest.fixture
def room(monkeypatch: pytest.MonkeyPatch) -> Iterator[rm.Room]:
    monkeypatch.setattr(ROOMS, "_wrong", type(ROOMS._wrong)())  # (each test its own wrong-code budget)
    opened = ROOMS.open("10.9.9.9", {"query": {"preset": "statquest-self"}, "tab": "Workbench", "stage": None})
    yield opened
    with ROOMS._lock:  # (its seat among the address's 5 open rooms given back)
        ROOMS._rooms.pop(opened.code, None)


def test_every_teacher_call_without_the_secret_is_a_403(client: TestClient, room: rm.Room) -> None:
    token = client.post(f"/room/{room.code}/join", json={}).json()["token"]
    near = room.secret[:-1] + ("y" if room.secret.endswith("x") else "x")  # one character off, never the secret
    for secret in (None, "", "wrong", token, near):
        headers = {} if secret is None else {"X-Room-Secret": secret}
        for action, body in (("view", {"tab": "Train"}), ("close", {}), ("ask", {"kind": "token", "row": 0}),
                             ("end", {"reveal": True})):  # fmt: skip
            r = client.post(f"/room/{room.code}/{action}", json=body, headers=headers)
            assert r.status_code == 403, (action, secret, r.text)
            assert "only the teacher" in r.json()["detail"]
        assert client.get(f"/room/{room.code}/results.csv", headers=headers).status_code == 403
        if secret:  # the teacher's stream too
            assert client.get(f"/room/{room.code}/events", headers=headers).status_code == 403
    assert room.state["tab"] == "Workbench" and not room.closed and not room.questions  # nothing changed
    ok = client.post(f"/room/{room.code}/view", json={"tab": "Train"}, headers={"X-Room-Secret": room.secret})
    assert ok.status_code == 200 and room.state["tab"] == "Train"


def test_the_views_projection_and_fill_are_checked_and_set_by_the_teacher_only(client: TestClient, room: rm.Room):
    """part (the Q, K, V stage's projection shown) and fill (a mask lab stage's fill convention): one of theirs or
    null, else a 400 naming the field; without the room's secret a 403; either way the room's state unchanged."""
    teacher = {"X-Room-Secret": room.secret}
    view = f"/room/{room.code}/view"
    ok = client.post(view, json={"tab": "Workbench", "stage": "qkv", "part": "k", "fill": None}, headers=teacher)
    assert ok.status_code == 200 and (room.state["part"], room.state["stage"], room.state["fill"]) == ("k", "qkv", None)
    version = room.version
    for body, field in (({"part": "x"}, "part"), ({"part": "K"}, "part"), ({"part": 1}, "part"),
                        ({"part": ["k"]}, "part"), ({"fill": "-1e8"}, "fill"), ({"fill": 3}, "fill"),
                        ({"fill": {"n": 1}}, "fill"), ({"part": "v", "fill": "inf"}, "fill")):  # fmt: skip
        r = client.post(view, json={"stage": "qkv", **body}, headers=teacher)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["detail"].startswith(f"{field}: ") and "is not one of" in r.json()["detail"], r.text
    assert room.state["part"] == "k" and room.state["fill"] is None and room.version == version  # nothing taken
    token = client.post(f"/room/{room.code}/join", json={}).json()["token"]
    for headers in ({}, {"X-Room-Secret": token}, {"X-Room-Secret": "wrong"}):
        r = client.post(view, json={"part": "v", "fill": "additive"}, headers=headers)
        assert r.status_code == 403 and "only the teacher" in r.json()["detail"], r.text
    assert room.state["part"] == "k" and room.state["fill"] is None and room.version == version
    for fill in ("-inf", "-1e9", "additive"):  # every fill convention the mask lab draws (mask_tables.FILL_TITLES)
        r = client.post(view, json={"tab": "Mask lab", "stage": None, "part": None, "fill": fill}, headers=teacher)
        assert r.status_code == 200 and room.state["fill"] == fill and room.state["part"] is None
    assert room.version == version + 3  # each a change the followers are woken for


def test_wrong_codes_get_a_clear_message_and_a_flood_a_429(client: TestClient, room: rm.Room) -> None:
    r = client.post("/room/0OIl1/join", json={})
    assert r.status_code == 404 and "not a room code" in r.json()["detail"]
    r = client.post("/room/ZZZZZZ/join", json={})
    assert r.status_code == 404 and "no room 'ZZZZZZ' is open" in r.json()["detail"]
    statuses = [client.post(f"/room/ZZZZZ{c}/join", json={}).status_code for c in rm.ALPHABET]
    assert statuses.count(404) == rm.MAX_WRONG - 2 and statuses[-1] == 429
    assert "wait a minute" in client.post(f"/room/{room.code}/join", json={}).json()["detail"]
    assert ROOMS.counts()["clients"] <= rm.MAX_CLIENTS


def test_answers_are_checked_capped_and_only_the_students_own(client: TestClient, room: rm.Room) -> None:
    teacher = {"X-Room-Secret": room.secret}
    a = client.post(f"/room/{room.code}/join", json={}).json()
    b = client.post(f"/room/{room.code}/join", json={"name": "Ada"}).json()
    assert a["name"] != b["name"] and b["display"] == "Ada" and "token" in a
    r = client.post(f"/room/{room.code}/join", json={"token": b["token"], "name": "x" * 25})
    assert r.status_code == 400 and "name: at most 24" in r.json()["detail"]
    q = client.post(f"/room/{room.code}/ask", json={"kind": "predict", "name": "weights", "row": 1, "col": 2},
                    headers=teacher).json()["question"]  # fmt: skip
    sc = ac.scenario_of("statquest-self")
    right = ac.compute(sc)["heads"][0]["weights"][1][2]  # the server's right answer, from the state itself
    assert float(room.questions[q].right) == pytest.approx(right, rel=1e-3)
    bad = {"answer": "1" * 41, "question": q, "token": a["token"]}
    r = client.post(f"/room/{room.code}/answer", json=bad)
    assert r.status_code == 400 and "between 1 and 40" in r.json()["detail"]
    r = client.post(f"/room/{room.code}/answer", json={**bad, "answer": "0.3", "token": "forged"})
    assert r.status_code == 403
    for tok, ans in ((a["token"], "0.1"), (a["token"], str(right)), (b["token"], "0.9")):
        assert client.post(f"/room/{room.code}/answer", json={"token": tok, "question": q, "answer": ans}).is_success
    assert len(room.questions[q].answers) == 2  # one per student: a's second answer replaced the first
    r = client.post(f"/room/{room.code}/ask", json={"kind": "predict", "name": "weights", "row": 9, "col": 0},
                    headers=teacher)  # fmt: skip
    assert r.status_code == 400 and "outside its table" in r.json()["detail"]
    client.post(f"/room/{room.code}/end", json={"reveal": True}, headers=teacher)
    csv = client.get(f"/room/{room.code}/results.csv", headers=teacher)
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    frame = pd.read_csv(io.StringIO(csv.text))
    assert list(frame.columns) == ui_room.RESULT_COLUMNS
    assert len(frame) == 2 and set(frame["student"]) == {a["name"], b["name"]}
    assert frame.set_index("student").loc[a["name"], "correct"] == True  # noqa: E712 (a numpy bool)
    assert frame.set_index("student").loc[b["name"], "display_name"] == "Ada"


def test_which_key_question_names_the_argmax_and_a_closed_room_refuses_joins(client: TestClient, room: rm.Room):
    teacher = {"X-Room-Secret": room.secret}
    q = client.post(f"/room/{room.code}/ask", json={"kind": "token", "row": 0}, headers=teacher).json()["question"]
    weights = ac.compute(ac.scenario_of("statquest-self"))["heads"][0]["weights"][0]
    best = max(range(len(weights)), key=weights.__getitem__)
    assert room.questions[q].right == room.questions[q].options[best]
    assert client.post(f"/room/{room.code}/close", json={}, headers=teacher).is_success
    r = client.post(f"/room/{room.code}/join", json={})
    assert r.status_code == 410 and "closed" in r.json()["detail"]


def test_the_join_address_is_the_spaces_or_the_classrooms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPACE_HOST", "someone-attention.hf.space")
    assert ui_room.join_base(None) == "https://someone-attention.hf.space/"
    monkeypatch.delenv("SPACE_HOST")
    monkeypatch.setenv("AP_CLASSROOM_URL", "http://192.168.1.20:7860")
    assert ui_room.join_base(None) == "http://192.168.1.20:7860/"
    svg = ui_room.qr_svg("http://192.168.1.20:7860/?room=ABCDEF")
    assert svg.startswith("<svg") and "<path" in svg


def test_the_classroom_command_listens_on_the_lan_and_prints_its_address_and_qr() -> None:
    port, lan = free_port(), rm.lan_address()
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("GRADIO_SERVER_NAME", None)
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen([sys.executable, "playground.py", "--classroom"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)  # fmt: skip
        try:
            deadline, status = time.monotonic() + 90, None
            while time.monotonic() < deadline and status is None and proc.poll() is None:
                try:  # reached by the LAN address, not only by the loopback
                    with urllib.request.urlopen(f"http://{lan}:{port}/", timeout=2) as r:
                        status = r.status
                except OSError:
                    time.sleep(0.5)
            log.seek(0)
            printed = log.read()
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    assert status == 200, printed[-2000:]
    assert f"students join at http://{lan}:{port}/" in printed
    assert "▄" in printed or "█" in printed  # the QR code, drawn in the terminal


def test_a_quiz_question_is_the_quiz_generators_multiple_choice(client: TestClient, room: rm.Room) -> None:
    teacher = {"X-Room-Secret": room.secret}
    r = client.post(f"/room/{room.code}/ask", json={"kind": "quiz", "index": 3}, headers=teacher)
    assert r.status_code == 200, r.text
    q = room.questions[r.json()["question"]]
    s = ac.parse(ac.scenario_of("statquest-self"))
    want = ac.quiz.ask(s, ac.evaluate(s), 4242, 3, "argmax")  # the generator's own draw
    assert q.kind == "choice" and q.prompt == want.prompt
    assert q.options == [f"{k} ({j + 1})" for j, k in enumerate(want.keys)] and q.right == q.options[want.answer[0]]
    weights = ac.evaluate(s).head(want.head)["weights"][want.row]
    assert int(weights.argmax()) == want.answer[0]  # and it is the key with the most weight, by torch


def test_a_quiz_question_without_an_index_draws_the_rooms_next(client: TestClient, room: rm.Room) -> None:
    """The page kept its own count of quiz questions (0, 1, …) and a lecturer's reload restarted it: the room asked
    draw 0 again. Without an index the server draws by the room's question count, which no reload restarts."""
    teacher = {"X-Room-Secret": room.secret}
    s = ac.parse(ac.scenario_of("statquest-self"))
    draws = [ac.quiz.ask(s, ac.evaluate(s), 4242, i, "argmax").prompt for i in range(3)]
    assert len(set(draws)) == 3, draws  # (three draws that read apart, so a repeat would show)
    for i in range(3):  # a reload between any two is the same: the page sends no count
        r = client.post(f"/room/{room.code}/ask", json={"kind": "quiz"}, headers=teacher)
        assert r.status_code == 200 and r.json()["question"] == i, r.text
        assert room.questions[i].prompt == draws[i] and room.questions[i].asked["body"]["index"] == i
    r = client.post(f"/room/{room.code}/ask", json={"kind": "quiz", "index": 0}, headers=teacher)
    assert room.questions[r.json()["question"]].prompt == draws[0]  # (an index named is still the one drawn)


def test_the_rooms_quiz_asks_every_question_its_state_has_before_one_comes_again(client: TestClient) -> None:
    """A lecturer's walk: question 5 was question 3 again (statquest-mha2: the generator's draws 0-4 give draw 2's
    prompt twice), with 6 to draw from (2 heads × 3 query rows). Drawn by the room's count, a quiz question is one not
    asked yet while there is one, then the one asked longest ago; the open one keeps the draw it took, which gives it
    back (the moved check draws it again)."""
    s = ac.parse(ac.scenario_of("statquest-mha2"))
    raw = [ac.quiz.ask(s, ac.evaluate(s), 4242, i, "argmax").prompt for i in range(5)]
    assert raw[4] == raw[2]  # (the generator alone repeats: what the room must not)
    distinct = {ac.quiz.ask(s, ac.evaluate(s), 4242, i, "argmax").prompt for i in range(200)}
    assert len(distinct) == 6
    room = ROOMS.open("10.9.9.8", {"query": {"preset": "statquest-mha2"}, "tab": "Workbench", "stage": None})
    teacher = {"X-Room-Secret": room.secret}
    try:
        for _ in range(9):
            r = client.post(f"/room/{room.code}/ask", json={"kind": "quiz"}, headers=teacher)
            assert r.status_code == 200, r.text
        prompts = [q.prompt for q in room.questions]
        assert set(prompts[:6]) == distinct  # every one before any comes again
        assert prompts[6:] == prompts[:3]  # then the one asked longest ago (never the last again)
        for _ in range(2):  # the open question's index is the draw it took: drawn again, the same question
            q = room.questions[-1]
            assert ac.quiz.ask(s, ac.evaluate(s), 4242, q.asked["body"]["index"], "argmax").prompt == q.prompt
            client.post(f"/room/{room.code}/ask", json={"kind": "quiz"}, headers=teacher)
    finally:
        with ROOMS._lock:
            ROOMS._rooms.pop(room.code, None)


def test_wrong_codes_on_the_teachers_routes_count_against_the_flood_limit(client: TestClient, room: rm.Room) -> None:
    """A script guessing codes through a teacher's route (404 for no room, 403 for a room) learns which codes are
    open as well as through join: it counts against the same budget."""
    statuses = []
    for i, c in enumerate(rm.ALPHABET):
        action = ("close", "view", "end", "results.csv", "events")[i % 5]
        url, guess = f"/room/ZZZZZ{c}/{action}", {"X-Room-Secret": "guess"}
        got = (
            client.get(url, headers=guess)
            if action in ("results.csv", "events")
            else client.post(url, json={}, headers=guess)
        )
        statuses.append(got.status_code)
    assert statuses.count(404) == rm.MAX_WRONG and statuses[-1] == 429, statuses
    assert "wait a minute" in client.post(f"/room/{room.code}/join", json={}).json()["detail"]


def test_names_refuse_control_characters_and_the_csv_quotes_what_a_spreadsheet_would_run(
    client: TestClient, room: rm.Room
) -> None:
    for bad in ("Ada\u202eevil", "nul\x00", "zero\u200bwidth"):
        r = client.post(f"/room/{room.code}/join", json={"name": bad})
        assert r.status_code == 400 and "name: " in r.json()["detail"] and "character" in r.json()["detail"], r.text
    formula = '=HYPERLINK("http://x")'
    a = client.post(f"/room/{room.code}/join", json={"name": formula}).json()
    assert a["display"] == formula  # the name is kept as typed
    teacher = {"X-Room-Secret": room.secret}
    client.post(f"/room/{room.code}/ask", json={"kind": "predict", "name": "weights", "row": 0, "col": 0},
                headers=teacher)  # fmt: skip
    client.post(f"/room/{room.code}/answer", json={"token": a["token"], "question": 0, "answer": "-0.5"})
    frame = pd.read_csv(io.StringIO(client.get(f"/room/{room.code}/results.csv", headers=teacher).text))
    row = frame.set_index("student").loc[a["name"]]
    assert row["display_name"] == "'" + formula  # a spreadsheet shows it as text, never runs it
    assert float(row["answer"]) == -0.5  # a number stays a number


def test_the_teachers_histogram_updates_nothing_but_itself() -> None:
    """Every answer redraws the teacher's histogram. An event whose outputs were the whole page (the grids too) put
    every grid in gradio's pending state while it ran, so a teacher's cell editor opened at that moment was lost
    (the teacher's reload in test_room_journey, flaky). The chart is an event of its own, its outputs the chart and
    the room element only."""
    ids = {getattr(b, "elem_id", None): i for i, b in playground.demo.blocks.items()}
    room, plot = ids["room"], ids["room-plot"]
    deps = playground.demo.config["dependencies"]
    chart = [d for d in deps if [room, "select"] in [list(t) for t in d["targets"]]]
    assert len(chart) == 1 and set(chart[0]["outputs"]) == {room, plot}, chart
    click = [d for d in deps if [room, "click"] in [list(t) for t in d["targets"]]]
    assert len(click) == 1 and len(click[0]["outputs"]) > 10  # open, follow and resume answer the whole page


def test_one_address_cannot_take_every_seat_of_a_rooms_streams(room: rm.Room, monkeypatch: pytest.MonkeyPatch) -> None:
    """A script on one address opening event streams until the room's 1,200 are taken would lock every real
    student out: one address holds at most MAX_STREAMS_PER_CLIENT of them (a 429 naming the cap), others still get
    theirs."""
    monkeypatch.setattr(rm, "MAX_STREAMS_PER_CLIENT", 3, raising=False)

    def request(host: str) -> Request:
        scope = {"type": "http", "method": "GET", "path": f"/room/{room.code}/events", "headers": [],
                 "query_string": b"", "client": (host, 5000), "path_params": {"code": room.code}}  # fmt: skip
        return Request(scope)

    async def scenario() -> tuple[list[int], int, str, int]:
        open_ = []
        for _ in range(3):
            r = await ui_room.events(request("10.1.1.1"))
            await r.body_iterator.__anext__()  # the stream started: its first payload
            open_.append(r)
        fourth = await ui_room.events(request("10.1.1.1"))
        other = await ui_room.events(request("10.2.2.2"))
        for r in open_:
            await r.body_iterator.aclose()
        return (
            [r.status_code for r in open_],
            fourth.status_code,
            getattr(fourth, "body", b"").decode(),
            other.status_code,
        )

    statuses, fourth, detail, other = asyncio.run(scenario())
    assert statuses == [200, 200, 200] and other == 200
    assert fourth == 429 and "3 pages from this address" in detail, detail
    assert room.code not in ui_room.STREAMS and (room.code, "10.1.1.1") not in ui_room.STREAMS_FROM  # given back


def test_a_question_tells_every_page_what_to_hide_and_never_the_number(client: TestClient, room: rm.Room) -> None:
    """A predicted weight hides its query's row of weights, output and combine on every page (1 − the rest of the row,
    or weights · V, gives it back), until the reveal; what is sent names cells, never a value (issue 37, item 8)."""
    teacher = {"X-Room-Secret": room.secret}
    body = {"kind": "predict", "name": "weights", "row": 1, "col": 0}
    qid = client.post(f"/room/{room.code}/ask", json=body, headers=teacher).json()["question"]
    sent = room.public()["question"]
    assert sent["hide"]["cells"] == [["weights", 1, None], ["output", 1, None], ["combine", 1, None]]
    assert ["hm-weights", 1, None] in sent["hide"]["heat"] and "weights" in sent["hide"]["prints"]
    right = room.questions[qid].right
    assert right not in str(sent["hide"]) and "right" not in sent
    q = client.post(f"/room/{room.code}/ask", json={"kind": "token", "row": 2}, headers=teacher).json()["question"]
    rows = room.public()["question"]["hide"]["cells"]
    # (the asked query's output and heads-combined rows too: they point at the key it weighs most, misc2's 3c5e1e6)
    hidden_rows = ["scores", "scaled", "masked", "weights", "output", "combine"]
    assert [n for n, r, c in rows if r == 2 and c is None] == hidden_rows
    client.post(f"/room/{room.code}/end", json={"reveal": True}, headers=teacher)
    assert "hide" not in room.public()["question"] and room.public()["question"]["id"] == q  # revealed: nothing hidden


def test_a_predicted_score_hides_it_where_later_steps_show_it_again() -> None:
    """scaled and masked are the score divided: the same cell of each is hidden, and the weights' row, whose
    explanation prints it, explains nothing while the question is open."""
    got = learn_hidden("number", "scores", 0, 2, 1)
    assert got["cells"] == [["scores", 2, 1], ["scaled", 2, 1], ["masked", 2, 1]]
    assert ["weights", 2] in got["explain"] and got["heat"] == [["hm-masked", 2, 1]]


def test_the_join_card_says_when_its_address_is_this_computers_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain local run's join address (127.0.0.1) reaches no student's device: the card is told the classroom
    command and the LAN address; a server listening on every interface gives the LAN address itself."""
    monkeypatch.delenv("SPACE_HOST", raising=False)
    monkeypatch.delenv("AP_CLASSROOM_URL", raising=False)
    monkeypatch.delenv("GRADIO_SERVER_NAME", raising=False)
    monkeypatch.setattr(rm, "lan_address", lambda: "192.168.1.20")
    local = Request({"type": "http", "headers": [(b"host", b"127.0.0.1:7931")]})
    assert ui_room.join_base(local) == "http://127.0.0.1:7931/"
    assert ui_room.local_only("http://127.0.0.1:7931/") == {"command": "python3 playground.py --classroom",
                                                          "lan": "http://192.168.1.20:7931/"}  # fmt: skip
    assert ui_room.local_only("http://192.168.1.20:7931/") is None
    assert ui_room.local_only("https://someone-attention.hf.space/") is None
    monkeypatch.setattr(rm, "lan_address", lambda: "127.0.0.1")  # no network: the command alone
    assert ui_room.local_only("http://localhost:7860/")["lan"] == ""
    monkeypatch.setattr(rm, "lan_address", lambda: "192.168.1.20")
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    assert ui_room.join_base(local) == "http://192.168.1.20:7931/"


def mha2(head: int = 2, causal: bool = True, x_k_t2_d1: float | None = None) -> tuple[str | None, PageValues]:
    """statquest-mha2 as the teacher's page holds it: head ``head`` shown, a causal mask, x_k[t2, d1] edited."""
    pid, _, nv, _ = link_values({"preset": "statquest-mha2", "head_shown": str(head)})
    nv = dataclasses.replace(nv, mask_kind="causal" if causal else nv.mask_kind)
    if x_k_t2_d1 is not None:
        x_k = copy.deepcopy(nv.x_k)
        x_k["data"][1][1] = x_k_t2_d1  # (row t2; column 0 is the token's label)
        nv = dataclasses.replace(nv, x_k=x_k)
    return pid, nv


def test_an_answer_is_of_the_state_asked_and_every_page_is_told_when_the_teacher_moved_on(
    client: TestClient, room: rm.Room, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reviewer's walk: weights[t3, t2] of head 2 (0.3213) asked, then x_k[t2, d1] = 3 (the cell now 0.5600) and
    Reveal: every page said "Right answer: 0.3213" beside a cell reading 0.5600, with nothing said. The question
    keeps the state it was asked on; a move away that changes its answer is said (``moved``), a head shown changed
    alone is not; grading and the CSV stay with the state asked; the reveal outlines the asked cell in its head."""
    teacher = {"X-Room-Secret": room.secret}
    monkeypatch.setitem(ui_room.TEACHING, "teacher-page", (room.code, room.secret))
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(), strict=True)))
    body = {"kind": "predict", "name": "weights", "row": 2, "col": 1}  # (the head shown: 2)
    client.post(f"/room/{room.code}/ask", json=body, headers=teacher)
    token = client.post(f"/room/{room.code}/join", json={}).json()["token"]
    client.post(f"/room/{room.code}/answer", json={"token": token, "question": 0, "answer": "0.33"})
    sent = room.public()["question"]
    assert (sent["prompt"], sent["head"], sent["moved"]) == ("Predict weights[t3, t2] (head 2)", 2, False)
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(head=1), strict=True)))
    assert room.public()["question"]["moved"] is False  # another head shown: the asked number is the same
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(x_k_t2_d1=3.0), strict=True)))
    assert room.public()["question"]["moved"] is True
    assert json.loads(ROOMS.payload(room.code)[1])["question"]["moved"] is True  # (every follower's page)
    client.post(f"/room/{room.code}/end", json={"reveal": True}, headers=teacher)
    sent = room.public()["question"]
    assert (sent["right"], sent["moved"]) == ("0.3213499", True)  # (exact, as the cell's title: the table reads 0.3213)
    assert sent["mark"] == {"mark": [["weights", 2, 1]], "head": 1}  # (a hide.js spec: head 0-based)
    rows = client.get(f"/room/{room.code}/results.csv", headers=teacher).text
    assert pd.read_csv(io.StringIO(rows)).loc[0, ["right_answer", "correct"]].tolist() == [0.3213499, True]
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(), strict=True)))  # back as asked
    assert room.public()["question"]["moved"] is False


def test_a_busy_store_does_not_stop_a_teacher_publishing_but_a_closed_room_does(
    client: TestClient, room: rm.Room, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A RoomError of a passing kind (503: the store busy) while publishing dropped the teacher's page from TEACHING
    for good, and nobody was told: the class stopped following. Only a closed, gone or foreign room ends it; and a
    closed room takes no new question (a second tab of the teacher's asked into a closed room)."""
    monkeypatch.setitem(ui_room.TEACHING, "teacher-page", (room.code, room.secret))
    real = ROOMS.set_state

    def busy(*a: object) -> int:
        raise rm.RoomError(503, "room store: busy, try again")

    monkeypatch.setattr(ROOMS, "set_state", busy)
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(), strict=True)))
    assert ui_room.TEACHING.get("teacher-page") == (room.code, room.secret)
    monkeypatch.setattr(ROOMS, "set_state", real)
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(), strict=True)))
    assert room.state["query"] == ui_room.room_query(*mha2())  # (published, once the store answers)
    teacher = {"X-Room-Secret": room.secret}
    client.post(f"/room/{room.code}/close", json={}, headers=teacher)
    got = client.post(f"/room/{room.code}/ask", json={"kind": "quiz", "index": 0}, headers=teacher)
    assert (got.status_code, got.json()["detail"]) == (410, "room: this room is closed")
    ui_room.publish("teacher-page", dict(zip(("preset", "vals"), mha2(head=1), strict=True)))
    assert "teacher-page" not in ui_room.TEACHING
