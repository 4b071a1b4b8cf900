"""A drawn view's numbers as data, from the renderers (ui/render/slots.py): for every preset the drawn views' HTML is
the views' HTML, an edit keeps every skeleton's key, and the data an edit sends is what an independent parser
(tests/slot_reader.py) reads in the new HTML's nodes; written into the old view's nodes it gives exactly the new
view's nodes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from slot_reader import as_data, filled, parsed, read

import attention_core as ac
from serving.sessions import estimate_bytes
from ui import live, pipeline
from ui.edits import edit_result
from ui.render import heat, slots
from ui.render import tables as vw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench import case_values

EDIT = {"table": "x", "row": 0, "col": 0, "value": "0.37"}


def values(got: dict[str, Any]) -> dict[str, Any]:
    """The views' values (an update's value), by view key."""
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in got.items()}


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_an_edit_keeps_every_skeleton_and_its_data_is_what_the_new_nodes_hold(preset: str) -> None:
    _, vals, _ = pipeline.load_values(preset)
    before = values(pipeline.compute_views(preset, vals, drawn=True))
    nv, now, _ = edit_result("cell", preset, vals, EDIT, drawn=True)
    assert nv is not None, now
    after, as_html = values(now), values(pipeline.compute_views(preset, nv))
    drawn = {k for k, v in after.items() if isinstance(v, slots.Drawn)}
    assert drawn == {k for k in pipeline.DRAWN_KEYS if isinstance(as_html.get(k), str)}
    assert {"overview", "fig", "html_weights"} <= drawn
    for k in drawn:
        new = after[k].html()
        assert new == as_html[k], k  # the drawn view is the view
        assert "\x00" not in new, k
        assert before[k].key == after[k].key, k  # an edit of a value keeps the skeleton
        data = after[k].data()
        assert data == as_data(read(new)), k  # what the page's nodes must hold, read independently
        assert filled(before[k].html(), data) == parsed(new), k
    assert not any("\x00" in v for v in as_html.values() if isinstance(v, str))


def test_the_large_case_sends_the_tables_numbers_as_data() -> None:
    """T=64, d=64, 8 heads (benchmarks/bench.py's large case): the overview's output table's first cell, and the
    count of number cells and prints, as data."""
    preset, vals = case_values("large")
    got = values(pipeline.compute_views(preset, vals, drawn=True))
    view = got["overview"]
    data, whole = view.data(), view.html()
    assert data is not None and len(view.key) == 16
    assert len(data["cls"]) == whole.count(" data-r='") > 1000  # (every number cell of the page's first screen)
    first = whole.split("data-name='output'")[1].split("<td class='")[1]
    n = whole.split("data-name='output'")[0].count(" data-r='")  # the output's first cell among the number cells
    assert data["text"].split(" ")[n] == first.split("'>")[1].split("<")[0]
    assert data["title"].split(" ")[n] == first.split("title='")[1].split("'")[0]
    notebook = got["html_qkv"].data()
    assert notebook is not None and notebook["title"] == "" and len(notebook["pre"]) == 1
    assert notebook["pre"][0].startswith("q = tensor([[")


def test_another_skeleton_has_another_key_and_the_page_then_gets_the_html() -> None:
    """Another row label, window or caption is another skeleton; other values in the same shape are not. A page
    showing the key is sent the cells; any other page, the HTML and its key."""
    t = torch.tensor([[1.5, -2.0], [0.25, 3.0]])

    def drawn(x: torch.Tensor, rows: tuple[str, ...] = ("a", "b"), title: str = "scores", short: bool = True) -> Any:
        with slots.collecting() as held:
            text = f"<h3>{title}</h3>" + vw.html_table(x, "float32", list(rows), ["c1", "c2"], "scores", short=short)
        return slots.Drawn(text, held)

    base = drawn(t)
    assert drawn(t * 3).key == base.key and drawn(t * 3).data() != base.data()
    for other in (drawn(t, rows=("a", "z")), drawn(t, title="scaled"), drawn(t, short=False)):
        assert other.key != base.key
    assert slots.answer(drawn(t * 3), base.key) == {"key": base.key, "cells": drawn(t * 3).data()}
    assert slots.answer(drawn(t), None) == {"value": base.html(), "key": base.key}
    assert slots.answer(drawn(t), "another") == {"value": base.html(), "key": base.key}
    assert vw.html_table(t, "float32", ["a", "b"], ["c1", "c2"], "scores", short=True) in base.html()


def test_texts_that_cannot_go_as_data_send_the_html() -> None:
    """A number's text holding a space (the page splits them at spaces) or more distinct classes than the palette
    holds go as HTML; as many as it holds go as data."""

    def table(classes: list[str], texts: list[str]) -> slots.Table:
        cols = [str(j) for j in range(len(texts))]
        return slots.Table("<table class='nt'>", ["<tr>"], 0, cols, [classes], [texts], None, "</table>")

    def drawn(t: slots.Table) -> slots.Drawn:
        with slots.collecting() as held:
            text = slots.put(t)
        return slots.Drawn(text, held)

    n = len(slots.PALETTE)
    full = drawn(table([f"c{i}" for i in range(n)], ["1"] * n))
    assert full.data() is not None and full.data()["cls"] == slots.PALETTE
    more = drawn(table([f"c{i}" for i in range(n + 1)], ["1"] * (n + 1)))
    assert more.data() is None and slots.answer(more, more.key) == {"value": more.html(), "key": more.key}
    spaced = drawn(table(["s1", "s2"], ["1 5", "2"]))
    assert spaced.data() is None and "value" in slots.answer(spaced, spaced.key)


def test_a_print_is_sent_as_the_browser_reads_it() -> None:
    """A print's text with an entity to escape, a CR LF and a newline first: the data is the <pre>'s node's text."""
    with slots.collecting() as held:
        text = slots.pre("\ntensor(<1>)\r\n& more") + slots.pre("x")
    view = slots.Drawn(text, held)
    assert view.html() == "<pre class='tensor'>\ntensor(&lt;1&gt;)\r\n&amp; more</pre><pre class='tensor'>x</pre>"
    assert view.data()["pre"] == read(view.html())["pre"] == ["tensor(<1>)\n& more", "x"]


def test_a_live_edit_answers_a_page_that_shows_the_skeletons_with_cells_only() -> None:
    """The live route's answer (ui/live.py): the cells of every drawn view whose key the page sent, and the HTML of
    one whose key it does not hold."""
    preset, vals = case_values("default")
    shown = live.shown_keys(live.live_views(pipeline.compute_views(preset, vals, drawn=True)))
    assert set(shown) == live.DRAWN_IDS - {"heads-fig"}  # (one head: that figure is hidden, no value)
    _, got, _ = edit_result("cell", preset, vals, EDIT, drawn=True)
    answer = live.live_views(got, {**shown, "overview": "another"})
    assert all("cells" in answer[v] and "value" not in answer[v] for v in shown if v != "overview")
    assert answer["overview"]["value"] == got["overview"].html() and "cells" not in answer["overview"]


def test_a_token_holding_a_nul_or_a_placeholders_look_is_drawn_as_typed() -> None:
    """Token labels a learner typed holding a NUL, and one shaped like a placeholder (NUL, digits, NUL), are text:
    the heatmaps are what heat.pair writes outside any collection, the exact tables' data what their nodes hold."""
    sc = {**ac.scenario_of("statquest-masked"), "tokens": ["a\x00b", "\x000\x00", "c"]}
    s = ac.parse(sc)
    vals = pipeline.values_from_scenario(s, seed=1)
    got = values(pipeline.compute_views(None, vals, drawn=True))
    assert not got.get("refused") and isinstance(got["fig"], slots.Drawn)
    part = ac.evaluate(s).head(0)
    assert got["fig"].html() == heat.pair(part["masked"], part["weights"], s.tokens, s.tokens_k, "head 1")
    assert "<span>1:a\x00b</span><span>2:\x000\x00</span>" in got["fig"].html()
    for view in (got["overview"], got["html_weights"]):
        assert view.data() == as_data(read(view.html()))


def test_a_look_aheads_drawn_views_count_in_the_sessions_size() -> None:
    """The session store bounds its memory by each entry's estimated size (serving/sessions.py): a look ahead's
    drawn views (slots.Drawn, not HTML strings) count at least as much as the HTML they stand for."""
    preset, vals = case_values("large")
    got = pipeline.compute_views(preset, vals, drawn=True)
    html_chars = sum(len(v.html()) for v in values(got).values() if isinstance(v, slots.Drawn))
    assert html_chars > 300_000
    assert estimate_bytes({"ahead": {"views": got}})[0] >= html_chars
