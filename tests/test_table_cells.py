"""views.html_table's vectorised cells (numpy's shortest repr, torch's rounding) against the cell-by-cell rules."""

from __future__ import annotations

import re

import pytest
import torch

from ui.render import tables as vw


def values() -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    t = torch.randn(30, 30, generator=g, dtype=torch.float64) * 10 ** torch.randint(-9, 9, (30, 30), generator=g)
    t[0, :4] = torch.tensor([float("nan"), float("-inf"), float("inf"), -0.0])
    t[1, :3] = torch.tensor([1e-45, 3.4e38, 0.1])
    return t


def reference_cells(t: torch.Tensor, dtype: str, kind: str) -> list[tuple[str, str]]:
    """(class, text) of every shown cell, one Python call per cell as the table used to be built."""
    shown = t[: vw.WINDOW, : vw.WINDOW]
    finite = shown[torch.isfinite(shown)]
    lim = float(finite.abs().max()) or 1.0
    return [(vw._bucket(v, kind, lim), vw.fmt(v, dtype)) for row in shown.tolist() for v in row]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["signed", "prob"])
def test_every_cell_has_the_class_and_exact_text_of_the_cell_by_cell_rules(dtype: str, kind: str) -> None:
    t = values() if kind == "signed" else values().clamp(-1, 2)
    if dtype == "float32":
        t = t.float().double()
    page = vw.html_table(t, dtype, [f"r{i}" for i in range(30)], [f"c{j}" for j in range(30)], "q", kind=kind)
    got = re.findall(r"<td class='([a-z0-9]+)' data-r='\d+' data-c='\d+'>([^<]*)</td>", page)
    assert got == reference_cells(t, dtype, kind)
    assert len(got) == vw.WINDOW * vw.WINDOW


def test_marks_and_the_short_overview_form_keep_their_cells() -> None:
    t = values()[:3, :3].nan_to_num(0.0, 0.0, 0.0)
    marks = {"pick": [(1, 2)], "used": [(0, None)]}
    page = vw.html_table(t, "float64", ["a", "b", "c"], ["x", "y", "z"], "w", marks=marks, short=True)
    cls = re.findall(r"<td class='([^']*)' data-r='(\d)' data-c='(\d)' title='([^']*)'>([^<]*)</td>", page)
    assert [(r, c) for k, r, c, _, _ in cls if "pick" in k] == [("1", "2")]
    assert [(r, c) for k, r, c, _, _ in cls if "used" in k] == [("0", "0"), ("0", "1"), ("0", "2")]
    assert [title for *_, title, _ in cls] == [vw.fmt(v, "float64") for row in t.tolist() for v in row]
    assert [text for *_, text in cls] == [vw._short(v) for row in t.tolist() for v in row]
