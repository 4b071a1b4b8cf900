"""Pin and compare: differences are the two traces subtracted, hand-counted summaries, shape changes refused."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch import Tensor

import attention_core as ac
from attention_core.export.notebook import scenario_json
from attention_core.teaching import compare
from attention_core.teaching.compare import MASKED, MOVED, SAME, CompareError, diff, snapshot

HEAD_STEPS = ("q", "k", "v", "scores", "scaled", "masked", "weights", "output")


def snap(sc: dict[str, Any]) -> compare.Snapshot:
    return snapshot(ac.parse(sc))


def explicit(preset: str) -> dict[str, Any]:
    """A preset with every weight written out, so single weight cells can be edited."""
    sc = scenario_json(ac.parse(ac.get_preset(preset).scenario))
    sc.pop("preset", None)
    return sc


def edited(sc: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(sc)
    change(out)
    return out


def out_by_in(w: Tensor, layout: str) -> Tensor:
    return w if layout == "linear" else w.transpose(-2, -1)


def raw_tensors(s: ac.Scenario, tr: ac.Trace) -> dict[str, Tensor]:
    """Each step straight from the scenario and its trace (the test's own subtraction operands)."""
    t = {n: tr.per_head()[n] for n in HEAD_STEPS} | {"concat": tr.concat, "combined": tr.output}
    t |= {n: out_by_in(getattr(tr.params, n), tr.params.layout) for n in ("W_q", "W_k", "W_v")}
    return t | ({"x": s.x_q} if s.self_attention else {"x_q": s.x_q, "x_k": s.x_k, "x_v": s.x_v})


PAIRS = {
    "x edit, causal -inf": (ac.get_preset("statquest-masked").scenario, lambda s: s["x"][1].__setitem__(0, 0.9)),
    "W_k edit, two heads": (explicit("statquest-mha2"), lambda s: s["weights"]["W_k"][1][0].__setitem__(1, 0.3)),
    "W_q edit, split matmul": (explicit("qkv-split"), lambda s: s["weights"]["W_q"][0][2].__setitem__(3, -1.0)),
    "x_q edit, additive float64": (ac.get_preset("numpy-masked").scenario, lambda s: s["x_q"][3].__setitem__(2, 0.0)),
    "mask none → causal": (ac.get_preset("statquest-self").scenario, lambda s: s.update(mask={"kind": "causal"})),
    "causal → custom, -1e9": (
        ac.get_preset("encdec-masked").scenario,
        lambda s: s.update(mask={"kind": "custom", "keep": [[1, 1, 0], [0, 1, 0], [1, 0, 1]], "fill": "-1e9"}),
    ),
    "scale, normalize": (ac.get_preset("llm-linear").scenario, lambda s: s.update(scale=False, normalize="sum")),
    "layout flip": (ac.get_preset("llm-linear").scenario, lambda s: s.update(layout="matmul")),
    "dtype": (ac.get_preset("statquest-masked").scenario, lambda s: s.update(dtype="float64")),
}


@pytest.mark.parametrize("pair", list(PAIRS))
def test_differences_are_the_traces_subtracted(pair: str) -> None:
    base, change = PAIRS[pair]
    s0, s1 = ac.parse(base), ac.parse(edited(base, change))
    tr0, tr1 = ac.evaluate(s0), ac.evaluate(s1)
    c = diff(snapshot(s0, tr0), snapshot(s1, tr1))
    before, after = raw_tensors(s0, tr0), raw_tensors(s1, tr1)
    assert set(c.steps) == set(after)
    for name, step in c.steps.items():
        a, b = before[name].double(), after[name].double()
        assert step.delta.shape == b.shape == step.status.shape, name
        finite = torch.isfinite(a) & torch.isfinite(b) & (step.status <= MOVED)
        torch.testing.assert_close(step.delta[finite], (b - a)[finite], rtol=0, atol=0, msg=name)
        moved = (b - a).abs() > 1e-6 + 1e-5 * torch.maximum(a.abs(), b.abs())
        assert torch.equal(step.status[finite] == MOVED, moved[finite]), name
        both_inf = a.isneginf() & b.isneginf()
        assert (step.status[both_inf] == SAME).all() and (step.delta[both_inf] == 0).all(), name
    for h in range(tr1.heads):
        assert torch.equal(c.head(h)["weights"].delta, c.steps["weights"].delta[h])


def test_masked_cells_status() -> None:
    sc = ac.get_preset("statquest-masked").scenario
    pinned = snap(sc)
    c = diff(pinned, snap(edited(sc, lambda s: s["x"][0].__setitem__(0, 2.0))))
    m = c.steps["masked"]
    hidden = ~torch.ones(3, 3, dtype=torch.bool).tril()
    assert (m.status[0][hidden] == SAME).all() and (m.delta[0][hidden] == 0).all()  # -inf → -inf: unchanged
    c = diff(snap(ac.get_preset("statquest-self").scenario), pinned)  # none → causal: became masked
    assert torch.equal(c.steps["masked"].status[0] == MASKED, hidden)
    assert c.steps["masked"].delta[0][hidden].isnan().all()
    c = diff(pinned, snap(edited(sc, lambda s: s["mask"].update(fill="-1e9"))))  # still masked, other fill
    assert c.steps["masked"].moved == 0
    assert c.summary == "fill -inf → -1e9 → nothing moved"


X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


def hand(x: list[list[float]], mask: str | None = None) -> dict[str, Any]:
    sc: dict[str, Any] = {"x": x, "weights": {"init": "identity"}, "scale": False}
    return sc | ({"mask": {"kind": mask}} if mask else {})


def largest_weight_change(w0: Tensor, w1: Tensor) -> str:
    d = w1 - w0
    i, j = divmod(int(d.abs().flatten().argmax()), d.shape[1])
    return f"{float(d[i, j]):+.2f} at t{i + 1}→t{j + 1}"


def test_summary_counts_on_a_hand_built_edit() -> None:
    x1 = copy.deepcopy(X)
    x1[1][0] = 0.5  # x[t2,d1] 0 → 0.5; identity weights, so q = k = v = x
    c = diff(snap(hand(X)), snap(hand(x1)))
    # scores = x xᵀ: row 2 and column 2 change (5 cells); each softmax row then shifts (9 weights)
    w0 = (torch.tensor(X) @ torch.tensor(X).T).softmax(-1)
    w1 = (torch.tensor(x1) @ torch.tensor(x1).T).softmax(-1)
    assert c.summary == (
        "x[t2,d1] +0.50 → 1 of 3 q rows, 1 of 3 k rows, 1 of 3 v rows, 5 of 9 scores, 9 of 9 weights, "
        f"3 of 3 output rows moved; largest weight change {largest_weight_change(w0, w1)}"
    )
    assert c.changes == ("x[t2,d1] +0.50",)
    assert torch.equal(c.steps["x"].delta, torch.tensor([[0.0, 0.0], [0.5, 0.0], [0.0, 0.0]], dtype=torch.float64))


def test_summary_counts_on_a_hand_built_mask_change() -> None:
    c = diff(snap(hand(X)), snap(hand(X, "causal")))
    w0 = (torch.tensor(X) @ torch.tensor(X).T).softmax(-1)
    w1 = (torch.tensor(X) @ torch.tensor(X).T).masked_fill(~torch.ones(3, 3).tril().bool(), -math.inf).softmax(-1)
    # rows 1 and 2 lose keys (6 weights move), row 3 sees every key either way
    assert c.summary == (
        "mask none → causal → 0 of 9 scores, 6 of 9 weights, 2 of 3 output rows moved; "
        f"3 score cells became masked; largest weight change {largest_weight_change(w0, w1)}"
    )


def test_weight_cells_are_named_in_the_current_layout() -> None:
    sc = explicit("qkv-split")  # matmul layout: W_q[r][c] is in×out
    c = diff(snap(sc), snap(edited(sc, lambda s: s["weights"]["W_q"][0][2].__setitem__(3, 5.0))))
    assert c.changes[0].startswith("W_q[3,4] ")
    assert c.steps["W_q"].moved == 1 and c.steps["W_q"].status[0, 3, 2] == MOVED  # stored out×in: [c, r]


def test_nothing_changed() -> None:
    sc = ac.get_preset("statquest-mha2").scenario
    c = diff(snap(sc), snap(copy.deepcopy(sc)))
    assert c.summary == "no input or setting changed → nothing moved"
    assert all(step.moved == 0 for step in c.steps.values())


@pytest.mark.parametrize(
    ("base", "change", "field", "message"),
    [
        (hand(X), lambda s: s.update(x=[*s["x"], [2.0, 2.0]]), "T", "cannot compare cell by cell: T changed 3 → 4"),
        (hand(X), lambda s: s.update(x=[[*r, 0.0] for r in s["x"]]), "d_model", "d_model changed 2 → 3"),
        (ac.get_preset("statquest-mha1").scenario, lambda s: s.update(heads=2), "heads", "heads changed 1 → 2"),
        (ac.get_preset("statquest-self").scenario, lambda s: s.update(d_out=3), "d_k", "d_k changed 2 → 3"),
        (
            ac.get_preset("qkv-single").scenario,
            lambda s: s.update(head_mode="concat"),
            "head_mode",
            "head_mode changed split → concat",
        ),
        (
            ac.get_preset("encdec-cross").scenario,
            lambda s: s.update(x_k=[*s["x_k"], [1.0, 1.0]], x_v=[*s["x_v"], [1.0, 1.0]], tokens_k=None),
            "S",
            "S changed 3 → 4",
        ),
    ],
)
def test_shape_change_is_refused_by_name(base: dict, change: Callable, field: str, message: str) -> None:
    after = edited(base, change)
    with pytest.raises(CompareError, match=message) as e:
        diff(snap(base), snap(after))
    assert e.value.field == field
