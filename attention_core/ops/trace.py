"""The one record of an attention run: every step's result under the step's name, frozen.

    settings    heads, mode, params (W_q … W_o), variants, scale, fill, normalize, padding
    1. positions   pe_q, pe_k; x_q, x_k, x_v (what the projections saw)
    2. project     the heads before the rotation: rope.q, rope.k with RoPE, else q and k_kv
    3. rotate      rope (q, k before and after, the angles)
    4. share K, V  head_map; k_kv, v_kv (one per kv head); q, k, v (one per query head: what step 5 reads)
    5. score       scores          6. scale       scaled, divisor
    7. bias        bias, alibi, biased             8. mask       keep, window_keep, masked, fully_masked_rows, warnings
    9. normalise   weights_raw, weights            10. mix       mixed
    11. combine    concat, output
    strategies     tiled, decoding (beside "full", pipeline/strategies.py)

:func:`~attention_core.ops.sdpa.attend` alone fills steps 5–10 (its ``output`` is ``mixed``); the layer
(pipeline/layer.py) fills every step. A step that did not run, or ran at its default, is None.
Symbols: L query length, S key length, D = d_model, E head width, Ev value width, H heads, G kv heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import Tensor

from .positions import ROPE_BASE, AlibiTrace, RopeTrace
from .projections import Weights


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

    @property
    def strategies(self) -> tuple[str, ...]:
        """The execution strategies run beside "full" (pipeline/strategies.py): the tiles, the KV cache."""
        return ("tiled",) * self.tiled + ("kv_cache",) * self.decode

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


NO_VARIANTS = Variants()  # every step at its default

HEAD_STEPS = ("q", "k", "v", "scores", "scaled", "biased", "masked", "weights_raw", "weights", "output")


@dataclass(frozen=True, kw_only=True)
class Trace:
    """Every intermediate of one attention run, by step (see the module's docstring). Tensors keep their leading
    dims (..., H, ·, ·)."""

    # settings
    heads: int = 1  # H
    mode: str = "concat"  # "concat" | "split"
    params: Weights | None = None  # W_q, W_k, W_v, W_o and their biases; None for attend alone
    variants: Variants | None = None  # the variant settings; None when every one is at its default
    scale: bool | float = True  # as given: True √d_k, False none, a number
    fill: str = "-inf"
    normalize: str = "softmax"  # "softmax" | "sum"
    padding: tuple[bool, ...] | None = None  # (S,) True = padded, as the scenario gave them
    # 1. positions
    pe_q: Tensor | None = None  # (L, D) sinusoidal PE added to x_q (None unless positions = "sinusoidal")
    pe_k: Tensor | None = None  # (S, D) added to x_k and x_v
    x_q: Tensor | None = None  # (..., L, D) what the projections saw (x_q + PE, or x_q)
    x_k: Tensor | None = None  # (..., S, D)
    x_v: Tensor | None = None  # (..., S, D)
    # 2.–3. project, rotate
    rope: RopeTrace | None = None  # q (H, L, E), k (G, S, E) before and after the rotation, with the angles
    # 4. share K and V
    head_map: tuple[int, ...] = ()  # (H,) the kv head each query head reads
    k_kv: Tensor | None = None  # (..., G, S, E) one K per kv head (after RoPE)
    v_kv: Tensor | None = None  # (..., G, S, Ev)
    q: Tensor  # (..., L, E) what the scores read (after RoPE)
    k: Tensor  # (..., S, E) each query head's K (after RoPE, shared)
    v: Tensor  # (..., S, Ev) each query head's V
    # 5. score, 6. scale
    scores: Tensor | None = None  # (..., L, S) q @ kᵀ
    divisor: float | None = None  # s; None when scaling is off
    scaled: Tensor | None = None  # (..., L, S) scores / s
    # 7. bias
    bias: Tensor | None = None  # (H, L, S) added after the scaling (ALiBi's); None = none
    alibi: AlibiTrace | None = None  # slopes (H,), bias (H, L, S)
    biased: Tensor | None = None  # (..., L, S) scaled + bias, what the mask fills; None without a bias
    # 8. mask
    keep: Tensor | None = None  # (L, S) bool, True = visible: the scenario's mask ∧ the window; None = no mask
    window_keep: Tensor | None = None  # (L, S) bool, the window alone
    masked: Tensor | None = None  # (..., L, S) after the fill convention
    fully_masked_rows: tuple[int, ...] = ()  # query rows with no visible key
    warnings: tuple[str, ...] = ()
    # 9. normalise
    weights_raw: Tensor | None = None  # (..., L, S) what the normaliser literally returned (NaN possible)
    weights: Tensor | None = None  # (..., L, S) NaN-free: a fully masked row is defined as all zeros
    # 10. mix
    mixed: Tensor | None = None  # (..., L, Ev) weights @ v, each head's output
    # 11. combine
    concat: Tensor | None = None  # (..., L, H·Ev) head outputs side by side
    output: Tensor | None = None  # the last step's result: (..., L, D) after W_o (== concat without W_o); attend: mixed
    # the strategies run beside "full" (pipeline/tiled.TiledTrace, pipeline/kv_cache.DecodeTrace: a layer above)
    tiled: Any = None  # tiles over (H, L, S)
    decoding: Any = None  # T steps over (H, T, T)

    def per_head(self) -> dict[str, Tensor]:
        """The steps that have a head axis, (..., H, ·, ·), by the names the page and the JSON give them: q … weights,
        and ``output`` for each head's own (step 10, ``mixed``); ``biased`` only with a bias."""
        out = {n: getattr(self, n) for n in HEAD_STEPS[:-1]} | {"output": self.mixed}
        return {n: t for n, t in out.items() if t is not None}

    def head(self, h: int) -> dict[str, Tensor]:
        """The intermediates of head ``h`` as (L, ·) tensors (for unbatched input), named as :meth:`per_head`."""
        return {n: t[..., h, :, :] for n, t in self.per_head().items()}
