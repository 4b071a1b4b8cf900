"""Every kind of bad scenario raises ScenarioError (a ValueError) whose message names the field."""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch

import attention_core as ac

GOOD: dict[str, Any] = {"x": [[1.16, 0.23], [0.57, 1.36], [4.41, -2.16]], "weights": {"init": "linear", "seed": 42}}


def with_(**kw: Any) -> dict[str, Any]:
    return {**json.loads(json.dumps(GOOD)), **kw}


X = GOOD["x"]
CASES: list[tuple[str, Any, str]] = [
    ("text in a cell", with_(x=[[1, 2], ["abc", 3], [4, 5]]), "x row 2, column 1: 'abc' is not a number"),
    ("blank cell", with_(x=[[1, ""], [2, 3]]), "x row 1, column 2: is blank"),
    ("None cell", with_(x=[[1, None], [2, 3]]), "x row 1, column 2: is blank"),
    ("NaN", with_(x=[[1, float("nan")], [2, 3]]), "x row 1, column 2"),
    ("nan string", with_(x=[[1, "nan"], [2, 3]]), "not a finite number"),
    ("inf", with_(x=[[1, 2], [2, "-inf"]]), "x row 2, column 2"),
    ("1e308", with_(x=[[1, 1e308], [2, 3]]), "too large"),
    ("bool cell", with_(x=[[True, 1], [2, 3]]), "x row 1, column 1"),
    ("dict cell", with_(x=[[{}, 1], [2, 3]]), "x row 1, column 1"),
    ("ragged rows", with_(x=[[1, 2], [3]]), "x row 2: has 1 values; expected 2"),
    ("row not a list", with_(x=[[1, 2], 3]), "x row 2"),
    ("empty matrix", with_(x=[]), "x: is empty"),
    ("no columns", with_(x=[[]]), "x: has no columns"),
    ("wrong type", with_(x="1,2;3,4"), "x: must be a list of rows"),
    ("missing x", {"weights": {"init": "linear", "seed": 1}}, "x: is missing"),
    ("cross missing x_k", {"x_q": X}, "x_k: is missing"),
    ("cross width mismatch", {"x_q": X, "x_k": [[1, 2, 3]]}, "x_k row 1: has 3 values; expected 2"),
    ("x and x_q", with_(x_q=X), "x: give either"),
    ("unknown key", with_(colour="red"), "colour: unknown key"),
    ("unknown mask key", with_(mask={"kind": "causal", "shape": 3}), "mask.shape: unknown key"),
    ("heads not int", with_(heads="two"), "heads: 'two' is not a whole number"),
    ("heads too many", with_(heads=99), "heads: 99 is out of range 1..8"),
    ("heads 0", with_(heads=0), "heads: 0 is out of range"),
    ("split heads", with_(x=[[1, 2, 3, 4]], heads=3, head_mode="split"), "heads=3 does not divide d_model=4"),
    ("bad mode", with_(head_mode="mix"), "head_mode: 'mix' is not one of"),
    ("bad layout", with_(layout="T"), "layout: 'T' is not one of"),
    ("bad dtype", with_(dtype="float16"), "dtype: 'float16'"),
    ("bad mask kind", with_(mask={"kind": "diagonal"}), "mask.kind"),
    ("bad fill", with_(mask={"kind": "causal", "fill": "-999"}), "mask.fill"),
    ("custom mask shape", with_(mask={"kind": "custom", "keep": [[1, 0]]}), "mask.keep: has 1 rows; expected 3"),
    ("custom mask value", with_(mask={"kind": "custom", "keep": [[1, 0, 2]] * 3}), "mask.keep row 1, column 3"),
    ("padding length", with_(mask={"kind": "padding", "padding": [True]}), "mask.padding: must list 3"),
    ("padding flag", with_(mask={"kind": "padding", "padding": [True, "maybe", False]}), "mask.padding item 2"),
    ("scale zero", with_(scale=0), "scale"),
    ("scale text", with_(scale="big"), "scale: 'big' is not a number"),
    ("d_out too big", with_(d_out=1000), "d_out: 1000 is out of range"),
    ("seed negative", with_(weights={"init": "rand", "seed": -1}), "weights.seed"),
    ("seed text", with_(weights={"init": "rand", "seed": "x"}), "weights.seed"),
    ("bad init", with_(weights={"init": "xavier"}), "weights.init"),
    ("weights wrong type", with_(weights=[1]), "weights: must be"),
    ("explicit wrong count", with_(weights={"W_q": [], "W_k": [], "W_v": []}), "weights.W_q: must be a list of 1"),
    ("explicit bad cell", with_(weights={"W_q": [[[1, "z"], [0, 1]]], "W_k": [[[1, 0], [0, 1]]],
                                         "W_v": [[[1, 0], [0, 1]]]}), "W_q head 1 row 1, column 2: 'z'"),
    ("explicit wrong shape", with_(weights={"W_q": [[[1, 0, 0], [0, 1, 0]]], "W_k": [[[1, 0], [0, 1]]],
                                            "W_v": [[[1, 0], [0, 1]]]}), "W_q head 1 row 1: has 3 values"),
    ("tokens count", with_(tokens=["a"]), "tokens: must be a list of 3 labels"),
    ("not a dict", [1, 2], "scenario: must be a JSON object"),
    ("oversize rows", with_(x=[[0.0, 0.0]] * 1_000_000), "x: has 1000000 rows; at most 64"),
    ("oversize cols", with_(x=[[0.0] * 1_000_000]), "x: has 1000000 columns; at most 64"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "scenario", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_names_the_field(name: str, scenario: Any, message: str) -> None:
    with pytest.raises(ac.ScenarioError) as err:
        ac.compute(scenario)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_cells_as_the_browser_sends_them() -> None:
    as_strings = with_(x=[["1.16", " 0.23 "], ["0.57", 1.36], ["4.41", -2.16]])
    assert ac.compute(as_strings)["output"] == ac.compute(GOOD)["output"]


def test_fully_masked_row_is_a_warning_not_an_error_and_json_safe() -> None:
    r = ac.compute(with_(mask={"kind": "custom", "keep": [[0, 0, 0], [1, 1, 0], [1, 1, 1]]}))
    assert r["fully_masked_rows"] == [0]
    assert "NaN" in r["warnings"][0]
    assert r["heads"][0]["weights"][0] == [0.0, 0.0, 0.0]
    assert r["heads"][0]["weights_raw"][0] == ["nan", "nan", "nan"]
    assert r["heads"][0]["masked"][0] == ["-inf", "-inf", "-inf"]
    json.dumps(r, allow_nan=False)  # raises if a bare NaN/inf reached the result


@pytest.mark.parametrize(("key", "where"), [("", "scenario key ''"), ("x" * 200, "scenario key 'xxxxxxxxxx"),
                                            ("a b", "scenario key 'a b'")])  # fmt: skip
def test_odd_unknown_keys_are_named_by_their_container_and_kept_short(key: str, where: str) -> None:
    with pytest.raises(ac.ScenarioError) as e:
        ac.compute({"x": [[1.0]], key: 1})
    assert str(e.value).startswith(where) and len(str(e.value)) < 400


@pytest.mark.parametrize("seed", [2**53 + 1, str(2**53 + 1), 2**63 - 1, " 9007199254740993 "])
def test_a_seed_past_2_53_is_drawn_from_exactly(seed: int | str) -> None:
    """weights.seed as an int or a string of one is taken exactly: through a float, 2⁵³ + 1 was drawn from as 2⁵³
    (a learner's page computed with another seed than it showed), and the core's own limit 2⁶³ − 1 was refused as
    2⁶³. The draw is nn.Linear's after torch's generator is seeded with that very int."""
    want = int(str(seed).strip())
    sc = {"x": [[1.0, 2.0], [3.0, 4.0]], "weights": {"init": "linear", "seed": seed}}
    used = ac.compute(sc)["weights_used"]
    assert used["layout"] == "linear"
    got = torch.tensor(used["W_q"][0])  # (head 1's, out×in as nn.Linear holds it)
    torch.manual_seed(want)
    torch.testing.assert_close(got, torch.nn.Linear(2, 2, bias=False).weight.detach(), rtol=0, atol=0)
    torch.manual_seed(want - 1)
    assert not torch.allclose(got, torch.nn.Linear(2, 2, bias=False).weight.detach(), atol=1e-3)


@pytest.mark.parametrize(
    ("value", "said"),
    [(2**63, "9223372036854775808 is out of range"), ("1" * 50, r"^weights.seed: '1{20}'… is out of")],
)
def test_a_seed_past_the_cores_limit_is_named_exactly(value: int | str, said: str) -> None:
    with pytest.raises(ac.ScenarioError, match=said):
        ac.parse({"x": [[1.0]], "weights": {"init": "linear", "seed": value}})
