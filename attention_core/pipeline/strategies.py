"""Ways of running the same attention, in a registry keyed by name, as transformers keeps its kernels
(``ALL_ATTENTION_FUNCTIONS.get_interface(name, eager_attention_forward)``): a new way is a new entry, not a new path.

    "full"      softmax over the whole (L, S) score matrix, every intermediate kept (ops/sdpa.attend)
    "tiled"     FlashAttention's online softmax, B_r × B_c tile by tile (tiled.py)
    "kv_cache"  decoding token by token from a cache of keys and values (kv_cache.py)

Each reads the same :class:`Prepared` inputs (the layer's steps 1–8) and returns its own trace, whose ``output``
(H, L, Ev) equals "full"'s; tests/test_strategies.py checks each against "full".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch import Tensor

from ..ops.positions import AlibiTrace, RopeTrace
from ..ops.sdpa import attend
from .kv_cache import kv_cache_decode
from .tiled import tiled_attention


@dataclass(frozen=True)
class Prepared:
    """What every strategy reads: the projected heads before and after the rotation, K and V shared, the bias, the
    mask and the settings. Shapes: H query heads, G kv heads, L queries, S keys, E head width, Ev value width."""

    q: Tensor  # (..., H, L, E) projected, before RoPE
    k: Tensor  # (..., G, S, E) projected, before RoPE
    v: Tensor  # (..., G, S, Ev)
    q_rot: Tensor  # (..., H, L, E) after RoPE (== q without it)
    k_shared: Tensor  # (..., H, S, E) after RoPE, each query head's group's K
    v_shared: Tensor  # (..., H, S, Ev)
    keep: Tensor | None  # (L, S) bool, True = visible: the scenario's mask ∧ the window; None = no mask
    bias: Tensor | None  # (H, L, S) added after the scaling (ALiBi); None = none
    scale: bool | float
    fill: str
    normalize: str
    rope: RopeTrace | None  # q and k before and after the rotation, the angles; None: no RoPE
    alibi: AlibiTrace | None  # slopes (H,), bias (H, L, S); None: no ALiBi
    window: int | None  # w; None: no window
    window_keep: Tensor | None  # (L, S) bool, the window alone
    padding: tuple[bool, ...] | None  # (S,) True = padded, as the scenario gave them
    block_rows: int | None  # B_r (None: one block of every query)
    block_cols: int | None  # B_c


def full(p: Prepared) -> Any:
    """Softmax attention over the whole score matrix: ops/sdpa.attend's trace (scores … weights, output)."""
    return attend(
        p.q_rot, p.k_shared, p.v_shared, keep=p.keep, scale=p.scale, fill=p.fill, normalize=p.normalize, bias=p.bias
    )


def tiled(p: Prepared) -> Any:
    """FlashAttention's online softmax over the same inputs, B_r × B_c at a time: a TiledTrace."""
    b_r = p.q_rot.shape[-2] if p.block_rows is None else p.block_rows
    b_c = p.k_shared.shape[-2] if p.block_cols is None else p.block_cols
    return tiled_attention(p.q_rot, p.k_shared, p.v_shared, b_r, b_c, p.keep, p.bias, p.scale)


def kv_cache(p: Prepared) -> Any:
    """Causal decoding token by token from the unrotated heads (the cache rotates each key as it arrives)."""
    pad = None if p.padding is None else list(p.padding)
    base = None if p.rope is None else p.rope.base
    return kv_cache_decode(p.q, p.k, p.v, base, p.alibi is not None, p.window, pad, p.scale)


class Strategies(dict[str, Callable[[Prepared], Any]]):
    """name -> strategy; :meth:`get_interface` falls back to a default for an unknown name, as transformers' does."""

    def get_interface(self, name: str, default: Callable[[Prepared], Any]) -> Callable[[Prepared], Any]:
        return self.get(name, default)


STRATEGIES = Strategies(full=full, tiled=tiled, kv_cache=kv_cache)
