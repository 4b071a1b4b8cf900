"""Autoregressive decoding with a KV cache: one token at a time, each step's rows equal to full causal attention's.

Symbols: T tokens, E head width, Ev value width, H query heads, G kv heads, C keys in the cache at a step.
Step t takes token t's projected q, k, v rows, turns q and k by position t when RoPE is on (the cache holds keys
already rotated, as real decoders keep them), appends k and v to the cache, and attends from q over the whole
cache. No mask is needed for causality: the cache holds only tokens 0..t.

With a sliding window w the cache is Mistral's rolling buffer: it keeps the last w tokens, so the oldest one is
evicted once the cache is full, and the cache never holds more than w keys. ALiBi charges cached key j the bias
−m_h·(t − j). Padded keys stay in the cache and are hidden (-inf); a step that sees no key has weights 0 and
output 0, like the full path.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..ops.kv_heads import check_qkv, kv_head_map, share_kv
from ..ops.positions import alibi, alibi_slopes, rope
from ..ops.sdpa import attend, scale_divisor
from ..validation.errors import check_count, field_error


@dataclass(frozen=True)
class DecodeStep:
    """One decoding step: token t arrives, its k and v join the cache, its query reads the cache."""

    t: int  # the token's position, from 0
    cache_size: int  # C: keys in the cache after appending (and evicting)
    positions: Tensor  # (C,) int64 positions held in the cache, oldest first
    evicted: tuple[int, ...]  # positions the rolling buffer dropped at this step
    q: Tensor  # (..., H, E) this token's query row (after RoPE when on)
    k_new: Tensor  # (..., G, E) the key appended (after RoPE when on)
    v_new: Tensor  # (..., G, Ev) the value appended
    k_cache: Tensor  # (..., G, C, E)
    v_cache: Tensor  # (..., G, C, Ev)
    bias: Tensor | None  # (H, C) ALiBi −m_h·(t − pos); None without ALiBi
    visible: Tensor  # (C,) bool: False for a padded key
    scores: Tensor  # (..., H, C) q · k for every cached key
    masked: Tensor  # (..., H, C) scores / s + bias, -inf where hidden
    weights: Tensor  # (..., H, C) softmax of masked (0 for a step that sees no key)
    output: Tensor  # (..., H, Ev) weights @ v_cache


@dataclass(frozen=True)
class DecodeTrace:
    """Every step, and the steps' rows laid back into full (T, T) matrices to set beside full attention."""

    steps: tuple[DecodeStep, ...]
    kv_head: tuple[int, ...]  # (H,) the kv head each query head reads
    weights: Tensor  # (..., H, T, T) row t: step t's weights at its cache positions, 0 elsewhere
    output: Tensor  # (..., H, T, Ev) row t: step t's output
    window: int | None
    rope_base: float | None  # None: no RoPE
    alibi_slopes: Tensor | None  # (H,) float64; None: no ALiBi
    divisor: float | None


@dataclass(frozen=True)
class _Settings:
    """What every step needs besides its own rows."""

    rope_base: float | None
    alibi: bool
    window: int | None
    padding: Tensor | None  # (T,) bool, True = padded
    scale: bool | float


def _check(q: Tensor, k: Tensor, v: Tensor, window: int | None, padding: list[bool] | None) -> None:
    check_qkv(q, k, v)
    if k.shape[-2] != q.shape[-2]:
        raise field_error("k", f"decoding is self-attention: k has {k.shape[-2]} rows, q has {q.shape[-2]}")
    if window is not None:
        check_count(window, "window")
    if padding is not None and len(padding) != q.shape[-2]:
        raise field_error("padding", f"must list {q.shape[-2]} true/false flags, one per token")


def _append(cache: Tensor, row: Tensor, drop: int) -> Tensor:
    """(..., G, C, ·) cache plus (..., G, 1, ·) row, the oldest ``drop`` rows evicted: a new tensor each step."""
    return torch.cat((cache, row), dim=-2)[..., drop:, :]


def _step(
    t: int, q: Tensor, k: Tensor, v: Tensor, k_cache: Tensor, v_cache: Tensor, held: Tensor, st: _Settings
) -> DecodeStep:
    """Token t: rotate, append (evicting past the window), attend over the cache."""
    q_t, k_t, v_t = q[..., t : t + 1, :], k[..., t : t + 1, :], v[..., t : t + 1, :]  # (..., H|G, 1, ·)
    if st.rope_base is not None:
        r = rope(q_t, k_t, st.rope_base, pos_q=[t], pos_k=[t])
        q_t, k_t = r.q_rot, r.k_rot
    drop = 0 if st.window is None else max(0, held.numel() + 1 - st.window)
    positions = torch.cat((held, torch.tensor([t])))[drop:]  # (C,)
    k_cache, v_cache = _append(k_cache, k_t, drop), _append(v_cache, v_t, drop)  # (..., G, C, E), (..., G, C, Ev)
    visible = torch.ones(positions.numel(), dtype=torch.bool) if st.padding is None else ~st.padding[positions]
    heads, c = q.shape[-3], positions.numel()
    bias = alibi(heads, 1, c, pos_q=[t], pos_k=positions, dtype=q.dtype).bias if st.alibi else None  # (H, 1, C)
    keep = None if st.padding is None else visible.unsqueeze(0)  # (1, C)
    tr = attend(q_t, share_kv(k_cache, heads), share_kv(v_cache, heads), keep=keep, scale=st.scale, bias=bias)
    return DecodeStep(
        t=t,
        cache_size=c,
        positions=positions,
        evicted=tuple(int(p) for p in held[:drop]),
        q=q_t.squeeze(-2),
        k_new=k_t.squeeze(-2),
        v_new=v_t.squeeze(-2),
        k_cache=k_cache,
        v_cache=v_cache,
        bias=None if bias is None else bias.squeeze(-2),
        visible=visible,
        scores=tr.scores.squeeze(-2),
        masked=tr.masked.squeeze(-2),
        weights=tr.weights.squeeze(-2),
        output=tr.output.squeeze(-2),
    )


def kv_cache_decode(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    rope_base: float | None = None,
    alibi: bool = False,
    window: int | None = None,
    padding: list[bool] | None = None,
    scale: bool | float = True,
) -> DecodeTrace:
    """Decode T tokens one by one from their projected rows q (..., H, T, E), k (..., G, T, E), v (..., G, T, Ev).

    q and k are given before RoPE (``rope_base`` None: no RoPE). Row t of ``weights`` and ``output`` equals row t
    of full causal attention with the same RoPE, ALiBi, window (``window_keep(causal=True)``) and padding.
    """
    _check(q, k, v, window, padding)
    st = _Settings(
        rope_base, alibi, window, None if padding is None else torch.tensor(padding, dtype=torch.bool), scale
    )
    n = q.shape[-2]
    k_cache, v_cache = k[..., :0, :], v[..., :0, :]  # (..., G, 0, E), (..., G, 0, Ev): empty
    held = torch.zeros(0, dtype=torch.int64)
    steps: list[DecodeStep] = []
    for t in range(n):
        step = _step(t, q, k, v, k_cache, v_cache, held, st)
        steps.append(step)
        k_cache, v_cache, held = step.k_cache, step.v_cache, step.positions
    rows = [  # (..., H, C) -> (..., H, T): each weight at its key's position
        torch.zeros((*s.weights.shape[:-1], n), dtype=s.weights.dtype).index_copy(-1, s.positions, s.weights)
        for s in steps
    ]
    return DecodeTrace(
        steps=tuple(steps),
        kv_head=kv_head_map(q.shape[-3], k.shape[-3]),
        weights=torch.stack(rows, dim=-2),  # (..., H, T, T)
        output=torch.stack([s.output for s in steps], dim=-2),  # (..., H, T, Ev)
        window=window,
        rope_base=rope_base,
        alibi_slopes=alibi_slopes(q.shape[-3]) if alibi else None,
        divisor=scale_divisor(scale, q.shape[-1]),
    )
