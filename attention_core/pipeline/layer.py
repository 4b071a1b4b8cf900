"""The attention layer, assembled: project, attend, combine.

Symbols: L query length, S key length, D = d_in (d_model), d = d_out (per-head width), H heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import Tensor

from ..ops.positions import ROPE_BASE, AlibiTrace, RopeTrace
from ..ops.projections import MODES, Weights, apply_out, merge_heads, project, split_heads
from ..ops.sdpa import AttentionTrace, attend
from .kv_cache import DecodeTrace
from .tiled import TiledTrace


@dataclass(frozen=True)
class Variants:
    """The variant keys of one scenario (positions, ALiBi, kv heads, window, tiles, decoding), validated; a key left
    out has its default."""

    positions: str = "none"  # "none" | "sinusoidal" (added to x) | "rope" (q and k turned)
    rope_base: float = ROPE_BASE  # θ_i = base^(-2i/E); used with RoPE only
    alibi: bool = False  # −m_h·|i − j| added to the scaled scores
    kv_heads: int | None = None  # G; None = H (every query head has its own K and V)
    window: int | None = None  # w: causal, the last w keys; otherwise the band |i − j| < w
    block_rows: int | None = None  # B_r; with block_cols, also run the tiled online softmax
    block_cols: int | None = None  # B_c
    decode: bool = False  # also decode token by token with a KV cache

    @property
    def tiled(self) -> bool:
        return self.block_rows is not None or self.block_cols is not None

    def as_json(self) -> dict[str, Any]:
        """The keys that differ from their defaults, as a scenario writes them."""
        out: dict[str, Any] = {}
        if self.positions != "none":
            out["positions"] = self.positions
        if self.positions == "rope" and self.rope_base != ROPE_BASE:
            out["rope_base"] = self.rope_base
        for key in ("alibi", "decode"):
            if getattr(self, key):
                out[key] = True
        for key in ("kv_heads", "window", "block_rows", "block_cols"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class VariantParts:
    """What the variant keys add to a :class:`MultiHeadTrace`; a piece that is off is None."""

    settings: Variants
    pe_q: Tensor | None  # (L, D) sinusoidal PE added to x_q (None unless positions = "sinusoidal")
    pe_k: Tensor | None  # (S, D) added to x_k and x_v
    x_q: Tensor  # (L, D) what the projections saw (x_q + PE, or x_q)
    x_k: Tensor  # (S, D)
    x_v: Tensor  # (S, D)
    rope: RopeTrace | None  # q (H, L, E), k (G, S, E) before and after the rotation, with the angles
    alibi: AlibiTrace | None  # slopes (H,), bias (H, L, S)
    window_keep: Tensor | None  # (L, S) bool, the window alone, True = visible
    head_map: tuple[int, ...]  # (H,) the kv head each query head reads
    k: Tensor  # (G, S, E) one K per kv head (after RoPE)
    v: Tensor  # (G, S, Ev)
    tiled: TiledTrace | None  # tiles over (H, L, S)
    decoding: DecodeTrace | None  # T steps over (H, T, T)


@dataclass(frozen=True)
class MultiHeadTrace:
    """All heads at once. ``attention`` fields carry a head axis: (..., H, L, ·)."""

    attention: AttentionTrace
    heads: int
    mode: str
    weights: Weights
    concat: Tensor  # (..., L, H·d_v) head outputs side by side
    output: Tensor  # (..., L, D) after W_o, or == concat without W_o
    variants: VariantParts | None = None  # when a variant key is on (RoPE, ALiBi, kv heads, ...), else None

    def head(self, h: int) -> dict[str, Tensor]:
        """The intermediates of head ``h`` as (L, ·) tensors (for unbatched input); ``biased`` only with ALiBi."""
        a = self.attention
        names = ("q", "k", "v", "scores", "scaled", "biased", "masked", "weights_raw", "weights", "output")
        return {n: getattr(a, n)[..., h, :, :] for n in names if getattr(a, n) is not None}


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
) -> MultiHeadTrace:
    """Multi-head attention over x_q (..., L, D) and x_k, x_v (..., S, D).

    concat: per-head (d×D) projections; every head sees d_k = d.
    split:  one D×D projection per role, split into H heads of D/H; d_k = D/H.
    """
    layout = weights.layout
    if mode == "concat":
        q = project(x_q, weights.W_q, layout, weights.b_q)  # (..., H, L, d)
        k = project(x_k, weights.W_k, layout, weights.b_k)  # (..., H, S, d)
        v = project(x_v, weights.W_v, layout, weights.b_v)  # (..., H, S, d)
    elif mode == "split":
        d_model = weights.W_q.shape[-1]
        if d_model % heads:
            raise ValueError(f"heads={heads} does not divide d_model={d_model} in split mode")
        q = split_heads(project(x_q, weights.W_q, layout, weights.b_q).squeeze(-3), heads)  # (..., H, L, D/H)
        k = split_heads(project(x_k, weights.W_k, layout, weights.b_k).squeeze(-3), heads)  # (..., H, S, D/H)
        v = split_heads(project(x_v, weights.W_v, layout, weights.b_v).squeeze(-3), heads)  # (..., H, S, D/H)
    else:
        raise ValueError(f"head_mode={mode!r} is not one of {MODES}")
    trace = attend(q, k, v, keep=keep, scale=scale, fill=fill, normalize=normalize)
    concat = merge_heads(trace.output)  # (..., H, L, d) -> (..., L, H·d)
    output = apply_out(concat, weights.W_o, layout, weights.b_o)
    return MultiHeadTrace(trace, heads, mode, weights, concat, output)
