"""Ways of running the same attention, in a registry keyed by name, as transformers keeps its kernels
(``ALL_ATTENTION_FUNCTIONS.get_interface(name, eager_attention_forward)``): a new way is a new entry, not a new path.

    "full"      softmax over the whole (L, S) score matrix, every intermediate kept (ops/sdpa.attend)
    "tiled"     FlashAttention's online softmax, B_r × B_c tile by tile (tiled.py)
    "kv_cache"  decoding token by token from a cache of keys and values (kv_cache.py)

Each reads the same inputs, the layer's :class:`~attention_core.ops.trace.Trace` of steps 1–4 with step 7's bias
and step 8's mask, and returns a trace whose ``output`` (H, L, Ev) equals "full"'s ("full": the same Trace, steps
5–10 filled in); tests/test_strategies.py checks each against "full".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ops.sdpa import attend
from ..ops.trace import NO_VARIANTS, Trace
from .kv_cache import kv_cache_decode
from .tiled import tiled_attention


def full(p: Trace) -> Trace:
    """Softmax attention over the whole score matrix: ``p`` with steps 5–10 (scores … weights, mixed) filled in."""
    return attend(p.q, p.k, p.v, keep=p.keep, scale=p.scale, fill=p.fill, normalize=p.normalize, bias=p.bias, base=p)


def tiled(p: Trace) -> Any:
    """FlashAttention's online softmax over the same inputs, B_r × B_c at a time: a TiledTrace."""
    var = NO_VARIANTS if p.variants is None else p.variants
    b_r = p.q.shape[-2] if var.block_rows is None else var.block_rows
    b_c = p.k.shape[-2] if var.block_cols is None else var.block_cols
    return tiled_attention(p.q, p.k, p.v, b_r, b_c, p.keep, p.bias, p.scale)


def kv_cache(p: Trace) -> Any:
    """Causal decoding token by token from the unrotated heads (the cache rotates each key as it arrives)."""
    pad = None if p.padding is None else list(p.padding)
    q, k, base = (p.q, p.k_kv, None) if p.rope is None else (p.rope.q, p.rope.k, p.rope.base)  # (H, L, E), (G, S, E)
    window = None if p.variants is None else p.variants.window
    return kv_cache_decode(q, k, p.v_kv, base, p.alibi is not None, window, pad, p.scale)


class Strategies(dict[str, Callable[[Trace], Any]]):
    """name -> strategy; :meth:`get_interface` falls back to a default for an unknown name, as transformers' does."""

    def get_interface(self, name: str, default: Callable[[Trace], Any]) -> Callable[[Trace], Any]:
        return self.get(name, default)


STRATEGIES = Strategies(full=full, tiled=tiled, kv_cache=kv_cache)
