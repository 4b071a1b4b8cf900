"""The attention layer: one function, :func:`multi_head`, runs the same numbered steps for every scenario.

    1. positions   2. project (H query heads, G kv heads)   3. rotate   4. share K and V   5. score   6. scale
    7. bias   8. mask   9. normalise   10. mix   11. combine (W_o)

A step at its default does nothing (no positions, G = H, no bias, no window), so the notebooks' attention is the
same function with its defaults. Steps 5–10 are an execution strategy (strategies.py): "full" always, "tiled" and
"kv_cache" beside it when the variants ask.

Symbols: L query length, S key length, D = d_in (d_model), d = d_out (per-head width), H heads, G kv heads.
"""

from __future__ import annotations

from dataclasses import replace

from torch import Tensor

from ..ops.kv_heads import kv_head_map, share_kv
from ..ops.masks import combine_keep, window_keep
from ..ops.positions import alibi, rope, sinusoidal
from ..ops.projections import MODES, Weights, apply_out, merge_heads, project, split_heads
from ..ops.trace import NO_VARIANTS, Trace, Variants
from .strategies import STRATEGIES

__all__ = ["NO_VARIANTS", "Trace", "Variants", "multi_head", "prepare", "project_heads"]


def project_heads(
    x_q: Tensor, x_k: Tensor, x_v: Tensor, weights: Weights, heads: int, kv_heads: int, mode: str
) -> tuple[Tensor, Tensor, Tensor]:
    """q (..., H, L, E), k (..., G, S, E), v (..., G, S, Ev) through the weights, in either layout and head mode.

    concat: per-head (d×D) projections, E = d. split: one projection per role, split into heads of D/H (W_k and W_v
    are G·D/H wide).
    """
    w, lay = weights, weights.layout
    if mode == "concat":
        return project(x_q, w.W_q, lay, w.b_q), project(x_k, w.W_k, lay, w.b_k), project(x_v, w.W_v, lay, w.b_v)
    if mode != "split":
        raise ValueError(f"head_mode={mode!r} is not one of {MODES}")
    d_model = w.W_q.shape[-1 if lay == "linear" else -2]
    if d_model % heads:
        raise ValueError(f"heads={heads} does not divide d_model={d_model} in split mode")
    q = split_heads(project(x_q, w.W_q, lay, w.b_q).squeeze(-3), heads)  # (..., L, D) -> (..., H, L, D/H)
    k = split_heads(project(x_k, w.W_k, lay, w.b_k).squeeze(-3), kv_heads)  # (..., S, G·D/H) -> (..., G, S, D/H)
    v = split_heads(project(x_v, w.W_v, lay, w.b_v).squeeze(-3), kv_heads)
    return q, k, v


def prepare(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Tensor | None = None,
    scale: bool | float = True,
    fill: str = "-inf",
    normalize: str = "softmax",
    variants: Variants | None = None,
    causal: bool = False,
    padding: tuple[bool, ...] | None = None,
) -> Trace:
    """Steps 3, 4, 7 and 8's inputs from projected heads q (..., H, L, E), k (..., G, S, E), v (..., G, S, Ev):
    RoPE turns q and k, each query head gets its group's K and V, ALiBi's bias, the mask ∧ the window. The trace
    every strategy reads."""
    var = NO_VARIANTS if variants is None else variants
    heads, n_q, n_k = q.shape[-3], q.shape[-2], k.shape[-2]
    # 3. rotate: RoPE turns q and k by their positions
    r = rope(q, k, var.rope_base) if var.positions == "rope" else None
    q_r, k_r = (q, k) if r is None else (r.q_rot, r.k_rot)
    # 4. share K and V: query head h reads kv head h // (H/G)
    k_sh, v_sh = share_kv(k_r, heads), share_kv(v, heads)  # (..., H, S, E), (..., H, S, Ev)
    # 7. bias (ALiBi) and 8. mask (∧ the window): applied by the strategy, after 5. score and 6. scale
    ab = alibi(heads, n_q, n_k, dtype=q.dtype) if var.alibi else None
    win = None if var.window is None else window_keep(n_q, n_k, var.window, causal=causal)
    return Trace(
        heads=heads, variants=None if var == NO_VARIANTS else var, scale=scale, fill=fill, normalize=normalize,
        padding=padding, rope=r, head_map=kv_head_map(heads, k.shape[-3]), k_kv=k_r, v_kv=v, q=q_r, k=k_sh, v=v_sh,
        bias=None if ab is None else ab.bias, alibi=ab, keep=combine_keep(keep, win), window_keep=win,
    )  # fmt: skip


def multi_head(
    x_q: Tensor,
    x_k: Tensor,
    x_v: Tensor,
    weights: Weights,
    heads: int,
    mode: str = "concat",
    keep: Tensor | None = None,
    scale: bool | float = True,
    fill: str = "-inf",
    normalize: str = "softmax",
    variants: Variants | None = None,
    causal: bool = False,
    padding: tuple[bool, ...] | None = None,
) -> Trace:
    """The attention layer over x_q (..., L, D) and x_k, x_v (..., S, D): the same numbered steps for every scenario.

    ``variants`` (None: every one at its default) names the optional steps; a step at its default does nothing, so
    the notebooks' plain attention is this function with its defaults. ``causal`` says whether ``keep`` is causal
    (the window then keeps the last w keys rather than a band); ``padding`` (S,) are the padded keys for KV-cache
    decoding. The strategies the variants name besides "full" (tiles, the KV cache) run on the same inputs.
    """
    var = NO_VARIANTS if variants is None else variants
    kv = heads if var.kv_heads is None else var.kv_heads
    # 1. positions: the sinusoidal encoding is added to the inputs (RoPE comes at step 3)
    pe_q = pe_k = None
    if var.positions == "sinusoidal":
        pe_q = sinusoidal(x_q.shape[-2], x_q.shape[-1], dtype=x_q.dtype)  # (L, D)
        pe_k = sinusoidal(x_k.shape[-2], x_k.shape[-1], dtype=x_k.dtype)  # (S, D)
        x_q, x_k, x_v = x_q + pe_q, x_k + pe_k, x_v + pe_k
    # 2. project: H query heads, G kv heads
    q, k, v = project_heads(x_q, x_k, x_v, weights, heads, kv, mode)  # (..., H, L, E), (..., G, S, E), (..., G, S, Ev)
    # 3.–8. rotate, share K and V, the bias and the mask: what every strategy reads
    p = prepare(q, k, v, keep, scale, fill, normalize, var, causal, padding)
    # 5.–10. score, scale, bias, mask, normalise, mix: the strategy named "full" keeps every intermediate
    tr = STRATEGIES["full"](p)
    runs = {name: STRATEGIES[name](p) for name in var.strategies}  # beside "full", checked against it
    # 11. combine: the heads side by side, through W_o
    concat = merge_heads(tr.mixed)  # (..., H, L, Ev) -> (..., L, H·Ev)
    output = apply_out(concat, weights.W_o, weights.layout, weights.b_o)
    return replace(
        tr, mode=mode, params=weights, pe_q=pe_q, pe_k=pe_k, x_q=x_q, x_k=x_k, x_v=x_v, concat=concat, output=output,
        tiled=runs.get("tiled"), decoding=runs.get("kv_cache"),
    )  # fmt: skip
