"""One entry point that puts the modern variants together: positions, GQA, ALiBi, sliding window, tiling, decoding.

Symbols: T tokens, D model width, L query length, S key length, E head width, Ev value width, H query heads,
G kv heads. The order is a decoder layer's:

    x (T, D) ─ + sinusoidal PE ─ projections W_q (H·E, D), W_k, W_v (G·E, D) ─ q (H, L, E), k, v (G, S, E)
      ─ RoPE on q and k ─ q kᵀ / √E ─ + ALiBi bias ─ mask (causal ∧ window ∧ padding) ─ softmax ─ · v

Every piece is also usable on its own: ``positions`` (sinusoidal, rope, alibi), ``variants``
(grouped_query_attention, window_keep), ``tiled`` (tiled_attention), ``decoding`` (kv_cache_decode).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..ops.kv_heads import GQATrace, grouped_query_attention, kv_head_map
from ..ops.masks import causal_keep, combine_keep, padding_keep, window_keep
from ..ops.positions import ROPE_BASE, AlibiTrace, RopeTrace, SinusoidalTrace, add_sinusoidal, rope
from ..ops.positions import alibi as alibi_bias
from ..ops.projections import draw, merge_heads
from ..validation.errors import check_base, check_count, field_error
from .kv_cache import DecodeTrace, kv_cache_decode
from .tiled import TiledTrace, tiled_attention

POSITIONS = ("none", "sinusoidal", "rope")


@dataclass(frozen=True)
class ModernWeights:
    """Projections stored out×in and applied as ``x @ W.T`` (nn.Linear; Llama's q_proj, k_proj, v_proj)."""

    W_q: Tensor  # (H·E, D)
    W_k: Tensor  # (G·E, D)
    W_v: Tensor  # (G·E, D)


@dataclass(frozen=True)
class MaskParts:
    """Each mask (L, S) bool, True = visible, and their AND; None where a mask is off."""

    causal: Tensor | None  # query i sees keys 0..i
    window: Tensor | None  # window_keep(window, causal): i − w < j ≤ i causal, |i − j| < w otherwise
    padding: Tensor | None  # padded keys hidden from every query
    combined: Tensor | None  # causal ∧ window ∧ padding


@dataclass(frozen=True)
class ModernTrace:
    """Every piece of one modern attention layer; a piece that is off is None."""

    x: Tensor | None  # (T, D) as given; None when q, k, v were given
    sinusoidal: SinusoidalTrace | None  # x + PE
    weights: ModernWeights | None  # the projections used (seeded unless given); None for q, k, v input
    q: Tensor  # (H, L, E) projected, before RoPE
    k: Tensor  # (G, S, E) projected, before RoPE
    v: Tensor  # (G, S, Ev)
    rope: RopeTrace | None  # q and k before and after the rotation
    alibi: AlibiTrace | None  # slopes (H,) and bias (H, L, S)
    masks: MaskParts
    attention: GQATrace  # the full attention on the rotated q, k
    concat: Tensor  # (L, H·Ev) the heads' outputs side by side
    tiled: TiledTrace | None  # the same attention tile by tile (block_rows/block_cols given)
    decoding: DecodeTrace | None  # the same attention token by token with a KV cache (decode=True)
    positions: str
    heads: int  # H
    kv_heads: int  # G
    window: int | None
    causal: bool
    warnings: tuple[str, ...]


def seeded_weights(
    d_model: int, heads: int, kv_heads: int, head_width: int, seed: int, dtype: torch.dtype = torch.float32
) -> ModernWeights:
    """nn.Linear's default draw, U(-1/√D, 1/√D), from a private generator in the order W_q, W_k, W_v."""
    g = torch.Generator().manual_seed(seed)
    w_q = draw("linear", d_model, heads * head_width, g, dtype)  # (H·E, D)
    w_k = draw("linear", d_model, kv_heads * head_width, g, dtype)  # (G·E, D)
    w_v = draw("linear", d_model, kv_heads * head_width, g, dtype)  # (G·E, D)
    return ModernWeights(w_q, w_k, w_v)


def project_heads(x: Tensor, w: Tensor, n_heads: int) -> Tensor:
    """(T, D) through (n·E, D) -> (n, T, E), as Llama's ``q_proj(x).view(T, n, E).transpose(0, 1)``."""
    y = x @ w.T  # (T, D) x (D, n·E) -> (T, n·E)
    return y.reshape(x.shape[0], n_heads, -1).transpose(0, 1)


def _check_weights(w: ModernWeights, d_model: int, heads: int, kv_heads: int, head_width: int) -> None:
    for name, t, n in (("W_q", w.W_q, heads), ("W_k", w.W_k, kv_heads), ("W_v", w.W_v, kv_heads)):
        if tuple(t.shape) != (n * head_width, d_model):
            raise field_error(f"weights.{name}", f"has shape {tuple(t.shape)}; expected ({n * head_width}, {d_model})")


def _from_x(
    x: Tensor, heads: int | None, kv_heads: int | None, head_width: int | None, seed: int,
    weights: ModernWeights | None, positions: str,
) -> tuple[SinusoidalTrace | None, ModernWeights, Tensor, Tensor, Tensor]:  # fmt: skip
    """x (T, D) -> (PE trace, weights, q (H, T, E), k (G, T, E), v (G, T, E))."""
    if x.dim() != 2:
        raise field_error("x", f"must be (tokens, d_model), got shape {tuple(x.shape)}")
    d_model = x.shape[1]
    n_h = check_count(1 if heads is None else heads, "heads")
    n_g = check_count(n_h if kv_heads is None else kv_heads, "kv_heads")
    kv_head_map(n_h, n_g)
    if head_width is None and d_model % n_h:
        raise field_error("heads", f"heads={n_h} does not divide d_model={d_model}; give head_width")
    e = check_count(d_model // n_h if head_width is None else head_width, "head_width")
    w = seeded_weights(d_model, n_h, n_g, e, seed, x.dtype) if weights is None else weights
    _check_weights(w, d_model, n_h, n_g, e)
    pe = add_sinusoidal(x) if positions == "sinusoidal" else None
    x_in = x if pe is None else pe.x_pos  # (T, D)
    return pe, w, project_heads(x_in, w.W_q, n_h), project_heads(x_in, w.W_k, n_g), project_heads(x_in, w.W_v, n_g)


def _given(q: Tensor, k: Tensor, v: Tensor, heads: int | None, kv_heads: int | None) -> None:
    """q (H, L, E), k (G, S, E), v (G, S, Ev); ``heads``/``kv_heads``, when given, must match them."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 3:
            raise field_error(name, f"must be (heads, length, width), got shape {tuple(t.shape)}")
    for name, n, t in (("heads", heads, q), ("kv_heads", kv_heads, k)):
        if n is not None and n != t.shape[0]:
            raise field_error(name, f"{name}={n} but {'q' if t is q else 'k'} has {t.shape[0]} heads")


def build_masks(n_q: int, n_k: int, causal: bool, window: int | None, padding: list[bool] | None) -> MaskParts:
    """The (L, S) masks, True = visible, and their AND."""
    if padding is not None and len(padding) != n_k:
        raise field_error("padding", f"must list {n_k} true/false flags, one per key")
    c = causal_keep(n_q, n_k) if causal else None
    w = None if window is None else window_keep(n_q, n_k, window, causal=causal)
    p = None if padding is None else padding_keep(n_q, list(padding))
    return MaskParts(causal=c, window=w, padding=p, combined=combine_keep(c, w, p))


def modern_attention(
    x: Tensor | None = None,
    q: Tensor | None = None,
    k: Tensor | None = None,
    v: Tensor | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    head_width: int | None = None,
    seed: int = 0,
    weights: ModernWeights | None = None,
    positions: str = "none",
    rope_base: float = ROPE_BASE,
    alibi: bool = False,
    window: int | None = None,
    causal: bool = False,
    padding: list[bool] | None = None,
    scale: bool | float = True,
    block_rows: int | None = None,
    block_cols: int | None = None,
    decode: bool = False,
) -> ModernTrace:
    """A modern attention layer from x (T, D) (self-attention, seeded or given projections) or from q (H, L, E),
    k (G, S, E), v (G, S, Ev) directly; every piece traced.

    positions "none" | "sinusoidal" (added to x, so x is needed) | "rope" (base ``rope_base``); ``alibi`` adds
    −m_h·|i − j|; ``window`` w keeps the last w keys (causal) or the band |i − j| < w; ``padding`` (S,) True =
    padded key. ``block_rows``/``block_cols`` also run the tiled path (a missing one defaults to the whole length);
    ``decode`` also runs KV-cache decoding (needs causal self-attention, L = S).
    """
    if positions not in POSITIONS:
        raise field_error("positions", f"positions={positions!r} is not one of {', '.join(POSITIONS)}")
    if (x is None) == (q is None and k is None and v is None) or (x is None and (q is None or k is None or v is None)):
        raise field_error("x", "give either x (self-attention) or all of q, k and v")
    if x is not None:
        pe, w, q, k, v = _from_x(x, heads, kv_heads, head_width, seed, weights, positions)
    else:
        if positions == "sinusoidal":
            raise field_error("positions", "sinusoidal encodings are added to x; give x, not q, k and v")
        _given(q, k, v, heads, kv_heads)
        pe, w = None, None
    kv_head_map(q.shape[0], k.shape[0])
    rope_base = check_base(rope_base, "rope_base")
    r = rope(q, k, rope_base) if positions == "rope" else None
    q_r, k_r = (q, k) if r is None else (r.q_rot, r.k_rot)
    n_q, n_k = q.shape[-2], k.shape[-2]
    ab = alibi_bias(q.shape[0], n_q, n_k, dtype=q.dtype) if alibi else None
    masks = build_masks(n_q, n_k, causal, window, padding)
    bias = None if ab is None else ab.bias
    att = grouped_query_attention(q_r, k_r, v, keep=masks.combined, bias=bias, scale=scale)
    tiled = None
    if block_rows is not None or block_cols is not None:
        b_r, b_c = n_q if block_rows is None else block_rows, n_k if block_cols is None else block_cols
        tiled = tiled_attention(q_r, att.k_shared, att.v_shared, b_r, b_c, masks.combined, bias, scale)
    dec = None
    if decode:
        if not causal or n_q != n_k:
            raise field_error("decode", "KV-cache decoding is causal self-attention: it needs causal=True and L = S")
        dec = kv_cache_decode(q, k, v, rope_base if r is not None else None, alibi, window, padding, scale)
    return ModernTrace(
        x=x, sinusoidal=pe, weights=w, q=q, k=k, v=v, rope=r, alibi=ab, masks=masks, attention=att,
        concat=merge_heads(att.output), tiled=tiled, decoding=dec, positions=positions, heads=q.shape[0],
        kv_heads=k.shape[0], window=window, causal=causal, warnings=att.warnings,
    )  # fmt: skip
