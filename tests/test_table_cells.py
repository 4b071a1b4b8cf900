"""views.html_table's cells, written through numpy at once (a large table) or one by one (a small one, the
workbench's usual case), against the cell-by-cell rules (fmt, _bucket)."""

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
@pytest.mark.parametrize("n", [30, 8, 3])  # numpy at once (30×30, windowed to 24×24); one by one (8×8, 3×3)
def test_every_cell_has_the_class_and_exact_text_of_the_cell_by_cell_rules(dtype: str, kind: str, n: int) -> None:
    t = values() if kind == "signed" else values().clamp(-1, 2)
    t = t[:n, :n]
    if dtype == "float32":
        t = t.float().double()
    page = vw.html_table(t, dtype, [f"r{i}" for i in range(n)], [f"c{j}" for j in range(n)], "q", kind=kind)
    got = re.findall(r"<td class='([a-z0-9]+)' data-r='\d+' data-c='\d+'>([^<]*)</td>", page)
    assert got == reference_cells(t, dtype, kind)
    assert len(got) == min(n, vw.WINDOW) ** 2
    assert (n * n <= vw.SMALL_TABLE) == (n < 30)  # both ways of writing the cells are checked


def test_a_small_table_of_many_scales_matches_the_large_tables_cells() -> None:
    """Every 3×3 block of the 30×30 values (and of their negation, so the largest magnitude is sometimes
    negative), written one by one, has the cell-by-cell rules' classes and texts."""
    for sign in (1, -1):
        t = sign * values()
        for dtype in ("float32", "float64"):
            for r in range(0, 24, 3):
                for c in range(0, 24, 3):
                    block = t[r : r + 3, c : c + 3]
                    small = vw.html_table(block, dtype, ["a", "b", "c"], ["x", "y", "z"], "q")
                    got = re.findall(r"<td class='([a-z0-9]+)' data-r='\d+' data-c='\d+'>([^<]*)</td>", small)
                    assert got == reference_cells(block, dtype, "signed"), (sign, dtype, r, c)
