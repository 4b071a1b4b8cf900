"""Issue #11's wrong answers, one test each, against the reference, nn.Linear or the rule the issue states."""

from __future__ import annotations

import json

import pytest
import torch
from reference import reference
from torch import nn

import attention_core as ac
from attention_core.export.notebook import scenario_json
from attention_core.ops.sdpa import compare_fills, fill_verdicts
from attention_core.teaching.explain import explain
from ui import values
from ui.render import mask_tables

FILLS = ("-inf", "-1e9", "additive")


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("normalize", ["softmax", "sum"])
@pytest.mark.parametrize("kind", ["causal", "padding", "custom"])
def test_1_a_hidden_key_gets_weight_0_in_every_row_that_sees_a_key(fill: str, normalize: str, kind: str) -> None:
    """The issue's example: x=[[1,2],[3,4]], identity, causal, -1e9, divide-by-sum gave row 1 [-3.5e-09, 1.0]."""
    extra = {"causal": {}, "padding": {"padding": [False, True]}, "custom": {"keep": [[1, 0], [1, 1]]}}[kind]
    mask = {"kind": kind, "fill": fill, **extra}
    sc = {"x": [[1, 2], [3, 4]], "weights": {"init": "identity"}, "normalize": normalize, "mask": mask}
    r = ac.compute(sc)
    weights = torch.tensor(r["heads"][0]["weights"])
    keep = torch.tensor(r["keep"]) == 1
    assert torch.all(weights[~keep] == 0), weights
    torch.testing.assert_close(weights, reference(sc)["weights"][0])
    torch.testing.assert_close(weights.sum(-1), torch.ones(2))


def test_2_a_wide_w_o_parses_in_the_linear_layout() -> None:
    """heads=2, d_model=d_out=64 with W_o (64 × 128): the explicit scenario the UI sends must compute."""
    g = torch.Generator().manual_seed(0)
    x = (torch.randint(-4, 5, (3, 64), generator=g) * 0.5).tolist()
    sc = {"x": x, "heads": 2, "d_out": 64, "weights": {"init": "linear", "seed": 1, "w_o": True}}
    explicit = json.loads(json.dumps(scenario_json(ac.parse(sc))))
    assert torch.tensor(explicit["weights"]["W_o"]).shape == (64, 128)
    got = torch.tensor(ac.compute(explicit)["output"])
    torch.testing.assert_close(got, reference(sc)["combined"])
    matmul = {**explicit, "layout": "matmul", "weights": {
        **{n: [torch.tensor(m).T.tolist() for m in explicit["weights"][n]] for n in ("W_q", "W_k", "W_v")},
        "W_o": torch.tensor(explicit["weights"]["W_o"]).T.tolist()}}  # fmt: skip
    torch.testing.assert_close(torch.tensor(ac.compute(matmul)["output"]), got)


def test_3_mask_lab_says_where_minus_1e9_stops_hiding_and_why() -> None:
    q = torch.tensor([[1e5, 0.0], [1.0, 1.0]])
    k = torch.tensor([[-1e5, 0.0], [1.0, 0.0]])  # row 1's visible score is -1e10, far below -1e9
    keep = torch.tensor([[True, False], [True, True]])
    traces = compare_fills(q, k, torch.eye(2), keep, scale=False)
    assert traces["-1e9"].weights[0, 1] > 0.99 and traces["-inf"].weights[0, 1] == 0  # the fills really differ
    verdict = fill_verdicts(traces)
    for fill in FILLS:
        assert "row 1: the hidden keys get weight 1 under -1e9" in verdict[fill]
        assert "-1e9 is a finite score" in verdict[fill] and "m = -1e+10" in verdict[fill]
        assert "same weights" not in verdict[fill]
    page = mask_tables.mask_lab_html(ac.compose_keep(2, 2, False, [False, True], []), traces, ["a", "b"], ["c", "d"],
                            "float32")  # fmt: skip
    assert "all three fills give the same weights" not in page and "-1e9 is a finite score" in page
    small = fill_verdicts(compare_fills(q / 1e5, k / 1e5, torch.eye(2), keep, scale=False))
    assert all("exactly the same weights" in t for t in small.values())


def test_4_explain_divide_by_sum_with_a_mask_sums_only_the_visible_scores() -> None:
    s = ac.parse({"x": [[1, 2], [3, 4]], "weights": {"init": "identity"}, "normalize": "sum",
                  "mask": {"kind": "causal", "fill": "-inf"}})  # fmt: skip
    tr = ac.evaluate(s)
    x = {"q": s.x_q, "k": s.x_k, "v": s.x_v}
    text = " ".join(explain(tr, 0, "weights", 0, 0, x).lines)
    assert "inf" not in text and "Σ = 3.5355 = 3.5355" in text and "3.5355 / 3.5355 = 1.0000" in text
    assert "key(s) 2 hidden" in text
    hidden = explain(tr, 0, "weights", 0, 1, x)
    assert hidden.lines[-1] == "key 2 is hidden from query 1: weight = 0.0000"


def test_5_cross_attention_causal_padding_keeps_the_real_padding_flags() -> None:
    """2 queries, 4 keys, no key padded: the padding box must stay empty, and switching to padding hides nothing."""
    sc = {"x_q": [[1, 0], [0, 1]], "x_k": [[1, 1], [2, 0], [0, 3], [1, 2]],
          "mask": {"kind": "causal+padding", "padding": [False, False, False, False]}}  # fmt: skip
    s = ac.parse(sc)
    assert s.padding == (False, False, False, False)
    assert scenario_json(s)["mask"]["padding"] == [False] * 4
    assert values.values_from_scenario(s).padding == ""
    padded = ac.parse({**sc, "mask": {"kind": "causal+padding", "padding": [False, True, False, False]}})
    assert values.values_from_scenario(padded).padding == "2"
    assert ac.parse({"x": [[1.0]]}).padding is None


@pytest.mark.parametrize(
    ("flag", "expect"), [("false", False), ("true", True), (0, False), ("1", True), (False, False)]
)
def test_6_w_o_is_parsed_as_a_flag(flag: object, expect: bool) -> None:
    s = ac.parse({"x": [[1, 2]], "weights": {"init": "linear", "seed": 1, "w_o": flag}})
    assert (s.weights.W_o is not None) is expect
    with pytest.raises(ac.ScenarioError, match=r"weights\.w_o: .maybe. is not true/false"):
        ac.parse({"x": [[1, 2]], "weights": {"init": "linear", "w_o": "maybe"}})


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("d_in", "d_out"), [(2, 2), (3, 2), (7, 5), (64, 33)])
def test_6_seeded_weights_are_what_nn_linear_and_rand_draw_in_that_dtype(d_in: int, d_out: int, dtype) -> None:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(11)
        layers = [nn.Linear(d_in, d_out, bias=False, dtype=dtype) for _ in range(3)]
        w_o = nn.Linear(d_out, d_in, bias=False, dtype=dtype)
        torch.manual_seed(12)
        rand = [torch.rand(d_in, d_out, dtype=dtype) for _ in range(3)]
    w = ac.init_weights("linear", 11, d_in, d_out, 1, "concat", "linear", True, dtype)
    for mine, layer in zip((w.W_q[0], w.W_k[0], w.W_v[0]), layers, strict=True):
        assert torch.equal(mine, layer.weight.detach())
    assert torch.equal(w.W_o, w_o.weight.detach())
    p = ac.init_weights("rand", 12, d_in, d_out, 1, "concat", "matmul", False, dtype)
    assert torch.equal(p.W_q[0], rand[0]) and torch.equal(p.W_v[0], rand[2])


def test_6_the_fully_masked_row_text_under_divide_by_sum_does_not_talk_about_softmax() -> None:
    for fill in FILLS:
        r = ac.compute({"x": [[1, 2], [3, 4]], "normalize": "sum", "weights": {"init": "identity"},
                        "mask": {"kind": "custom", "keep": [[0, 0], [1, 1]], "fill": fill}})  # fmt: skip
        assert "softmax" not in r["warnings"][0] and "Divide-by-sum" in r["warnings"][0]
        assert r["heads"][0]["weights"][0] == [0.0, 0.0]
    softmax = ac.compute({"x": [[1, 2], [3, 4]], "mask": {"kind": "custom", "keep": [[0, 0], [1, 1]]}})
    assert "softmax computes 0/0 = NaN" in softmax["warnings"][0]


def test_6_a_batched_keep_does_not_combine_dead_rows_across_the_batch() -> None:
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 4, generator=g) for _ in range(3))
    keep = torch.ones(2, 3, 3, dtype=torch.bool)
    keep[0, 1] = False  # row 2 sees no key in batch element 1 only
    tr = ac.attend(q, k, v, keep=keep)
    assert torch.all(tr.weights[0, 1] == 0)
    torch.testing.assert_close(tr.weights[1], torch.softmax(q[1] @ k[1].T / 2.0, dim=-1))
    assert tr.fully_masked_rows == (1,)
