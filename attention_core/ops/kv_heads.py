"""Grouped-query attention (multi-query at G = 1) with an additive bias, and sliding-window masks.

Symbols: L query length, S key length, E head width, Ev value width, H query heads, G kv heads (G divides H).
Leading batch dims (...) are allowed in front of the head axis.

Mask polarity is the package's (``sdpa.py``): ``keep[i, j] = True`` means query i may see key j. Hidden scores are
filled with -inf; a query row that sees no key has softmax 0/0 = NaN, kept in ``weights_raw``, and is defined as
weight 0 and output 0 in ``weights`` (what ``F.scaled_dot_product_attention`` returns).

Sliding window (Mistral's convention, ``causal=True``): query i sees key j when i − w < j ≤ i, i.e. its own key and
the w − 1 before it, w keys at most. Without causality (``causal=False``) the window is the symmetric band
|i − j| < w: w − 1 keys on each side plus itself. Positions count from 0 on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..validation.errors import check_count, field_error
from .sdpa import fully_masked_note, scale_divisor


@dataclass(frozen=True)
class GQATrace:
    """Every intermediate of grouped-query attention softmax(q kᵀ / s + bias, masked) v.

    Query head h reads kv head ``kv_head[h] = h // (H / G)``: heads 0..H/G-1 share kv head 0, and so on (the
    order of ``repeat_interleave`` that torch's ``enable_gqa`` and Hugging Face's ``repeat_kv`` use).
    """

    q: Tensor  # (..., H, L, E)
    k: Tensor  # (..., G, S, E) one K per group
    v: Tensor  # (..., G, S, Ev)
    kv_head: tuple[int, ...]  # (H,) which kv head each query head uses
    k_shared: Tensor  # (..., H, S, E) k repeated: row h is k[kv_head[h]]
    v_shared: Tensor  # (..., H, S, Ev)
    scores: Tensor  # (..., H, L, S) q @ kᵀ
    scaled: Tensor  # (..., H, L, S) scores / s
    bias: Tensor | None  # broadcastable to (..., H, L, S): added after scaling (ALiBi); None = none
    biased: Tensor  # (..., H, L, S) scaled + bias (== scaled without a bias)
    masked: Tensor  # (..., H, L, S) -inf where keep is False
    weights_raw: Tensor  # (..., H, L, S) softmax as computed, NaN in a row that sees no key
    weights: Tensor  # (..., H, L, S) NaN-free: such a row is all zeros
    output: Tensor  # (..., H, L, Ev) weights @ v_shared
    keep: Tensor | None  # (L, S) bool (or broadcastable), True = visible; None = no mask
    divisor: float | None  # s: √E by default, None when scaling is off
    heads: int  # H
    kv_heads: int  # G
    fully_masked_rows: tuple[int, ...]  # query rows with no visible key
    warnings: tuple[str, ...]


def kv_head_map(heads: int, kv_heads: int) -> tuple[int, ...]:
    """(H,) the kv head each query head reads: h // (H / G). G must divide H (G = 1: multi-query; G = H: MHA)."""
    check_count(heads, "heads")
    check_count(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise field_error("kv_heads", f"kv_heads={kv_heads} does not divide heads={heads}")
    group = heads // kv_heads
    return tuple(h // group for h in range(heads))


def share_kv(t: Tensor, heads: int) -> Tensor:
    """(..., G, S, ·) -> (..., H, S, ·): each kv head repeated H/G times in place (``repeat_interleave``)."""
    kv_head_map(heads, t.shape[-3])
    return t.repeat_interleave(heads // t.shape[-3], dim=-3)


def check_qkv(q: Tensor, k: Tensor, v: Tensor) -> None:
    """Shapes: q (..., H, L, E), k (..., G, S, E), v (..., G, S, Ev); names the tensor that does not fit."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 3:
            raise field_error(name, f"must have a head axis: (..., heads, length, width), got shape {tuple(t.shape)}")
    if k.shape[-1] != q.shape[-1]:
        raise field_error("k", f"has head width {k.shape[-1]}; q has {q.shape[-1]}")
    if v.shape[-3] != k.shape[-3] or v.shape[-2] != k.shape[-2]:
        raise field_error("v", f"shape {tuple(v.shape)} does not match k's {tuple(k.shape)} in heads and length")
    kv_head_map(q.shape[-3], k.shape[-3])


def grouped_query_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Tensor | None = None,
    bias: Tensor | None = None,
    scale: bool | float = True,
) -> GQATrace:
    """Attention of H query heads over G shared K/V heads: q (..., H, L, E), k (..., G, S, E), v (..., G, S, Ev).

    ``keep`` (L, S) bool, True = visible; ``bias`` broadcastable to (..., H, L, S), added after ÷ s and before the
    mask; ``scale`` True → s = √E, False → none, a number → that divisor (as ``sdpa.attend``).
    """
    check_qkv(q, k, v)
    heads, kv_heads = q.shape[-3], k.shape[-3]
    k_shared, v_shared = share_kv(k, heads), share_kv(v, heads)  # (..., H, S, E), (..., H, S, Ev)
    scores = q @ k_shared.transpose(-2, -1)  # (..., H, L, E) x (..., H, E, S) -> (..., H, L, S)
    divisor = scale_divisor(scale, q.shape[-1])
    scaled = scores if divisor is None else scores / torch.tensor(divisor, dtype=scores.dtype)
    biased = scaled if bias is None else scaled + bias
    masked = biased if keep is None else biased.masked_fill(~keep, float("-inf"))
    weights_raw = torch.softmax(masked, dim=-1)
    weights, rows, warnings = weights_raw, (), ()
    if keep is not None:
        dead = ~keep.any(dim=-1)  # (L,) or (..., L): rows with no visible key
        rows = tuple(int(i) for i in torch.nonzero(dead.reshape(-1, dead.shape[-1]).any(dim=0)).flatten())
        if rows:
            weights = weights_raw.masked_fill(dead.unsqueeze(-1), 0.0)
            warnings = (fully_masked_note(rows, "-inf", k.shape[-2]),)
    return GQATrace(
        q=q,
        k=k,
        v=v,
        kv_head=kv_head_map(heads, kv_heads),
        k_shared=k_shared,
        v_shared=v_shared,
        scores=scores,
        scaled=scaled,
        bias=bias,
        biased=biased,
        masked=masked,
        weights_raw=weights_raw,
        weights=weights,
        output=weights @ v_shared,  # (..., H, L, S) x (..., H, S, Ev) -> (..., H, L, Ev)
        keep=keep,
        divisor=divisor,
        heads=heads,
        kv_heads=kv_heads,
        fully_masked_rows=rows,
        warnings=warnings,
    )
