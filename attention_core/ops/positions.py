"""Where a token sits: sinusoidal encodings, rotary embeddings (RoPE) and ALiBi biases, each with its trace.

Symbols: T positions, D model width, L query length, S key length, E head width, H query heads.
Positions count from 0: query row i sits at position i and key column j at position j, unless given.

    sinusoidal  Vaswani et al. 2017, §3.5: PE[pos, 2i] = sin(pos / base^(2i/D)), PE[pos, 2i+1] = cos(same),
                added to the word embeddings X before the projections ("embeddings plus positional encoding")
    rope        Su et al. 2021 (RoFormer): q and k rotated pair by pair by the angle pos·θ_i, θ_i = base^(-2i/E),
                in Hugging Face Llama's pairing (``rotate_half``): dims i and i + E/2 form pair i
    alibi       Press et al. 2022: no positions on q or k; −m_h·|i − j| is added to head h's scaled scores

Bad values raise :class:`~attention_core.scenario.ScenarioError` naming the argument (see ``checks.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from ..validation.errors import check_base, check_count, field_error

ROPE_BASE = 10000.0
SINUSOIDAL_BASE = 10000.0


def as_positions(pos: Tensor | list[int] | None, n: int, field: str) -> Tensor:
    """(n,) int64 positions: ``pos`` as given, or 0..n-1 when None."""
    if pos is None:
        return torch.arange(n)
    out = torch.as_tensor(pos, dtype=torch.int64).reshape(-1)
    if out.numel() != n:
        raise field_error(field, f"has {out.numel()} positions; expected {n}, one per row")
    return out


# ---- sinusoidal ---------------------------------------------------------------------------------------------


def sinusoidal_angles(n_positions: int, d_model: int, base: float = SINUSOIDAL_BASE) -> Tensor:
    """(T, D) float64 angles: column c holds pos / base^(2i/D) with i = c // 2, so columns 2i and 2i+1 share one."""
    check_count(n_positions, "n_positions")
    check_count(d_model, "d_model")
    base = check_base(base, "base")
    pos = torch.arange(n_positions, dtype=torch.float64).unsqueeze(1)  # (T, 1)
    two_i = (torch.arange(d_model) // 2 * 2).to(torch.float64)  # (D,) 0, 0, 2, 2, 4, 4, ...
    return pos / base ** (two_i / d_model)  # (T, 1) / (D,) -> (T, D)


def sinusoidal(
    n_positions: int, d_model: int, base: float = SINUSOIDAL_BASE, dtype: torch.dtype = torch.float32
) -> Tensor:
    """(T, D) positional encoding: PE[pos, 2i] = sin(pos / base^(2i/D)), PE[pos, 2i+1] = cos(pos / base^(2i/D)).

    An odd D ends on a sine column (its pair's cosine would be column D). Computed in float64, returned in ``dtype``.
    """
    angles = sinusoidal_angles(n_positions, d_model, base)  # (T, D)
    even = torch.arange(d_model) % 2 == 0  # (D,)
    return torch.where(even, angles.sin(), angles.cos()).to(dtype)


# ---- RoPE ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RopeTrace:
    """q and k before and after the rotation, with every angle.

    Pairing (Hugging Face Llama's ``rotate_half``): for i < E/2, dims i and i + E/2 form pair i and turn together,
        x'[i]       = x[i] cos(pos·θ_i) − x[i + E/2] sin(pos·θ_i)
        x'[i + E/2] = x[i + E/2] cos(pos·θ_i) + x[i] sin(pos·θ_i),      θ_i = base^(-2i/E)
    (the RoFormer paper pairs neighbours 2i, 2i+1 instead: the same rotation on a permuted head). Because both q_m
    and k_n turn by their own position, q'_m · k'_n depends on m − n only.
    """

    q: Tensor  # (..., L, E) before rotation
    k: Tensor  # (..., S, E) before rotation
    q_rot: Tensor  # (..., L, E) after
    k_rot: Tensor  # (..., S, E) after
    theta: Tensor  # (E/2,) θ_i = base^(-2i/E), float64
    pos_q: Tensor  # (L,) int64 position of each query row
    pos_k: Tensor  # (S,) int64 position of each key row
    angles_q: Tensor  # (L, E/2) pos·θ_i, float64
    angles_k: Tensor  # (S, E/2)
    cos_q: Tensor  # (L, E/2) in q's dtype
    sin_q: Tensor  # (L, E/2)
    cos_k: Tensor  # (S, E/2)
    sin_k: Tensor  # (S, E/2)
    base: float


def rope_theta(head_width: int, base: float = ROPE_BASE) -> Tensor:
    """(E/2,) float64 frequencies θ_i = base^(-2i/E), i = 0..E/2-1. An odd E is an error: RoPE turns pairs."""
    check_count(head_width, "head_width")
    if head_width % 2:
        raise field_error(
            "head_width", f"head_width={head_width} is odd; RoPE rotates pairs of dims (i, i + E/2), so E must be even"
        )
    base = check_base(base, "rope_base")
    two_i = torch.arange(0, head_width, 2, dtype=torch.float64)  # (E/2,) 0, 2, 4, ...
    return base ** (-two_i / head_width)


def rotate_pairs(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """(..., P, E) rows turned by (P, E/2) cos/sin, pair i = dims (i, i + E/2) (see :class:`RopeTrace`)."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]  # (..., P, E/2) each: the pairs' first and second coordinates
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)  # (..., P, E)


def rope(
    q: Tensor,
    k: Tensor,
    base: float = ROPE_BASE,
    pos_q: Tensor | list[int] | None = None,
    pos_k: Tensor | list[int] | None = None,
) -> RopeTrace:
    """Rotate q (..., L, E) and k (..., S, E) by their positions (default 0..L-1 and 0..S-1).

    Angles are computed in float64 and the cos/sin cast to q's dtype before the rotation.
    """
    if k.shape[-1] != q.shape[-1]:
        raise field_error("k", f"has head width {k.shape[-1]}; q has {q.shape[-1]}")
    theta = rope_theta(q.shape[-1], base)  # (E/2,)
    p_q = as_positions(pos_q, q.shape[-2], "pos_q")
    p_k = as_positions(pos_k, k.shape[-2], "pos_k")
    angles_q = p_q.to(torch.float64).unsqueeze(1) * theta  # (L, 1) * (E/2,) -> (L, E/2)
    angles_k = p_k.to(torch.float64).unsqueeze(1) * theta  # (S, E/2)
    cos_q, sin_q = angles_q.cos().to(q.dtype), angles_q.sin().to(q.dtype)
    cos_k, sin_k = angles_k.cos().to(k.dtype), angles_k.sin().to(k.dtype)
    return RopeTrace(
        q=q,
        k=k,
        q_rot=rotate_pairs(q, cos_q, sin_q),
        k_rot=rotate_pairs(k, cos_k, sin_k),
        theta=theta,
        pos_q=p_q,
        pos_k=p_k,
        angles_q=angles_q,
        angles_k=angles_k,
        cos_q=cos_q,
        sin_q=sin_q,
        cos_k=cos_k,
        sin_k=sin_k,
        base=float(base),
    )


# ---- ALiBi --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlibiTrace:
    """ALiBi's per-head slopes and the bias they add to the scaled scores.

    bias[h, i, j] = −m_h · |pos_q[i] − pos_k[j]|. For a key at or before the query (j ≤ i) this is the paper's
    −m_h·(i − j); the paper only defines the causal case, and here a later key (j > i) is charged its distance
    the same way (symmetric), so a causal mask hides exactly those entries and nothing changes there.
    """

    slopes: Tensor  # (H,) m_h, float64
    distance: Tensor  # (L, S) int64 pos_q[i] − pos_k[j]
    bias: Tensor  # (H, L, S) −m_h·|distance|, in the requested dtype


def _slopes_power_of_two(n: int) -> list[float]:
    """m_h = 2^(-8h/n), h = 1..n: the geometric sequence that starts and steps at 2^(-8/n)."""
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def alibi_slopes(heads: int) -> Tensor:
    """(H,) float64 slopes as in the paper and its official code (ofirpress/attention_with_linear_biases).

    H a power of two: m_h = 2^(-8h/H), h = 1..H (8 heads: 1/2, 1/4, ..., 1/256). Otherwise: the slopes of the
    closest smaller power of two P, then every other slope of the 2P-head set (its 1st, 3rd, ...), H − P of them.
    """
    check_count(heads, "heads")
    p = 2 ** math.floor(math.log2(heads))
    if p == heads:
        return torch.tensor(_slopes_power_of_two(heads), dtype=torch.float64)
    extra = _slopes_power_of_two(2 * p)[0::2][: heads - p]
    return torch.tensor(_slopes_power_of_two(p) + extra, dtype=torch.float64)


def alibi(
    heads: int,
    n_q: int,
    n_k: int,
    pos_q: Tensor | list[int] | None = None,
    pos_k: Tensor | list[int] | None = None,
    dtype: torch.dtype = torch.float32,
) -> AlibiTrace:
    """ALiBi for H heads over L queries and S keys: slopes (H,) and bias (H, L, S), added after ÷√E."""
    slopes = alibi_slopes(heads)
    check_count(n_q, "n_q")
    check_count(n_k, "n_k")
    distance = as_positions(pos_q, n_q, "pos_q").unsqueeze(1) - as_positions(pos_k, n_k, "pos_k")  # (L, S)
    bias = slopes[:, None, None] * (-distance.abs()).to(torch.float64)  # (H, 1, 1) * (L, S) -> (H, L, S); 0, not -0
    return AlibiTrace(slopes=slopes, distance=distance, bias=bias.to(dtype))
