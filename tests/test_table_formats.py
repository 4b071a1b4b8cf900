"""One format a table (issue 37, item 4): every number table the page shows is written as torch prints a tensor,
one format for all its numbers (the same decimals, or scientific for all of them), and an input grid's cell reads
the same however the grid was drawn.

Every view is rendered through the functions the page uses (pipeline.compute_views, grids.inputs_html, the mask
lab's labs.mask_lab_parts) for every shipped preset and a few variant combinations; each table's numeric cells are
parsed and their formats compared."""

from __future__ import annotations

import html
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import torch

import attention_core as ac
from attention_core import MAX_ABS
from ui import labs, pipeline, values
from ui.render import grids
from ui.render import tables as vw

ROOT = Path(__file__).resolve().parent.parent
PRESETS = [p.id for p in ac.all_presets()] + [p.id for p in ac.decoder_presets()]
SCENARIOS = {p.id: p.scenario for p in [*ac.all_presets(), *ac.decoder_presets()]}

SCI = re.compile(r"^-?\d(?:\.(\d+))?e[+-]\d+$")
FIXED = re.compile(r"^-?\d+\.(\d+)$")
WHOLE = re.compile(r"^-?\d+$")
WRITTEN_OUT = {"-inf", "inf", "nan", "−inf"}


def number_format(text: str) -> tuple[str, int] | None:
    """('sci', mantissa decimals), ('fixed', decimals) or ('whole', 0) of a cell's text; None for -inf/nan/words."""
    text = text.strip()
    if text in WRITTEN_OUT:
        return None
    if m := SCI.match(text):
        return "sci", len(m.group(1) or "")
    if m := FIXED.match(text):
        return "fixed", len(m.group(1))
    if WHOLE.match(text):
        return "whole", 0
    return None


class Tables(HTMLParser):
    """Every <table>'s <td> texts (a nested table is its own), keyed by its data-name (or its aria-label); a cell
    with its own data-name (the KV-cache table's 'cached' counts) belongs to another tensor and is left out."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[str]]] = []
        self.stack: list[tuple[str, list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.stack.append((str(a.get("data-name") or a.get("aria-label") or "?"), []))
        elif tag == "td" and self.stack and not a.get("data-name"):  # (a cell naming its own tensor is not this one's)
            self.cell = []

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None and self.stack:
            self.stack[-1][1].append(html.unescape("".join(self.cell)).strip())
            self.cell = None
        elif tag == "table" and self.stack:
            self.tables.append(self.stack.pop())


def tables_of(page: str) -> list[tuple[str, list[str]]]:
    p = Tables()
    p.feed(page)
    return [(name, [c for c in cells if c]) for name, cells in p.tables]


def mixed_formats(page: str) -> list[str]:
    """Each table whose numbers come in more than one format, with those formats."""
    bad = []
    for name, cells in tables_of(page):
        formats = {f for f in map(number_format, cells) if f is not None}
        if len(formats) > 1:
            bad.append(f"{name}: {sorted(formats)} in {cells[:12]}")
    return bad


def views_html(preset_id: str | None, v: values.PageValues) -> dict[str, str]:
    got = pipeline.compute_views(preset_id, v)
    assert "msg-error" not in str(got.get("message", "")), got.get("message")
    return {k: x for k, x in got.items() if isinstance(x, str)}


def variant(preset_id: str, **changes: Any) -> values.PageValues:
    sc = {**SCENARIOS[preset_id], **changes}
    return values.values_from_scenario(ac.parse(sc))


VARIANTS = {
    "causal+decode": ("statquest-self", {"mask": {"kind": "causal", "fill": "-inf"}, "decode": True}),
    "2 heads, W_o": ("statquest-self", {"heads": 2, "weights": {"init": "linear", "seed": 42, "w_o": True}}),
    "float64 additive": ("llm-linear", {"dtype": "float64", "mask": {"kind": "causal", "fill": "additive"}}),
    "tiny x": ("statquest-self", {"x": [[1e-5, 0.23], [0.57, 1.36], [4.41, -2.16]]}),
    "whole x": ("statquest-self", {"x": [[1, 0], [0, 1], [3, 2]]}),
    "sum, no scale": ("qkv-single", {"normalize": "sum", "scale": False}),
}


@pytest.mark.parametrize("preset_id", PRESETS)
def test_every_views_tables_have_one_format_each(preset_id: str) -> None:
    v = values.values_from_scenario(ac.parse(SCENARIOS[preset_id]))
    views = views_html(preset_id, v)
    assert sum(len(tables_of(page)) for page in views.values()) >= 8  # (the parser sees the views' tables)
    bad = [f"{view}: {b}" for view, page in views.items() for b in mixed_formats(page)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_variant_views_tables_have_one_format_each(case: str) -> None:
    preset_id, changes = VARIANTS[case]
    views = views_html(None, variant(preset_id, **changes))
    bad = [f"{view}: {b}" for view, page in views.items() for b in mixed_formats(page)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("preset_id", PRESETS)
def test_mask_lab_tables_have_one_format_each(preset_id: str) -> None:
    v = values.values_from_scenario(ac.parse(SCENARIOS[preset_id]))
    for causal, pad, rows in ((True, "", ""), (False, "2", "1"), (True, "1", "")):  # (key and row positions)
        page, problem = labs.mask_lab_parts(v, causal, pad, rows)
        assert page is not None, problem
        assert len(tables_of(page)) == 13  # four masks, then three fills of three tables each
        assert not mixed_formats(page), "\n".join(mixed_formats(page))


def grid_numbers(page: str) -> list[str]:
    return [c for name, cells in tables_of(page) if name != "keep" for c in cells if number_format(c) is not None]


@pytest.mark.parametrize("preset_id", [*PRESETS, *(f"variant:{c}" for c in sorted(VARIANTS))])
def test_an_input_cell_reads_as_a_redraw_writes_it(preset_id: str) -> None:
    """A grid cell is its value's shortest exact text in the working dtype, a whole number with its '.0' (as the
    float it is): the same text whichever way the grid was drawn (a preset's ints, a typed 3, a redraw)."""
    if preset_id.startswith("variant:"):
        base, changes = VARIANTS[preset_id.split(":", 1)[1]]
        v = variant(base, **changes)
    else:
        v = values.values_from_scenario(ac.parse(SCENARIOS[preset_id]))
    texts = grid_numbers(grids.inputs_html(v, 0))
    assert texts
    whole = [t for t in texts if number_format(t)[0] == "whole"]
    assert not whole, f"whole numbers without '.0' among the grid's floats: {whole}"
    for t in texts:
        assert vw.fmt(float(t), v.dtype) == t  # what a redraw of this cell writes


def grid_js_shown_text(cases: list[tuple[str, str]]) -> list[str]:
    """grid.js's shownText (what a committed cell reads) for each (typed text, dtype), run by node from the file."""
    src = (ROOT / "ui/static/grid.js").read_text()
    parts = [re.search(p, src, re.S).group(0) for p in (r"const NUM = [^\n]*\n", r"const isNumber = [^\n]*\n",
             r"const MAX_DIGITS = [^\n]*\n", r"const MAX_ABS = [^\n]*\n", r"function shownText\(.*?\n}\n")]  # fmt: skip
    script = "".join(parts) + "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map(([t, d]) => "
    script += "shownText(t, d))));"
    out = subprocess.run(["node", "-e", script, json.dumps(cases)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def typed_numbers() -> list[str]:
    g = torch.Generator().manual_seed(37)
    scales = 10.0 ** torch.randint(-8, 7, (400,), generator=g)
    values = (torch.randn(400, generator=g, dtype=torch.float64) * scales).tolist()
    digits = torch.randint(1, 18, (400,), generator=g).tolist()  # typed to 1..17 significant digits
    drawn = [f"{x:.{k}g}" for x, k in zip(values, digits, strict=True)]
    typed = ["3", "03", "3.", ".5", "-0", "0", "1.16", "1.160", "+2.5", "1e-3", "1E-5", "-1.5e-05", "0.0001",
             "0.00009999", "123456.7", "999999.9", "1000000", "1e6", "12345678901234", "0.1", "0.30000000000000004",
             "2.5e-7", "-4.41", "1e16", "16777217", "0.123456789012345"]  # fmt: skip
    return typed + drawn


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_committed_cell_reads_as_the_servers_grid_writes_it(dtype: str) -> None:
    """A number typed into a grid cell is written, at once on commit (grid.js shownText), as every redraw of the
    grid writes the value the server stores (shown_value of checked_cell's float): 3 reads 3.0 both times."""
    typed = typed_numbers()
    got = grid_js_shown_text([(t, dtype) for t in typed])
    # (past MAX_ABS the cell keeps what was typed, and the server refuses it, naming the cell)
    want = [grids.shown_value(grids.shortest(float(t), dtype), dtype) if abs(float(t)) <= MAX_ABS else t for t in typed]
    wrong = [(t, g, w) for t, g, w in zip(typed, got, want, strict=True) if g != w]
    assert not wrong, wrong[:20]
    assert got[:2] == ["3.0", "3.0"]
    assert grid_js_shown_text([("abc", dtype), ("", dtype)]) == ["abc", ""]  # a typo stays as typed
