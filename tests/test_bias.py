"""Biases in the core (nn.Linear's default bias=True): against nn.Linear and nn.MultiheadAttention with weights
copied, field-naming validation, the explanation's bias term, the code lines and the export round trip."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from test_export import app_prints, printed, run_script
from torch import nn

import attention_core as ac
from attention_core.export.notebook import scenario_json, to_script
from attention_core.teaching.explain import explain
from ui import pipeline, values
from ui.render import code_lines


def linear_heads(seed: int, d_in: int, d_out: int, heads: int) -> list[dict[str, nn.Linear]]:
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
    return [{r: nn.Linear(d_in, d_out, bias=True) for r in "qkv"} for _ in range(heads)]


def concat_scenario(x: torch.Tensor, layers: list[dict[str, nn.Linear]], layout: str = "linear") -> dict[str, Any]:
    def mat(w: torch.Tensor) -> list[list[float]]:
        return (w if layout == "linear" else w.T).tolist()

    weights: dict[str, Any] = {f"W_{r}": [mat(h[r].weight.detach()) for h in layers] for r in "qkv"}
    weights |= {f"b_{r}": [h[r].bias.detach().tolist() for h in layers] for r in "qkv"}
    return {"x": x.tolist(), "heads": len(layers), "layout": layout, "weights": weights}


@pytest.mark.parametrize("layout", ["linear", "matmul"])
def test_q_k_v_equal_nn_linear_with_bias(layout: str) -> None:
    x = torch.randn(5, 6, generator=torch.Generator().manual_seed(1))
    layers = linear_heads(7, 6, 4, 3)
    r = ac.compute(concat_scenario(x, layers, layout))
    for h, layer in enumerate(layers):
        for role in "qkv":
            want = layer[role](x).detach()
            torch.testing.assert_close(torch.tensor(r["heads"][h][role]), want)
            assert not torch.allclose(want, x @ layer[role].weight.detach().T)  # the bias made a difference
        q, k, v = (layer[n](x).detach() for n in "qkv")
        want_w = torch.softmax(q @ k.T / 2.0, dim=-1)
        torch.testing.assert_close(torch.tensor(r["heads"][h]["weights"]), want_w)
        torch.testing.assert_close(torch.tensor(r["heads"][h]["output"]), want_w @ v)


@pytest.mark.parametrize("masked", [False, True])
def test_split_heads_with_w_o_equal_multihead_attention_with_bias(masked: bool) -> None:
    torch.manual_seed(3)
    E, H, T = 8, 2, 4
    mha = nn.MultiheadAttention(E, H, bias=True, batch_first=True)
    with torch.no_grad():  # a non-zero bias everywhere (torch starts in_proj_bias and out_proj.bias at 0)
        mha.in_proj_bias.uniform_(-1, 1)
        mha.out_proj.bias.uniform_(-1, 1)
    x = torch.randn(T, E)
    w, b = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    pad = [False, False, True, False]
    sc = {
        "x": x.tolist(), "heads": H, "head_mode": "split",
        "weights": {"W_q": [w[:E].tolist()], "W_k": [w[E:2 * E].tolist()], "W_v": [w[2 * E:].tolist()],
                    "b_q": [b[:E].tolist()], "b_k": [b[E:2 * E].tolist()], "b_v": [b[2 * E:].tolist()],
                    "W_o": mha.out_proj.weight.detach().tolist(), "b_o": mha.out_proj.bias.detach().tolist()},
    }  # fmt: skip
    if masked:
        sc["mask"] = {"kind": "padding", "padding": pad}
    r = ac.compute(sc)
    kpm = torch.tensor([pad]) if masked else None
    out, weights = mha(x[None], x[None], x[None], key_padding_mask=kpm, average_attn_weights=False)
    torch.testing.assert_close(torch.tensor(r["output"]), out[0].detach())
    for h in range(H):
        torch.testing.assert_close(torch.tensor(r["heads"][h]["weights"]), weights[0, h].detach())


def test_zero_biases_change_nothing_and_absent_biases_leave_the_result_as_it_was() -> None:
    base = json.loads(json.dumps(scenario_json(ac.parse(ac.get_preset("statquest-mha2").scenario))))
    plain = ac.compute(base)
    assert not any(k.startswith("b_") for k in plain["weights_used"])
    zeros = {**base, "weights": {**base["weights"]}}
    for r in "qkv":
        zeros["weights"][f"b_{r}"] = [[0.0] * len(m) for m in base["weights"][f"W_{r}"]]
    got = ac.compute(zeros)
    assert got["heads"] == plain["heads"] and got["output"] == plain["output"]
    assert got["weights_used"]["b_q"] == zeros["weights"]["b_q"]


EYE = [[[1, 0], [0, 1]]] * 2
BASE = {"x": [[1, 2], [3, 4]], "heads": 2, "weights": {"W_q": EYE, "W_k": EYE, "W_v": EYE}}


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"b_q": [[1, 2], [1, 2, 3]]}, "b_q head 2: expected 2 numbers, got 3"),
        ({"b_k": [[1, 2]]}, "weights.b_k: must be a list of 2 vectors, one per head"),
        ({"b_v": [[1, "abc"], [0, 0]]}, "b_v head 1, item 2: 'abc' is not a number"),
        ({"b_v": [[1, float("nan")], [0, 0]]}, "b_v head 1, item 2"),
        ({"b_q": [[1, 1e300], [0, 0]]}, "b_q head 1, item 2: 1e+300 is too large"),
        ({"b_q": "bias"}, "weights.b_q: must be a list"),
        ({"b_q": [7, 8]}, "weights.b_q: must be a list"),
        ({"b_o": [1, 2]}, "b_o: is added after W_o, so it needs W_o"),
        ({"W_o": [[1, 0, 0, 0], [0, 1, 0, 0]], "b_o": [1, 2, 3]}, "b_o: expected 2 numbers, got 3"),
        ({"b_x": [[1, 2]]}, "weights.b_x: unknown key"),
    ],
)
def test_bad_biases_get_a_message_naming_the_field(extra: dict[str, Any], problem: str) -> None:
    with pytest.raises(ac.ScenarioError) as e:
        ac.compute({**BASE, "weights": {**BASE["weights"], **extra}})
    assert problem in str(e.value)


def bias_state() -> dict[str, Any]:
    return {**BASE, "weights": {**BASE["weights"], "b_q": [[0.5, -1], [2, 0]], "b_v": [[1, 1], [0, 3]],
                                "W_o": [[1, 0, 0, 1], [0, 1, 1, 0]], "b_o": [0.25, -0.5]}}  # fmt: skip


def test_explanation_shows_the_bias_term_and_code_lines_say_bias_true() -> None:
    s = ac.parse(bias_state())
    tr = ac.evaluate(s)
    e = explain(tr, 1, "q", 1, 0, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    assert e.value == pytest.approx(3 + 2) and any("+ b_q[1]" in ln for ln in e.lines)
    assert "3.0000 + 2.0000" in e.lines[-2] and e.lines[-1] == "= 5.0000"
    k = explain(tr, 0, "k", 0, 0, {"q": s.x_q, "k": s.x_k, "v": s.x_v})  # no b_k: no bias term
    assert not any("b_k" in ln for ln in k.lines)
    c = explain(tr, 0, "combine", 0, 1, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    assert any("b_o[2]" in ln for ln in c.lines) and c.value == pytest.approx(float(tr.output[0, 1]))
    sc = explain(tr, 1, "scores", 0, 1, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    assert "q_1 = x_1 W_qᵀ + b_q" in sc.lines[0] and "b_k" not in sc.lines[0]
    assert sc.value == pytest.approx(float(tr.head(1)["scores"][0, 1]))
    plain = ac.evaluate(ac.parse(BASE))
    assert not any("bias" in ln for ln in explain(plain, 0, "scores", 0, 1, {"q": s.x_q, "k": s.x_k}).lines)
    assert "bias=True" in code_lines.code_for("qkv", "000", s) and "bias=True" in code_lines.code_for(
        "combine", "001", s
    )
    assert "bias" not in code_lines.code_for("qkv", "000", ac.parse(BASE))


@pytest.mark.parametrize("mode", ["concat", "split"])
def test_export_round_trip_with_biases(mode: str, tmp_path: Path) -> None:
    sc = bias_state()
    if mode == "split":
        sc = {"x": [[1, 2, 0, 1], [3, 4, 1, 0]], "heads": 2, "head_mode": "split", "layout": "matmul",
              "weights": {"W_q": [torch.eye(4).tolist()], "W_k": [torch.eye(4).tolist()],
                          "W_v": [torch.eye(4).tolist()], "b_k": [[1, 0, -1, 2]], "W_o": torch.eye(4).tolist(),
                          "b_o": [0, 1, 0, 1]}}  # fmt: skip
    s = ac.parse(sc)
    explicit = json.loads(json.dumps(scenario_json(s)))
    assert ac.compute(explicit) == ac.compute(sc)
    assert all(explicit["weights"][n] == sc["weights"][n] for n in ("b_q", "b_k", "b_v", "b_o") if n in sc["weights"])
    got = printed(run_script(to_script(s, f"bias {mode}"), tmp_path))
    assert got == app_prints(s)


def test_a_scenario_file_with_biases_opens_in_the_workbench_with_them() -> None:
    sc = bias_state()
    _, _, nv, views = pipeline.scenario_values(sc)
    assert nv.biases["b_q"] == sc["weights"]["b_q"] and "bias=True" in views["html_qkv"]
    s = ac.parse(values.scenario_from(nv))
    assert ac.compute(scenario_json(s)) == ac.compute(sc)
    _, bigger, _ = pipeline.restructure_values("resize", None, values.shape_of(nv, "linear"), replace(nv, d_in=3))
    assert bigger is not None and bigger.biases is None  # a new shape drops biases that no longer fit
