"""Live edits: the page's grid edits go straight to ``ui.live.live_edit`` (gradio's component_server route).

In process: what ``live_answer`` stores and answers for good, bad and hostile edits, against plain torch; over
HTTP: the route with no session, another function's name, and an oversize body.
"""

from __future__ import annotations

import html
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
import torch
from fastapi.testclient import TestClient

import attention_core as ac
import playground
from ui import live, pipeline, values, wiring
from ui.edits import edit_result


@pytest.fixture
def session() -> Iterator[str]:
    """A page that loaded the default preset (its values in the server's store, as its load event leaves them)."""
    key = uuid.uuid4().hex
    shape, nv, _ = pipeline.load_values(values.DEFAULT_PRESET)
    wiring.STORE.put(key, {"preset": values.DEFAULT_PRESET, "shape": shape, "vals": nv}, used=False)
    yield key
    wiring.STORE.drop(key)


def cell(table: str, row: int, col: int, value: Any) -> dict[str, Any]:
    return {"kind": "cell", "table": table, "row": row, "col": col, "value": value}


def stored_x(key: str) -> list[list[Any]]:
    return [r[1:] for r in wiring.STORE.get(key)["vals"].x["data"]]


def reference_output(x: torch.Tensor) -> torch.Tensor:
    """The default preset (StatQuest self-attention, 000) by plain torch ops: nn.Linear layout, scale √d_k."""
    w = ac.parse(ac.get_preset(values.DEFAULT_PRESET).scenario).weights
    q, k, v = (x @ m[0].T for m in (w.W_q, w.W_k, w.W_v))
    return torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1) @ v


def test_a_scrub_value_is_stored_and_answered_with_the_first_screen_only(session: str) -> None:
    """While a value is dragged (static/scrub.js) each value is stored, and only the first screen's views come back;
    the drag's last value, sent again as a plain edit, brings every view."""
    ans = live.live_answer(session, {**cell("x", 0, 0, "1.76"), "scrub": True})
    assert set(ans["views"]) == {"badge", "message", "overview", "explain"}
    assert stored_x(session)[0][0] == 1.76
    want = reference_output(torch.tensor(stored_x(session), dtype=torch.float32))
    overview = html.unescape(ans["views"]["overview"]["value"])
    table = overview.split("data-name='output'")[1].split("</table>")[0]
    shown = [float(t.split("'")[0]) for t in table.split("title='")[1:]]
    torch.testing.assert_close(torch.tensor(shown).reshape(want.shape), want)
    full = live.live_answer(session, cell("x", 0, 0, "1.76"))
    assert set(full["views"]) == set(live.VIEW_IDS.values())
    assert full["views"]["overview"] == ans["views"]["overview"]  # the same first screen, and the notebook too


def look(table: str, row: int, col: int, value: Any) -> dict[str, Any]:
    """A look ahead: the value still being typed (grid.js)."""
    return {**cell(table, row, col, value), "look": True}


def test_a_look_ahead_answers_as_its_commit_would_and_keeps_no_value(session: str) -> None:
    """While a value is typed the page asks for its views (grid.js's look): the answer is the commit's own, for every
    view, and the session's values stay the very ones they were (Escape must find nothing to undo)."""
    before = wiring.STORE.get(session)["vals"]
    ans = live.live_answer(session, look("x", 0, 0, "2"))
    assert wiring.STORE.get(session)["vals"] is before
    key = uuid.uuid4().hex  # the same edit committed on a page that never looked
    wiring.STORE.put(key, {**wiring.STORE.get(session), "ahead": None}, used=False)
    try:
        assert ans == live.live_answer(key, cell("x", 0, 0, "2"))
    finally:
        wiring.STORE.drop(key)
    out = html.unescape(ans["views"]["html-output"]["value"]).split("<pre class='tensor'>")[1].split("</pre>")[0]
    x = torch.tensor([[2.0, *stored_x(session)[0][1:]], *stored_x(session)[1:]])
    assert out == str(reference_output(x))


def test_the_commit_of_a_looked_value_takes_the_look(session: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Committing the value looked at stores it without computing again, and a page that drew the look's answer
    (``seen``) is answered that it is the same; the stored values equal a plain commit's."""
    looked = live.live_answer(session, look("x", 0, 0, "2"))
    computed = []
    monkeypatch.setattr(live, "edit_result", lambda *a, **kw: computed.append(a) or pytest.fail("computed again"))
    assert live.live_answer(session, {**cell("x", 0, 0, "2"), "seen": True}) == {"views": {}, "same": True}
    assert stored_x(session)[0][0] == 2.0 and not computed
    assert wiring.STORE.get(session)["ahead"] is None  # used once
    assert set(looked["views"]) == set(live.VIEW_IDS.values())  # (what the page drew: every view)


def queued_edit(key: str) -> None:
    """What a queued event of the page does to its values (wiring.on): new values stored, no look dropped."""
    entry = wiring.STORE.get(key)
    vals, _, _ = edit_result("cell", entry["preset"], entry["vals"], cell("x", 1, 0, "3"))
    wiring.STORE.put(key, {"vals": vals}, used=True)


@pytest.mark.parametrize(
    "between",
    [
        lambda key: live.live_answer(key, cell("x", 1, 0, "3")),
        queued_edit,
        lambda key: live.live_answer(key, look("x", 0, 0, "4")),
    ],
    ids=["a live edit came first", "a queued event came first", "a newer look"],
)
def test_a_look_is_not_used_for_other_values_or_another_value(session: str, between: Callable[[str], Any]) -> None:
    """A look is used only by the commit of its own value on the values it was computed for: after another edit,
    or for another value, the commit computes its views (and the page, told nothing is the same, draws them)."""
    live.live_answer(session, look("x", 0, 0, "2"))
    between(session)
    ans = live.live_answer(session, {**cell("x", 0, 0, "2"), "seen": True})
    assert "same" not in ans and set(ans["views"]) == set(live.VIEW_IDS.values())
    x = torch.tensor(stored_x(session), dtype=torch.float32)
    assert x[0, 0] == 2.0
    out = html.unescape(ans["views"]["html-output"]["value"]).split("<pre class='tensor'>")[1].split("</pre>")[0]
    assert out == str(reference_output(x))


def test_a_refused_look_stores_nothing_and_its_commit_is_refused_alike(session: str) -> None:
    before = wiring.STORE.get(session)["vals"]
    ans = live.live_answer(session, look("x", 0, 0, "1e39"))  # past float32: refused, naming the cell
    assert list(ans["views"]) == ["message"] and "x row 1, column 1" in ans["views"]["message"]["value"]
    assert live.live_answer(session, cell("x", 0, 0, "1e39")) == ans
    assert wiring.STORE.get(session)["vals"] is before


def test_a_look_is_answered_busy_at_once_when_no_core_is_free(session: str) -> None:
    """Looks only use a free core: with both live slots taken a look is told busy at once (the page then commits
    as it always did), while an edit still waits for its turn."""

    async def taken() -> tuple[dict[str, Any], dict[str, Any]]:
        holders = [object(), object()]
        for h in holders:
            await live.LIVE_SLOTS.acquire_on_behalf_of(h)
        try:
            with anyio.fail_after(2):  # (at once: a look that waited for a slot would fail here)
                told = await live.answer(session, look("x", 0, 0, "2"))
            with anyio.move_on_after(0.3):
                await live.answer(session, cell("x", 0, 0, "2"))
                pytest.fail("an edit went past two taken slots")
            return told, wiring.STORE.get(session)
        finally:
            for h in holders:
                live.LIVE_SLOTS.release_on_behalf_of(h)

    told, entry = anyio.run(taken)
    assert told == {"busy": True}
    assert entry.get("ahead") is None and stored_x(session)[0][0] != 2.0


def test_looks_sent_together_never_wait_for_a_slot(session: str) -> None:
    """Three looks at the same moment with one slot free: one takes it, the other two are told busy at once (a
    look that queued for a slot would hold back the commits behind it, and the Enter waiting for it)."""

    async def together() -> list[Any]:
        holder = object()
        await live.LIVE_SLOTS.acquire_on_behalf_of(holder)
        got: list[Any] = [None] * 3
        try:
            with anyio.fail_after(5):
                async with anyio.create_task_group() as tg:
                    for i in range(3):

                        async def one(i: int = i) -> None:
                            got[i] = await live.answer(session, look("x", 0, 0, str(2 + i)))

                        tg.start_soon(one)
        finally:
            live.LIVE_SLOTS.release_on_behalf_of(holder)
        return got

    got = anyio.run(together)
    assert sum(a == {"busy": True} for a in got) == 2
    assert sum("views" in a for a in got) == 1


def test_an_edit_is_stored_and_answered_with_every_view(session: str) -> None:
    ans = live.live_answer(session, cell("x", 0, 0, "2"))
    assert set(ans["views"]) == set(live.VIEW_IDS.values())  # every view, by the id of its component
    assert ans["grid"] is None  # the grid already shows what was typed
    assert stored_x(session)[0][0] == 2.0
    x = torch.tensor(stored_x(session), dtype=torch.float32)
    want = reference_output(x)
    printed = html.unescape(ans["views"]["html-output"]["value"]).split("<pre class='tensor'>")[1].split("</pre>")[0]
    assert printed == str(want)  # torch's own print of the plain-torch output, at its printed precision
    assert ans["views"]["heads-fig"] == {"visible": False}  # one head: the every-head figure hides


def test_a_refused_value_names_the_cell_and_stores_nothing(session: str) -> None:
    before = wiring.STORE.get(session)["vals"]
    ans = live.live_answer(session, cell("x", 1, 0, "1,5x"))
    assert list(ans["views"]) == ["message"]
    assert "x" in html.unescape(ans["views"]["message"]["value"]) and "row 2" in ans["views"]["message"]["value"]
    assert wiring.STORE.get(session)["vals"] is before


@pytest.mark.parametrize(
    "data",
    [None, "x", [], {"kind": "drop table"}, {"kind": "cell"}, cell("secrets", 0, 0, 1), cell("x", -1, 0, 1),
     cell("x", 0, 10**9, 1), cell("x", True, 0, 1), cell("x", 0, 0, float("nan")), cell("x", 0, 0, "1e999"),
     {"kind": "paste", "table": "x", "row": 0, "col": 0, "text": "1\tabc\n2\t3"}],
)  # fmt: skip
def test_hostile_edits_get_a_message_and_store_nothing(session: str, data: Any) -> None:
    before = wiring.STORE.get(session)["vals"]
    ans = live.live_answer(session, data)
    assert list(ans["views"]) == ["message"] and "msg-error" in ans["views"]["message"]["value"]
    assert wiring.STORE.get(session)["vals"] is before


def test_a_page_the_server_holds_nothing_for_is_told_so_and_nothing_is_made() -> None:
    key = uuid.uuid4().hex
    ans = live.live_answer(key, cell("x", 0, 0, 1))
    assert "holds no state" in ans["views"]["message"]["value"]
    assert wiring.STORE.get(key) is None


def test_a_paste_answers_with_the_new_grid(session: str) -> None:
    ans = live.live_answer(session, {"kind": "paste", "table": "x", "row": 1, "col": 0, "text": "tensor([[7., 8.]])"})
    assert stored_x(session)[1] == [7.0, 8.0]
    assert "data-r='1' data-c='0' tabindex='-1'>7.0</td>" in ans["grid"]


def test_edits_of_one_page_at_once_are_all_kept(session: str) -> None:
    """Many edits of one page at the same time, as fast typing over a slow link could send: none overwrites
    another's values (the session's lock), whatever order they ran in."""
    x = stored_x(session)
    jobs = [cell("x", r, c, 10 * r + c + 0.5) for r in range(len(x)) for c in range(len(x[0]))]
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda d: live.live_answer(session, d), jobs))
    assert stored_x(session) == [[10 * r + c + 0.5 for c in range(len(x[0]))] for r in range(len(x))]


def test_the_route_answers_bad_calls_without_a_traceback(app_url: str) -> None:
    """Over HTTP: a session the server does not know, a function that is not a server function, an oversize body."""
    with httpx.Client(base_url=app_url, timeout=30) as client:
        inputs = next(c["id"] for c in client.get("config", params={"page": ""}).json()["components"]
                      if c["props"].get("elem_id") == "inputs")  # fmt: skip
        body = {"data": cell("x", 0, 0, 1), "component_id": inputs, "fn_name": "live_edit", "session_hash": "nobody"}
        r = client.post("gradio_api/component_server", json=body)
        assert r.status_code == 200 and "holds no state" in r.json()["views"]["message"]["value"]
        r = client.post("gradio_api/component_server", json={**body, "fn_name": "postprocess"})
        assert r.status_code == 404 and "Traceback" not in r.text
        big = {**body, "data": cell("x", 0, 0, "1" * (4 * 2**20))}
        r = client.post("gradio_api/component_server", json=big)
        assert r.status_code == 413
        assert client.get("monitoring/summary").status_code == 403  # monitoring is off


def test_the_page_has_one_server_function_the_live_route_answers() -> None:
    """The live route answers the page's component_server path for ``live_edit`` of the grid alone (ui/live.py), so
    no other component of the page may have a server function: it would be answered 404 instead of by gradio."""
    blocks = playground.demo.blocks.values()
    fns = {b.elem_id: [f.__name__ for f in b.server_fns] for b in blocks if getattr(b, "server_fns", None)}
    assert fns == {"inputs": ["live_edit"]}


def test_a_live_edit_never_touches_gradios_session_table(session: str) -> None:
    """gradio's own component_server route looks the session up in its table (8 sessions) and rebuilds an evicted
    one on the event loop (~15 ms and a full GC's worth of objects per edit past 8 learners: issue 25). The app's
    route answers from STORE alone: many edits of pages gradio never saw leave its table empty."""

    client = TestClient(playground.make_app())
    inputs = next(b._id for b in playground.demo.blocks.values() if b.elem_id == "inputs")
    before = set(playground.demo.state_holder.session_data)
    body = {"data": cell("x", 0, 0, 2.5), "component_id": inputs, "fn_name": "live_edit", "session_hash": session}
    for value in (2.5, 3.5, 4.5):
        r = client.post("/gradio_api/component_server/", json={**body, "data": cell("x", 0, 0, value)})
        assert r.status_code == 200 and "html-output" in r.json()["views"]
        assert stored_x(session)[0][0] == value
    assert set(playground.demo.state_holder.session_data) == before  # no session made, none evicted
    r = client.post("/gradio_api/component_server", json={**body, "component_id": inputs + 1})
    assert r.status_code == 404 and r.json() == {"detail": "Function not found."}
    r = client.post("/gradio_api/component_server", content=b"{not json")
    assert r.status_code == 400 and "JSON" in r.json()["detail"]
