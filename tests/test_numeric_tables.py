"""Weight tables read once (ui/values.py ``numeric``) and the core taking such arrays (``parse_array``): the same
scenario, the same trace and the same messages as the cells read every time."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

import attention_core as ac
from attention_core.validation.fields import parse_array
from ui import pipeline, values
from ui.render import grids


def big(heads: int = 4, d_in: int = 16, d_out: int = 8, layout: str = "linear") -> values.PageValues:
    """Page values at a size whose weight tables are kept (over NUMERIC_CELLS cells each)."""
    g = torch.Generator().manual_seed(3)
    sc = {"x": torch.randn(10, d_in, generator=g).round(decimals=2).tolist(), "heads": heads, "head_mode": "concat",
          "d_out": d_out, "layout": layout, "weights": {"init": "rand", "seed": 5, "w_o": True}}  # fmt: skip
    return values.values_from_scenario(ac.parse(sc), seed=5)


def as_lists(v: values.PageValues) -> dict:
    """The scenario of ``v`` with every matrix as JSON lists (the path without kept arrays)."""
    return json.loads(json.dumps(values.scenario_from(v), default=lambda a: a.tolist()))


SIZES = [(4, 16, 8, "linear"), (2, 16, 24, "matmul"), (1, 20, 20, "linear"), (3, 16, 12, "matmul")]


@pytest.mark.parametrize(("heads", "d_in", "d_out", "layout"), SIZES)
def test_kept_arrays_give_the_trace_the_lists_give(heads: int, d_in: int, d_out: int, layout: str) -> None:
    v = big(heads, d_in, d_out, layout)
    sc = values.scenario_from(v)
    assert isinstance(sc["weights"]["W_q"][0], np.ndarray) and isinstance(sc["weights"]["W_o"], np.ndarray)
    got, want = ac.evaluate(ac.parse(sc)), ac.evaluate(ac.parse(as_lists(v)))
    assert got.heads == want.heads == heads
    for name in ("q", "k", "v", "scores", "weights", "output"):
        torch.testing.assert_close(got.per_head()[name], want.per_head()[name], rtol=0, atol=0)
    torch.testing.assert_close(got.output, want.output, rtol=0, atol=0)
    assert got.output.shape[-1] == d_in  # W_o brought the heads' width (d_out each, inferred) back to d_in


def test_a_table_is_read_once_and_an_edit_reads_its_new_numbers() -> None:
    v = big()
    first = values.numeric(v.W_q)
    assert values.numeric(v.W_q) is first  # kept: the second read is the same array
    edited = grids.with_cell(v.W_q, 2, 3, 9.5)
    now = values.numeric(edited)
    assert now is not first and now[2, 3] == 9.5 and first[2, 3] != 9.5
    assert values.numeric(v.W_q) is first  # the old table still reads as it was
    same_rows = {**v.W_q, "data": v.W_q["data"]}  # another dict around the same rows: the same numbers
    assert values.numeric(same_rows) is first
    with pytest.raises(ValueError):
        first[0, 0] = 1.0  # shared by every parse of the table: read-only
    # a row replaced, added or taken away in place (never done by the page, but it must not read stale numbers)
    data = v.W_q["data"]
    data[2] = [data[2][0], *[1.25] * (len(data[2]) - 1)]
    assert (values.numeric(v.W_q)[2] == 1.25).all()
    data.append([data[0][0], *[7.5] * (len(data[0]) - 1)])
    assert values.numeric(v.W_q).shape[0] == len(data) and (values.numeric(v.W_q)[-1] == 7.5).all()
    del data[-2:]
    assert values.numeric(v.W_q).shape[0] == len(data)


def test_small_tables_and_typos_stay_raw_cells() -> None:
    small = {"data": [["a", 1.0, 2.0], ["b", 3.0, 4.0]]}
    assert values.numeric(small) == [[1.0, 2.0], [3.0, 4.0]]
    v = big()
    typo = grids.with_cell(v.W_k, 9, 1, 0.5)  # head 2 (8 rows a head), its row 2
    typo["data"][9][2] = "0.5x"  # (a new row list: with_cell copied it)
    assert isinstance(values.numeric(typo), list)
    got = pipeline.compute_views(None, replace(v, W_k=typo))
    assert got.get("refused") and "W_k head 2 row 2, column 2" in got["message"]


@pytest.mark.parametrize(
    ("bad", "kwargs"),
    [(np.ones((3, 4)), {"rows": 2}), (np.ones((3, 4)), {"cols": 5}), (np.full((2, 2), np.nan), {}),
     (np.full((2, 2), 2e6), {}), (np.ones((70, 2)), {}), (np.ones((2, 2), dtype=np.float32) * np.inf, {})],
)  # fmt: skip
def test_an_array_that_does_not_fit_is_named_as_its_rows_would_be(bad: np.ndarray, kwargs: dict) -> None:
    with pytest.raises(ac.ScenarioError) as from_array:
        parse_array(bad, "W_o", **kwargs)
    with pytest.raises(ac.ScenarioError) as from_rows:
        parse_array(bad.tolist(), "W_o", **kwargs)
    assert str(from_array.value) == str(from_rows.value)
    assert str(from_array.value).startswith("W_o")


def test_an_array_that_fits_is_taken_as_it_is() -> None:
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert parse_array(a, "x", rows=3, cols=4) is a
    f32 = a.astype(np.float32)  # another dtype is read as rows: the same numbers, a new float64 array
    got = parse_array(f32, "x")
    assert got.dtype == np.float64 and (got == a).all()
