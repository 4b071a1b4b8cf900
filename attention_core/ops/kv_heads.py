"""Step 4, share K and V: grouped-query attention's kv heads (multi-query at G = 1, multi-head at G = H).

Symbols: L query length, S key length, E head width, Ev value width, H query heads, G kv heads (G divides H).
Leading batch dims (...) are allowed in front of the head axis. Query head h reads kv head h // (H / G): the order
of ``repeat_interleave`` that torch's ``enable_gqa`` and Hugging Face's ``repeat_kv`` use. The attention itself is
ops/sdpa.attend over the shared K and V.
"""

from __future__ import annotations

from torch import Tensor

from ..validation.errors import check_count, field_error


def kv_head_map(heads: int, kv_heads: int) -> tuple[int, ...]:
    """(H,) the kv head each query head reads: h // (H / G). G must divide H (G = 1: multi-query; G = H: MHA)."""
    check_count(heads, "heads")
    check_count(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise field_error("kv_heads", f"kv_heads={kv_heads} does not divide heads={heads}")
    group = heads // kv_heads
    return tuple(h // group for h in range(heads))


def share_kv(t: Tensor, heads: int) -> Tensor:
    """(..., G, S, ·) -> (..., H, S, ·): each kv head repeated H/G times in place (``repeat_interleave``); at G = H
    the tensor itself (every query head has its own)."""
    kv_head_map(heads, t.shape[-3])
    return t if t.shape[-3] == heads else t.repeat_interleave(heads // t.shape[-3], dim=-3)


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
