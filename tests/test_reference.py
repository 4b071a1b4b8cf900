"""compute() against the independent reference (tests/reference.py) across the whole scenario space.

Dimensions drawn: fill (3) × normalisation (2) × mask kind (none, causal, padding, causal+padding, custom)
× self or cross attention (L ≠ S) × head mode (concat, split) × heads (1-3, some 8) × layout (linear,
matmul) × W_o (none, seeded, explicit; wide ones with H·d > 64 columns) × dtype (float32, float64)
× scale (√d_k, off, a temperature) × weights (seeded linear/rand/randn/identity, or explicit)
× magnitude (cells up to 2, or up to 2e3 so scores reach 1e7).

Each case is checked three ways: compute(sc); compute of the explicit scenario the app and the export
write (scenario_json); and that explicit scenario switched to padding-only, as the UI's mask box does.
CI runs REFERENCE_EXAMPLES (default 120) cases; ``REFERENCE_EXAMPLES=3000 pytest tests/test_reference.py``
runs more on demand.
"""

from __future__ import annotations

import json
import os
from typing import Any

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference

import attention_core as ac
from attention_core.export.notebook import scenario_json

N = int(os.environ.get("REFERENCE_EXAMPLES", "120"))
CASES = settings(max_examples=N, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
KINDS = ("none", "causal", "padding", "causal+padding", "custom")


@st.composite
def grid(draw: st.DrawFn, rows: int, cols: int, mag: float) -> list[list[float]]:
    """Halves in [-2, 2] times ``mag``: products and short sums are exact in float32."""
    return [[draw(st.integers(-4, 4)) * 0.5 * mag for _ in range(cols)] for _ in range(rows)]


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    mode = draw(st.sampled_from(["concat", "split"]))
    wide = mode == "concat" and draw(st.booleans())  # H·d > 64 columns in W_o (linear layout)
    heads = draw(st.sampled_from([2, 3] if wide else [1, 1, 2, 3, 8] if mode == "concat" else [1, 2, 3]))
    d_in = heads * draw(st.integers(1, 2)) if mode == "split" else draw(st.integers(1, 4))
    d_out = d_in if mode == "split" else (draw(st.integers(33, 40)) if wide else draw(st.integers(1, 4)))
    cross = draw(st.booleans())
    n_q = draw(st.integers(1, 5))
    n_k = draw(st.integers(1, 5)) if cross else n_q
    mag = draw(st.sampled_from([1.0, 1.0, 1e3]))
    layout = draw(st.sampled_from(["linear", "matmul"]))
    sc: dict[str, Any] = {"heads": heads, "head_mode": mode, "layout": layout, "d_out": d_out,
                          "dtype": draw(st.sampled_from(["float32", "float64"])),
                          "normalize": draw(st.sampled_from(["softmax", "sum"])),
                          "scale": draw(st.sampled_from([True, False, 0.5, 3.0]))}  # fmt: skip
    if cross:
        sc.update(x_q=draw(grid(n_q, d_in, mag)), x_k=draw(grid(n_k, d_in, mag)), x_v=draw(grid(n_k, d_in, mag)))
    else:
        sc["x"] = draw(grid(n_q, d_in, mag))
    with_w_o = draw(st.booleans())
    if draw(st.booleans()):
        recipes = ["linear", "rand", "randn"] + (["identity"] if mode == "split" or d_out == d_in else [])
        sc["weights"] = {"init": draw(st.sampled_from(recipes)), "seed": draw(st.integers(0, 99)), "w_o": with_w_o}
    else:
        n_mats, width = (heads, d_out) if mode == "concat" else (1, d_in)
        shape = (width, d_in) if layout == "linear" else (d_in, width)
        mats = {n: [draw(grid(*shape, 1.0)) for _ in range(n_mats)] for n in ("W_q", "W_k", "W_v")}
        o_shape = (d_in, n_mats * width) if layout == "linear" else (n_mats * width, d_in)
        sc["weights"] = {**mats, "W_o": draw(grid(*o_shape, 1.0)) if with_w_o else None}
    kind = draw(st.sampled_from(KINDS))
    mask: dict[str, Any] = {"kind": kind, "fill": draw(st.sampled_from(["-inf", "-1e9", "additive"]))}
    if "padding" in kind:
        mask["padding"] = [draw(st.booleans()) for _ in range(n_k)]
    if kind == "custom":
        mask["keep"] = [[int(draw(st.booleans())) for _ in range(n_k)] for _ in range(n_q)]
    sc["mask"] = mask
    return sc


def tolerance(ref: dict[str, Any], sc: dict[str, Any]) -> dict[str, float]:
    """Float rounding, scaled by the largest magnitude; divide-by-sum also by the row's cancellation."""
    eps = 1e-5 if sc["dtype"] == "float32" else 1e-12
    cond = 1.0
    if sc["normalize"] == "sum":  # |row| / |Σ row| amplifies a rounding in the sum
        for w in ref["weights"]:
            spread = w.abs().sum(dim=-1)  # Σ|w| over Σw = 1: how much the sum cancelled
            cond = max([cond, *spread.tolist()])
    return {"rtol": eps * cond, "atol": eps * cond}


def assert_matches(result: dict[str, Any], ref: dict[str, Any], sc: dict[str, Any], what: str) -> None:
    dt = ref["combined"].dtype
    tol = tolerance(ref, sc)
    for h, (w, out) in enumerate(zip(ref["weights"], ref["outputs"], strict=True)):
        got_w = torch.tensor(result["heads"][h]["weights"], dtype=dt)
        torch.testing.assert_close(got_w, w, **tol, msg=lambda m, h=h: f"{what}: head {h + 1} weights: {m}")
        got_out = torch.tensor(result["heads"][h]["output"], dtype=dt)
        size = 1 + max(out.abs().flatten().tolist(), default=0.0)
        msg = f"{what}: head {h + 1} output: "
        torch.testing.assert_close(got_out, out, rtol=tol["rtol"], atol=tol["atol"] * size, msg=lambda m, s=msg: s + m)
    size = 1 + max(ref["combined"].abs().flatten().tolist(), default=0.0)
    got = torch.tensor(result["output"], dtype=dt)
    msg = f"{what}: combined: "
    torch.testing.assert_close(
        got, ref["combined"], rtol=tol["rtol"], atol=tol["atol"] * size * 10, msg=lambda m: msg + m
    )


@CASES
@given(sc=cases())
def test_compute_matches_the_reference_everywhere(sc: dict[str, Any]) -> None:
    ref = reference(sc)
    assert_matches(ac.compute(sc), ref, sc, "compute(sc)")
    explicit = json.loads(json.dumps(scenario_json(ac.parse(sc))))  # what the app, links and exports carry
    assert_matches(ac.compute(explicit), ref, sc, "compute(scenario_json(sc))")
    if "padding" in sc["mask"]["kind"]:  # the UI's mask box switched to padding only: the same padded keys
        padding_only = {**sc, "mask": {**sc["mask"], "kind": "padding"}}
        switched = {**explicit, "mask": {**explicit["mask"], "kind": "padding"}}
        assert_matches(ac.compute(switched), reference(padding_only), padding_only, "explicit, then padding only")


def test_the_strategy_reaches_every_dimension() -> None:
    """The generated cases really cover the space (a strategy that never draws a wide W_o proves nothing)."""
    seen: dict[str, set] = {}

    @settings(max_examples=max(N, 120), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(sc=cases())
    def collect(sc: dict[str, Any]) -> None:
        w = sc["weights"]
        facts = {"fill": sc["mask"]["fill"], "kind": sc["mask"]["kind"], "norm": sc["normalize"],
                 "mode": sc["head_mode"], "layout": sc["layout"], "dtype": sc["dtype"], "scale": str(sc["scale"]),
                 "cross_LneS": "x_q" in sc and len(sc["x_q"]) != len(sc["x_k"]),
                 "w_o": "seeded" if w.get("w_o") else "explicit" if w.get("W_o") else "none",
                 "wide_w_o": (bool(w.get("w_o")) or w.get("W_o") is not None) and sc["heads"] * sc["d_out"] > 64,
                 "init": w.get("init", "explicit")}  # fmt: skip
        for k, v in facts.items():
            seen.setdefault(k, set()).add(v)

    collect()
    assert seen["fill"] == {"-inf", "-1e9", "additive"} and seen["kind"] == set(KINDS)
    assert seen["norm"] == {"softmax", "sum"} and seen["mode"] == {"concat", "split"}
    assert seen["layout"] == {"linear", "matmul"} and seen["dtype"] == {"float32", "float64"}
    assert len(seen["scale"]) == 4 and seen["cross_LneS"] == {True, False} and seen["wide_w_o"] == {True, False}
    assert seen["w_o"] == {"seeded", "explicit", "none"}
    assert seen["init"] == {"linear", "rand", "randn", "identity", "explicit"}
