"""Explain any number: the written-out arithmetic must itself reproduce the cell it explains."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
import torch
from torch.testing import assert_close

import attention_core as ac
from attention_core.teaching.explain import explain, projection, sources
from ui import pipeline

NUM = r"\(?(-?[0-9.]+(?:e[-+][0-9]+)?|-inf)\)?"


def traced(preset: str) -> tuple[ac.Scenario, ac.Trace, dict[str, torch.Tensor]]:
    s = ac.parse(ac.get_preset(preset).scenario)
    return s, ac.evaluate(s), {"q": s.x_q, "k": s.x_k, "v": s.x_v}


def shown(line: str) -> tuple[float, float]:
    """The result a panel line prints (after its last "="), and half a unit in its last printed digit."""
    token = re.findall(NUM, line.rsplit("=", 1)[-1])[0]  # the number right after the last "="
    mantissa, _, exp = token.partition("e")
    return float(token), 0.5 * 10.0 ** (int(exp or 0) - len(mantissa.partition(".")[2]))


def assert_shows(line: str, cell: float) -> None:
    """The panel's printed result is the trace's cell, at the precision it is printed with."""
    value, half = shown(line)
    assert abs(value - cell) <= half * (1 + 1e-9), (line, cell)


def dot_sum(line: str) -> float:
    """Evaluate the 'a×b + c×d + …' line of an explanation from its own printed (4-decimal) numbers."""
    pairs = re.findall(NUM + "×" + NUM, line)
    assert pairs, line
    return sum(float(a) * float(b) for a, b in pairs)


@pytest.mark.parametrize("preset", ac.preset_ids())
def test_the_projection_shown_is_the_one_that_made_q_k_v(preset: str) -> None:
    """x @ projection(head) == the head's q/k/v, for both layouts and both head modes (with RoPE on, the q and k
    before the rotation; with kv heads, the k and v of the head's group)."""
    _, tr, x = traced(preset)
    p = tr
    for h in range(tr.heads):
        for role in ("q", "k", "v"):
            want = tr.head(h)[role]
            if p is not None and p.rope is not None and role != "v":
                want = p.rope.q[h] if role == "q" else p.rope.k[p.head_map[h]]
            assert_close(x[role] @ projection(tr, h, role), want)


@pytest.mark.parametrize("preset", ["statquest-masked", "encdec-mha2", "qkv-split", "llm-parameter", "numpy-masked"])
def test_written_sums_reproduce_every_cell(preset: str) -> None:
    _, tr, x = traced(preset)
    cut = 0
    for h in range(tr.heads):
        part = tr.head(h)
        for name in ("q", "k", "v", "scores", "output"):
            t = part[name]
            for i in range(min(t.shape[0], 4)):
                for j in range(min(t.shape[1], 4)):
                    e = explain(tr, h, name, i, j, x)
                    line = next(ln for ln in e.lines if re.search(NUM + "×" + NUM, ln))
                    if "more terms" in line:  # long sums show their first MAX_TERMS terms only
                        cut += 1
                        continue
                    result_line = e.lines[e.lines.index(line) + 1]  # "= 1.0100", right below the terms
                    result = shown(result_line)[0]  # recomputed from the printed terms, it is the printed result
                    assert math.isclose(dot_sum(line), result, abs_tol=5e-3), (name, i, j, e.lines)
                    assert_shows(result_line, float(t[i, j]))  # and the printed result is the trace's cell
    assert cut < 16  # most cells were checked in full


def test_the_issue_example_score_is_written_term_by_term() -> None:
    """000's printed q and k: scores[1, 1] = 0.7621×(-0.1469) + (-0.0428)×(-0.3038) = -0.0990."""
    _, tr, x = traced("statquest-self")
    e = explain(tr, 0, "scores", 0, 0, x)
    assert e.lines[0].endswith("0.7621×(-0.1469) + (-0.0428)×(-0.3038)")
    assert e.lines[1] == "= -0.0990"
    assert "÷ √d_k = √2 = 1.4142" in e.lines[2] and "-0.0700" in e.lines[2]


def test_weight_cell_shows_each_exp_their_sum_and_the_division() -> None:
    _, tr, x = traced("statquest-masked")  # causal, -inf fill
    e = explain(tr, 0, "weights", 1, 0, x)
    exps = [float(m) for m in re.findall(r"\) = ([0-9.]+)", " ".join(ln for ln in e.lines if ln.startswith("key")))]
    masked = tr.head(0)["masked"][1]
    assert_close(torch.tensor(exps), masked.exp(), atol=1e-4, rtol=0)
    assert any("◀ this cell" in ln and ln.startswith("key 1") for ln in e.lines)
    total = float(re.search(r"sum = ([0-9.]+)", " ".join(e.lines)).group(1))
    assert math.isclose(sum(exps), total, abs_tol=2e-4)  # the printed sum is the sum of the printed exps
    a, b = (float(n) for n in re.findall(NUM, e.lines[-1])[:2])
    assert (a, b) == (exps[0], total) and math.isclose(a / b, shown(e.lines[-1])[0], abs_tol=1e-4)
    assert_shows(e.lines[-1], float(tr.head(0)["weights"][1, 0]))
    assert "exp(-inf) = 0.0000" in " ".join(e.lines)  # the masked key, spelled out


def test_masked_cell_says_what_the_fill_did() -> None:
    _, tr, x = traced("statquest-masked")
    hidden = " ".join(explain(tr, 0, "masked", 0, 2, x).lines)
    seen = " ".join(explain(tr, 0, "masked", 2, 0, x).lines)
    assert "hidden from query 1" in hidden and "masked = -inf" in hidden and "(000)" in hidden
    assert "visible to query 3" in seen


def test_huge_scores_are_shifted_like_torch_and_stay_finite() -> None:
    s = ac.parse({"x": [[1000.0, 0.0], [0.0, 1000.0]], "weights": {"init": "identity"}})
    tr = ac.evaluate(s)
    e = explain(tr, 0, "weights", 0, 0, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    assert "shifted by the row max" in e.lines[0]
    assert not any("inf" in ln or "nan" in ln for ln in e.lines)
    assert e.value == 1.0


@pytest.mark.parametrize(
    ("fill", "expect"), [("-inf", "0 / 0 = NaN"), ("additive", "0 / 0 = NaN"), ("-1e9", "uniform")]
)
def test_fully_masked_row_explains_nan_or_uniform(fill: str, expect: str) -> None:
    keep = [[0, 0], [1, 1]]
    s = ac.parse({"x": [[1, 2], [3, 4]], "weights": {"init": "identity"}, "mask": {"kind": "custom", "keep": keep,
                                                                                 "fill": fill}})  # fmt: skip
    tr = ac.evaluate(s)
    e = explain(tr, 0, "weights", 0, 1, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
    assert expect in " ".join(e.lines)
    assert e.value == (0.5 if fill == "-1e9" else 0.0)


def test_combine_names_the_head_or_writes_the_w_o_sum() -> None:
    _, tr, x = traced("encdec-mha2")  # two heads concatenated, no W_o
    e = explain(tr, 1, "combine", 0, 3, x)
    assert "columns 3–4 come from head 2" in e.lines[0] and e.value == float(tr.head(1)["output"][0, 1])
    for layout in ("linear", "matmul"):  # split heads merged, then through W_o
        s = ac.parse({"x": [[0.5, -1, 2, 0.25], [1, 0, -0.5, 3]], "heads": 2, "head_mode": "split",
                      "layout": layout, "weights": {"init": "linear", "seed": 7, "w_o": True}})  # fmt: skip
        tr = ac.evaluate(s)
        e = explain(tr, 0, "combine", 1, 2, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
        assert "@ W_o, column 3" in e.lines[0]
        assert math.isclose(dot_sum(e.lines[1]), shown(e.lines[-1])[0], abs_tol=5e-4)
        assert_shows(e.lines[-1], float(tr.output[1, 2]))


def test_a_click_marks_the_cell_and_its_sources_and_follows_edits() -> None:
    _, v, _ = pipeline.load_values("statquest-self")
    v = replace(v, pick={"name": "scores", "row": 0, "col": 1})
    views = pipeline.compute_views("statquest-self", v)
    assert "q_1 · k_2" in views["explain"] and "query 1 is &#x27;t1&#x27;, key 2 is &#x27;t2&#x27;" in views["explain"]
    assert re.search(r"<td class='[^']* pick' data-r='0' data-c='1'>", views["html_scores"])
    assert views["html_qkv"].split("data-name='k'")[1].count(" used'") == 2  # k row 2: both columns
    edited = replace(v, x=[[r[0], *r[1:]] for r in v.x["data"]])
    edited.x[0][1] = "2.0"  # x_1 changes, so q_1 and the score change; the panel follows
    after = pipeline.compute_views("statquest-self", edited)
    assert after["explain"] != views["explain"] and "q_1 · k_2" in after["explain"]


def test_a_pick_outside_the_tensor_after_a_resize_says_so() -> None:
    _, v, _ = pipeline.load_values("statquest-self")
    views = pipeline.compute_views("statquest-self", replace(v, pick={"name": "weights", "row": 7, "col": 0}))
    assert "no longer in the tensor" in views["explain"] and "weights[8, 1]" in views["explain"]


JUNK_CLICKS = [None, "x", {}, {"name": "W_q", "row": 0, "col": 0}, {"name": "q", "row": -1, "col": 0},
               {"name": "q", "row": "0", "col": 0}, {"name": "q", "row": True, "col": 0},
               {"name": "q", "row": 10**9, "col": 0}]  # fmt: skip


@pytest.mark.parametrize("junk", JUNK_CLICKS)
def test_malformed_clicks_are_ignored(junk: object) -> None:
    assert pipeline.parse_pick(junk) is None
    assert pipeline.parse_pick({"name": "q", "row": 1, "col": 0}) == {"name": "q", "row": 1, "col": 0}


def test_sources_of_an_output_cell_are_its_weight_row_and_value_column() -> None:
    assert sources("output", 2, 1) == {"weights": [(2, None)], "v": [(None, 1)]}
    assert sources("q", 0, 0) == {}


@pytest.mark.parametrize("fill", ["-inf", "-1e9", "additive"])
def test_divide_by_sum_terms_recompute_the_printed_weight_and_match_the_trace(fill: str) -> None:
    s = ac.parse({"x": [[1, 2, 0.5], [3, 4, -1], [0.5, -2, 2]], "weights": {"init": "identity"},
                  "normalize": "sum", "mask": {"kind": "causal", "fill": fill}})  # fmt: skip
    tr = ac.evaluate(s)
    for i in range(3):
        for j in range(3):
            e = explain(tr, 0, "weights", i, j, {"q": s.x_q, "k": s.x_k, "v": s.x_v})
            sigma = next(ln for ln in e.lines if ln.startswith("Σ = "))
            terms = [float(t) for t in re.findall(NUM, sigma.split(" = ")[1])]
            assert len(terms) == i + 1 and math.isclose(sum(terms), shown(sigma)[0], abs_tol=5e-4)  # visible only
            if j <= i:
                a, b = (float(n) for n in re.findall(NUM, e.lines[-1])[:2])
                assert math.isclose(a / b, shown(e.lines[-1])[0], abs_tol=1e-4)
            assert_shows(e.lines[-1], float(tr.head(0)["weights"][i, j]))


# ---- the variant steps' own cells: q and k before RoPE, a KV-cache decode step, the cache's size ----------------


def decoding(preset: str = "llama-style", **more: object) -> tuple[ac.Scenario, ac.Trace]:
    sc = {**ac.get_preset(preset).scenario, "decode": True, **more}
    sc["mask"] = {**sc.get("mask", {}), "kind": "causal"}
    s = ac.parse(sc)
    return s, ac.evaluate(s)


def test_a_decode_step_says_what_it_reads_and_equals_the_full_causal_row() -> None:
    s, tr = decoding()
    head = ac.compute(ac.scenario_json(s))["heads"][1]  # head 2, its q and k after RoPE
    q, k = torch.tensor(head["q"], dtype=torch.float64), torch.tensor(head["k"], dtype=torch.float64)
    t = q.shape[0]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    want = torch.softmax((q @ k.T / math.sqrt(q.shape[-1])).masked_fill(~causal, float("-inf")), dim=-1)  # (T, T)
    for step in range(t):
        for j in range(t):
            e = explain(tr, 1, "kv_row", step, j, {})
            assert_close(e.value, float(want[step, j]), atol=1e-6, rtol=0)
            assert e.title == f"KV-cache decode step {step + 1}, key {j + 1} (head 2)"
            assert f"grows to {step + 1} rows" in e.lines[0] and "reads only the cached K and V" in e.lines[1]
            assert ("(cached)" in e.lines[2]) == (j <= step), e.lines
            assert_shows(e.lines[2].replace("weight", "="), float(want[step, j]))
            assert e.lines[3].endswith("the same row, equal"), e.lines[3]
    size = explain(tr, 0, "cache", 2, 0, {})
    assert size.value == 3 and size.lines[0].endswith("tokens 1 … 3"), size.lines
    with pytest.raises(IndexError):
        explain(tr, 0, "kv_row", t, 0, {})


@pytest.mark.parametrize(
    ("window", "held", "rows"),
    [
        (None, ["token 1", "tokens 1, 2", "tokens 1 … 3", "tokens 1 … 4"], ["1 row", "2 rows", "3 rows", "4 rows"]),
        (2, ["token 1", "tokens 1, 2", "tokens 2, 3", "tokens 3, 4"], ["1 row", "2 rows", "2 rows", "2 rows"]),
    ],
)
def test_the_cache_size_is_worded_for_one_token_and_for_many(window: int | None, held: list, rows: list) -> None:
    _, tr = decoding(window=window)  # the llama-style preset: 5 tokens, its first 4 decode steps
    for t in range(4):
        e = explain(tr, 0, "cache", t, 0, {})
        assert e.value == int(rows[t].split()[0])
        assert e.lines[0] == f"after decode step {t + 1} the cache holds the K and V rows of {held[t]}", e.lines
        assert e.lines[1].startswith("it grows by one row per token") and e.lines[1].endswith(f": {rows[t]}"), e.lines


def test_q_and_k_before_rope_are_the_projections() -> None:
    s, tr = decoding()
    wq = projection(tr, 0, "q")  # (D, E): the column j of W this head uses
    e = explain(tr, 0, "q_before", 1, 1, {})
    assert_close(e.value, float(tr.x_q[1] @ wq[:, 1]), atol=1e-5, rtol=0)
    assert e.title.startswith("q before RoPE[2, 2]") and "RoPE then turns" in e.lines[-1]
    assert pipeline.parse_pick({"name": "kv_row", "row": 1, "col": 0}) == {"name": "kv_row", "row": 1, "col": 0}
    html, ok = pipeline.explain_pick(s, tr, 0, {"name": "cache", "row": 1, "col": 0})
    assert ok and "KV cache size after step 2" in html, html
