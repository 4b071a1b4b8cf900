"""views.html_table's cells, written through numpy at once (a large table) or one by one (a small one, the
workbench's usual case), against the cell-by-cell rules (fmt, _bucket)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
import torch

from ui.render import printing
from ui.render import tables as vw


def values() -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    t = torch.randn(30, 30, generator=g, dtype=torch.float64) * 10 ** torch.randint(-9, 9, (30, 30), generator=g)
    t[0, :4] = torch.tensor([float("nan"), float("-inf"), float("inf"), -0.0])
    t[1, :3] = torch.tensor([1e-45, 3.4e38, 0.1])
    return t


def reference_cells(t: torch.Tensor, dtype: str, kind: str) -> list[tuple[str, str]]:
    """(class, text) of every shown cell, one Python call per cell as the table used to be built, the texts then
    put in the table's one format (issue 37: as torch prints the tensor, printing.sci_mode)."""
    shown = t[: vw.WINDOW, : vw.WINDOW]
    finite = shown[torch.isfinite(shown)]
    lim = float(finite.abs().max()) or 1.0
    texts = vw.one_format([[vw.fmt(v, dtype) for v in row] for row in shown.tolist()], printing.sci_mode(shown))
    classes = [vw._bucket(v, kind, lim) for row in shown.tolist() for v in row]
    return list(zip(classes, [x for row in texts for x in row], strict=True))


def exact(page: str, t: torch.Tensor, dtype: str) -> None:
    """Every cell's text reads the value its own :func:`fmt` text reads, in the dtype (only zeros were added)."""
    texts = re.findall(r"<td class='[a-z0-9]+' data-r='\d+' data-c='\d+'>([^<]*)</td>", page)
    shown = t[: vw.WINDOW, : vw.WINDOW].reshape(-1).tolist()

    def read(text: str) -> str:  # (as text: nan == nan)
        return repr(vw.shortest(float(text), dtype))

    assert [read(x) for x in texts] == [read(vw.fmt(v, dtype)) for v in shown]


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
    exact(page, t, dtype)
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
                    exact(small, block, dtype)


@pytest.mark.parametrize(
    ("rows", "want"),
    [
        ([[0.3573, 1.62e-05], [0.5, 0.0]], ["3.57e-01", "1.62e-05", "5.00e-01", "0.00e+00"]),  # a tiny weight
        ([[0.3573, 0.4011], [0.0, -2.1336]], ["0.3573", "0.4011", "0.0000", "-2.1336"]),
        ([[float("-inf"), 123456.0], [1.0, 2.5]], ["-inf", "1.23e+05", "1.00e+00", "2.50e+00"]),
        ([[float("-inf"), 0.25], [1.0, 2.5]], ["-inf", "0.2500", "1.0000", "2.5000"]),
    ],
)
def test_a_compact_table_writes_its_numbers_in_one_format(rows: list[list[float]], want: list[str]) -> None:
    """Issue 37: '1.62e-05' among 4-decimal numbers; now a table is all 4 decimals, or all scientific when one
    nonzero number would read 0.0000 or is 1e5 or more. -inf stays written out."""
    t = torch.tensor(rows, dtype=torch.float64)
    page = vw.html_table(t, "float64", ["a", "b"], ["c", "d"], "weights", kind="prob", short=True)
    assert re.findall(r"<td class='[^']*' data-r='\d' data-c='\d' title='[^']*'>([^<]*)</td>", page) == want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_scientific_tables_texts_equal_decimals_own_writing_of_each_exact_text(dtype: str) -> None:
    """one_format's scientific texts (the widest scan stopped at the dtype's most digits, one format method for the
    table) against Decimal's writing of each exact text with the table's width, found without stopping."""
    g = torch.Generator().manual_seed(5)
    t = torch.randn(40, 40, generator=g, dtype=torch.float64) * 10 ** torch.randint(-12, 12, (40, 40), generator=g)
    t[0, :3] = torch.tensor([0.0, 1.5, 2e-5])  # short texts first: the scan must not stop at them
    if dtype == "float32":
        t = t.float().double()
    texts = [[vw.fmt(v, dtype) for v in row] for row in t.tolist()]
    width = max(len(x.split("e")[0].replace("-", "").replace(".", "").strip("0")) for row in texts for x in row) - 1
    assert width == (8 if dtype == "float32" else vw.MAX_DIGITS - 1)  # (the widest texts have the dtype's digits)

    def decimal(x: str) -> str:  # (Decimal writes a zero's exponent from its text: 0.0 -> 0e-1)
        if float(x) == 0:
            return f"{float(x):.{width}e}"
        return re.sub(r"e([-+])(\d)$", r"e\g<1>0\2", format(Decimal(x), f".{width}e"))

    got = vw.one_format(texts, True, vw.DIGITS[dtype])
    assert got == [[decimal(x) for x in row] for row in texts]
    assert got == vw.one_format(texts, True)  # (no stop: the same)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_compact_tables_scientific_rule_is_torchs_on_its_own_dtype_and_its_texts_each_cells(
    dtype: torch.dtype,
) -> None:
    """A compact table writes every number in scientific notation when one nonzero finite |value| is below 1e-4 or at
    least 1e5, compared in the table's own dtype as torch compares (float32's 1e-4 is 9.99999975e-05); written one
    f-string a cell as the tables used to be, -inf, inf and nan written out as fmt writes them."""
    edge = [1e-4, 99999.99, 1e5, float(torch.tensor(1e-4, dtype=torch.float32)), 5e-5, 0.5, -3.25]
    for v in edge:
        t = torch.tensor([[v, 0.0], [float("nan"), float("-inf")]], dtype=dtype)
        a = t[torch.isfinite(t) & (t != 0)].abs()
        want = bool(((a < 1e-4) | (a >= 1e5)).any())
        assert vw.sci_table(t) is want, (v, dtype)
        cells = vw.number_table(t, "float32", ["a", "b"], ["c", "d"], "x", short=True).texts
        one = [f"{x:.2e}" if want else f"{x:.4f}" for x in t.double().flatten().tolist()]
        one = [x if x[-1].isdigit() else vw.fmt(float(x)) for x in one]
        assert [x for row in cells for x in row] == one, (v, dtype)
