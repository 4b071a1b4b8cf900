"""A drawn view's numbers as data (ui/cells.py): every view of every preset splits into a skeleton and its slots,
an edit keeps the skeleton, and the slots written into the old view's nodes give exactly the new view's nodes.

The writing is static/morph.js's fill, mirrored here on the HTML (slot by slot, in the order the page finds the
nodes); "exactly" is compared as Python's own HTML parser reads both (tags, attributes, texts), independently of
the regular expression that found the slots.
"""

from __future__ import annotations

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import attention_core as ac
from ui import cells, live, pipeline
from ui.edits import edit_result

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench import case_values

DRAWN = ["overview", *(f"html_{s}" for s in live.vw.STEPS), "fig", "heads_fig"]


class Events(HTMLParser):
    """What a parser reads from HTML: start and end tags with their attributes, and the texts between."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.seen: list[Any] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(("<", tag, sorted(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.seen.append((">", tag))

    def handle_data(self, data: str) -> None:
        if self.seen and self.seen[-1][0] == "text":
            self.seen[-1] = ("text", self.seen[-1][1] + data)
        else:
            self.seen.append(("text", data))


def parsed(text: str) -> list[Any]:
    """The events, with one newline right after <pre> dropped, as a browser's parser does."""
    p = Events()
    p.feed(text)
    p.close()
    seen = p.seen
    for i, e in enumerate(seen[1:], 1):
        if e[0] == "text" and seen[i - 1][:2] == ("<", "pre") and e[1].startswith("\n"):
            seen[i] = ("text", e[1][1:])
    return [e for e in seen if e != ("text", "")]


def filled(old: str, data: dict[str, Any]) -> str:
    """``old``'s HTML with every slot holding ``data``'s (as fill writes them into old's nodes)."""
    titles, texts = iter(data["title"].split(" ")), iter(data["text"].split(" "))
    nums, tds, pres, canvases = iter(data["cls"]), iter(data["td"]), iter(data["pre"]), iter(data["canvas"])
    esc = html.escape

    def one(m: Any) -> str:
        g = m.group
        if g("rc") is not None:
            cls = data["pal"][cells.PALETTE.index(next(nums))]
            title = f" title='{esc(next(titles))}'" if g("title") is not None else ""
            return f"<td class='{esc(cls)}'{g('rc')}{title}>{esc(next(texts))}</td>"
        if g("td") is not None:
            return f"<td>{esc(next(tds))}</td>"
        if g("pre") is not None:
            text = next(pres)  # (a browser's parser drops one newline right after <pre>: parsed does too)
            return f"<pre class='tensor'>{chr(10) if text.startswith(chr(10)) else ''}{esc(text)}</pre>"
        lo, hi, z = (esc(v) for v in next(canvases))
        return f"<{g('cv')}data-lo='{lo}' data-hi='{hi}' data-z='{z}'"

    return cells.SLOT.sub(one, old)


def views(got: dict[str, Any]) -> dict[str, str]:
    out = {}
    for k in DRAWN:
        v = got.get(k)
        v = v.get("value") if isinstance(v, dict) else v
        if isinstance(v, str):
            out[k] = v
    return out


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_an_edit_keeps_every_skeleton_and_its_cells_redraw_the_view_exactly(preset: str) -> None:
    _, vals, got = pipeline.load_values(preset)
    nv, now, _ = edit_result("cell", preset, vals, {"table": "x", "row": 0, "col": 0, "value": "0.37"})
    assert nv is not None, now
    before, after = views(got), views(now)
    assert before.keys() == after.keys() and {"overview", "fig"} <= before.keys()
    for k, new in after.items():
        old_split, new_split = cells.split(before[k]), cells.split(new)
        assert old_split is not None and new_split is not None, k
        assert old_split[0] == new_split[0], k  # the same skeleton
        assert parsed(filled(before[k], new_split[1])) == parsed(new), k


def test_the_large_case_splits_and_its_cells_are_what_the_tables_show() -> None:
    """T=64, d=64, 8 heads (benchmarks/bench.py's large case): the overview's output table's first cell, as data."""
    preset, vals = case_values("large")
    got = views(pipeline.compute_views(preset, vals))
    key, data = cells.split(got["overview"])
    assert len(key) == 16 and len(data["cls"]) == got["overview"].count(" data-r='")
    before, table = got["overview"].split("data-name='output'")
    title, text = table.split("<td class='")[1].split("title='")[1].split("'>")
    n = before.count(" data-r='")  # the output's first cell's index among the number cells, and among those titled
    assert data["text"].split(" ")[n] == text.split("<")[0]
    assert data["title"].split(" ")[len(re.findall(r"data-c='\d+' title='", before))] == title
    assert all(cells.split(v) is not None for v in got.values())


def test_a_changed_skeleton_has_another_key_and_an_unknown_cell_sends_the_html() -> None:
    a = "<h3>scores</h3><table><tr><td class='s1' data-r='0' data-c='0' title='1.5'>1.5000</td></tr></table>"
    b = a.replace("scores", "scaled scores")
    c = a.replace("'1.5'>1.5000", "'-2'>-2.0000").replace("s1", "s2 pick")
    assert cells.split(a)[0] != cells.split(b)[0]
    assert cells.split(a)[0] == cells.split(c)[0]
    assert cells.split(c)[1] == {"pal": ["s2 pick"], "cls": "#", "title": "-2", "text": "-2.0000", "td": [],
                                 "pre": [], "canvas": []}  # fmt: skip
    assert cells.split(a.replace("<td class='s1' data-r", "<td class='s1' colspan='2' data-r")) is None
    assert cells.split(a.replace("1.5000", "<b>1.5</b>")) is None
    # a number's text or title holding a space, as written or once its entities are read (the page splits the
    # texts at spaces: "1 5" would shift every later cell by one), goes as HTML
    for spaced in ("1 5", "1&#32;5", "1&#x20;5"):
        assert cells.split(a.replace("1.5000", spaced)) is None, spaced
        assert cells.split(a.replace("title='1.5'", f"title='{spaced}'")) is None, spaced
    assert cells.answer(a, None) == {"value": a, "key": cells.split(a)[0]}
    assert cells.answer(c, cells.split(a)[0]) == {"key": cells.split(a)[0], "cells": cells.split(c)[1]}
    assert cells.answer(b, cells.split(a)[0])["value"] == b


def test_entities_and_carriage_returns_are_read_as_a_browser_reads_them_and_classes_fill_the_palette() -> None:
    """A slot's text, title and class with an entity, and a CR LF, read as the browser's parser gives them; as many
    distinct classes as the palette holds go as data, one more goes as HTML (one character a class)."""
    view = ("<table><tr><td class='a&amp;b' data-r='0' data-c='0' title='1&lt;2'>x&amp;y</td>"
            "<td class='s1' data-r='0' data-c='1'>3</td><td>p\r\nq</td></tr></table>"
            "<pre class='tensor'>\nt&gt;</pre>")  # fmt: skip
    _, data = cells.split(view)
    assert data == {"pal": ["a&b", "s1"], "cls": "#$", "title": "1<2", "text": "x&y 3", "td": ["p\nq"],
                    "pre": ["t>"], "canvas": []}  # fmt: skip
    row = "".join(f"<td class='c{i}' data-r='0' data-c='{i}'>{i}</td>" for i in range(len(cells.PALETTE)))
    full = cells.split(f"<table><tr>{row}</tr></table>")
    assert full is not None and full[1]["cls"] == cells.PALETTE
    more = row + f"<td class='c{len(cells.PALETTE)}' data-r='0' data-c='{len(cells.PALETTE)}'>x</td>"
    assert cells.split(f"<table><tr>{more}</tr></table>") is None
