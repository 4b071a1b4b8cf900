"""sessions.SessionStore: pages' state held apart from gradio's session table, bounded, loaded pages dropped first."""

from __future__ import annotations

import threading
import uuid
from types import SimpleNamespace

import gradio as gr

import playground as pg
from serving.sessions import SessionStore, estimate_bytes
from ui import values, wiring
from ui.assets import NEWEST_JS
from ui.render.grids import with_cell


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def small(i: int) -> dict:
    return {"vals": {"x": {"data": [["t1", float(i)]], "headers": ["", "d1"]}}}


def test_values_merge_and_read_back() -> None:
    st = SessionStore()
    st.put("a", {"preset": "p", "vals": {"k": 1}}, used=False)
    st.put("a", {"vals": {"k": 2}}, used=True)
    assert st.get("a") == {"preset": "p", "vals": {"k": 2}}
    assert st.get("b") is None and st.get(None) is None and st.get("") is None
    st.put(None, {"vals": 1}, used=True)  # no session hash: nothing stored
    assert len(st) == 1


def test_loaded_pages_are_dropped_before_used_ones_oldest_first() -> None:
    st = SessionStore(max_entries=3)
    st.put("learner", small(0), used=True)
    for i in range(10):  # a script loading pages
        st.put(f"script{i}", small(i), used=False)
    assert st.get("learner") is not None  # not pushed out by ten loads
    assert [k for k in ("script7", "script8", "script9") if st.get(k)] == ["script8", "script9"]
    assert len(st) == 3
    st.put("learner2", small(1), used=True)
    st.put("learner3", small(2), used=True)
    st.put("learner4", small(3), used=True)  # only used entries left: the least recently used goes
    assert st.get("learner") is None and len(st) == 3


def test_reading_an_entry_keeps_it_recent() -> None:
    st = SessionStore(max_entries=2)
    st.put("a", small(0), used=True)
    st.put("b", small(1), used=True)
    st.get("a")
    st.put("c", small(2), used=True)
    assert st.get("a") is not None and st.get("b") is None


def test_the_byte_bound_holds_and_is_counted_back_on_every_drop() -> None:
    big = {"vals": {"x": {"data": [["t", *([0.5] * 1000)] for _ in range(10)]}}}  # ~10,000 cells, 10 rows
    size, _ = estimate_bytes(big)
    assert 10_000 * 40 <= size <= 10_000 * 40 + 50_000
    st = SessionStore(max_bytes=3 * size + 100)
    for i in range(10):
        st.put(f"s{i}", big, used=True)
        assert st.bytes <= 3 * size + 100
    assert len(st) == 3 and st.bytes == 3 * size
    st.drop("s9")
    assert st.bytes == 2 * size


def test_a_learner_idle_for_thirty_minutes_is_still_there_and_day_old_entries_go() -> None:
    clock = Clock()
    st = SessionStore(clock=clock)
    st.put("learner", small(0), used=True)
    clock.t += 30 * 60
    st.put("other", small(1), used=False)
    assert st.get("learner") is not None
    clock.t += 25 * 3600
    st.put("late", small(2), used=False)
    assert st.get("learner") is None and st.get("late") is not None


def test_concurrent_writers_keep_the_count_and_bytes_consistent() -> None:
    st = SessionStore(max_entries=50)

    def write(n: int) -> None:
        for i in range(200):
            st.put(f"{n}-{i % 80}", small(i), used=i % 2 == 0)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(st) == 50
    assert st.bytes == sum(estimate_bytes(e.values)[0] for e in st._entries.values())


def test_an_edit_is_weighed_by_what_it_changed_and_the_total_equals_a_fresh_count() -> None:
    """The store reuses the sizes of the tables an edit kept (the same objects) and weighs the one it made: the
    total after each edit is what counting everything anew gives, a long typed text included."""
    rows = [[f"t{r}", *([0.25] * 64)] for r in range(64)]
    vals = {"x": {"data": rows}, "W_q": {"data": [list(r) for r in rows]}}
    st = SessionStore()
    st.put("p", {"vals": vals}, used=True)
    for i, typed in enumerate([0.5, "1e-3" * 50, 0.75, "x" * 300]):
        vals = {**vals, "x": with_cell(vals["x"], i, i, typed)}
        st.put("p", {"vals": vals}, used=True)
        assert st.bytes == estimate_bytes({"vals": vals})[0]
    kept = st._entries["p"].sizes
    assert any(t is vals["W_q"]["data"] for t, _ in kept.values())  # the untouched table's count was kept
    # a known table's size is taken as known, not counted (a wrong one given on purpose shows it is used) ...
    table = [[0.0] * 100]
    assert estimate_bytes({"v": table}, {id(table): (table, 7)})[0] == estimate_bytes({})[0] + 7
    # ... and a table whose id is reused by another object is counted anew (the table is compared, not its id)
    other = [[0.0] * 100]
    assert estimate_bytes({"v": other}, {id(other): ([], 1)})[0] == estimate_bytes({"v": other})[0]


def test_a_table_held_twice_is_counted_once() -> None:
    """A look ahead (ui/live.py) holds the values it was computed on, the page's own values, and the next values,
    which share every table but one: each table weighs once, or a page that looked ahead would count three times."""
    rows = [[f"t{r}", *([0.25] * 64)] for r in range(64)]
    vals = {"x": {"data": rows}, "W_q": {"data": [list(r) for r in rows]}}
    nv = {**vals, "x": {"data": [list(r) for r in rows]}}
    alone, _ = estimate_bytes({"vals": vals})
    both, _ = estimate_bytes({"vals": vals, "ahead": {"base": vals, "nv": nv}})
    one_table = estimate_bytes({"t": rows})[0] - estimate_bytes({})[0]
    assert both - alone < one_table * 1.01  # only the table the look changed is new


def test_the_app_keeps_a_page_apart_from_gradio_and_a_refused_value_is_not_stored() -> None:
    """on_open fills the page's entry; a refused control value leaves it as it was; a good one is stored."""
    fns = {f.name: f for f in pg.demo.fns.values()}
    key = uuid.uuid4().hex
    request = SimpleNamespace(session_hash=key, headers={}, query_params={})
    fns["on_open"].fn(request, request)
    before = wiring.STORE.get(key)
    assert before is not None and before["preset"] == values.DEFAULT_PRESET
    control = next(  # (its first input is the call's number, the page's stamp: ui/workbench.py wire_workbench)
        f for f in pg.demo.fns.values() if f.name == "on_control" and str(f.inputs[1].label).startswith("temperature")
    )
    out = control.fn(1, "abc", request)
    assert "temperature" in str(out) and wiring.STORE.get(key)["vals"].temperature == before["vals"].temperature
    control.fn(3, 2.5, request)
    assert wiring.STORE.get(key)["vals"].temperature == 2.5
    assert control.fn(2, 1.5, request) == [gr.skip()] * len(control.outputs)  # an older call, come late
    assert wiring.STORE.get(key)["vals"].temperature == 2.5
    wiring.STORE.drop(key)


def test_a_stamped_handler_answers_only_the_newest_call_the_page_made() -> None:
    """``on(..., stamp=...)``: the page numbers each call as it leaves (ui/assets.py STAMPED); a call older than one
    that has come in is not answered (gr.skip for every output), whether it comes in after it or is still being
    computed when it does; an unnumbered call is always answered. An answer says the number of the call it answers
    (``<!--call n-->`` first): the page draws none older than the one it shows (static/newest.js)."""
    got: dict[str, object] = {}
    calls: list[str] = []
    key = str(uuid.uuid4())
    req = SimpleNamespace(session_hash=key)
    newer: list[threading.Thread] = []

    def trigger(fn: object, inputs: list[object], outputs: list[object], **kw: object) -> SimpleNamespace:
        got.update(fn=fn, inputs=inputs, js=kw["js"])
        after = {
            "then": lambda fn, **kw: got.update(then=kw["js"]),
            "failure": lambda fn, **kw: got.update(failure=kw["js"]),
        }
        return SimpleNamespace(**after)  # (gradio's Dependency)

    def lab(text: str) -> str:
        calls.append(text)
        if text == "slow":  # the page's next call comes in while this one computes
            newer.append(threading.Thread(target=got["fn"], args=(9, "newer", req)))
            newer[0].start()
            while not wiring.NEWEST.outdated(key, lab_name, 8):
                threading.Event().wait(0.005)
        return f"<p>{text}</p>"

    stamp, box, out = gr.Number(visible=False), gr.Textbox(), gr.HTML(js_on_load=NEWEST_JS)
    lab_name = f"{lab.__module__}.{lab.__qualname__}:{[id(out)]}"  # (a handler is known by its outputs too)
    wiring.on(trigger, lab, [box], [out], stamp=stamp)
    assert got["inputs"] == [stamp, box] and "m.stamp()" in str(got["js"]) and "liveIdle(m.eventLeft)" in str(got["js"])
    assert "m.eventLanded()" in str(got["then"]) and got["failure"] == got["then"]  # (page.js eventsLanded)
    answer = got["fn"]
    assert answer(2, "1ab", req) == "<!--call 2--><p>1ab</p>"
    assert answer(1, "1a", req) == gr.skip() and calls == ["1ab"]  # came in later, made earlier: not computed
    assert answer(8, "slow", req) == gr.skip()  # overtaken while it computed: its answer is not drawn
    newer[0].join()
    assert calls == ["1ab", "slow", "newer"]
    assert answer(10, "later", req) == "<!--call 10--><p>later</p>"
    assert answer(None, "plain", req) == "<p>plain</p>"  # (a page whose module failed to number it)


def test_a_numbered_answer_marks_only_the_values_of_views_newest_js_draws() -> None:
    """``<!--call n-->`` goes before the str value of a view static/newest.js draws only: updates (gr.skip,
    gr.update), other components' values and other HTML views' (the workbench's, numbered since stop 53 but drawn by
    watch.js) are left as they are, for one output or several, positional or by component."""
    html, box, plain = gr.HTML(js_on_load=NEWEST_JS), gr.Textbox(), gr.HTML()
    assert wiring.numbered(("<p>a</p>", "<p>b</p>"), 3, [html, plain]) == ("<!--call 3--><p>a</p>", "<p>b</p>")
    assert wiring.numbered(("<p>a</p>", "b"), 3, [html, box]) == ("<!--call 3--><p>a</p>", "b")
    assert wiring.numbered({html: "<p>a</p>", box: "b"}, 3, [html, box]) == {html: "<!--call 3--><p>a</p>", box: "b"}
    assert wiring.numbered(gr.skip(), 3, [html]) == gr.skip()
    assert wiring.numbered(gr.update(visible=False), 3, [html]) == gr.update(visible=False)
    assert wiring.numbered((gr.skip(), "<p>m</p>"), 3, [html, html]) == (gr.skip(), "<!--call 3--><p>m</p>")
    assert wiring.numbered("<p>a</p>", None, [html]) == "<p>a</p>"
