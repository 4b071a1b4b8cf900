"""Why divide by √d_k (seed 004's variance cell), measured: variance, one softmax row, the softmax Jacobian.

q and k are N(0, 1) draws of shape (n, d_k) from a private ``torch.Generator`` (float64). With unit-variance
entries, every score q_i · k_j is a sum of d_k unit-variance products, so var(QKᵀ) ≈ d_k; dividing by √d_k
brings it back to ≈ 1. Large scores saturate softmax (one weight near 1), and the Jacobian of softmax,
J = diag(p) − p pᵀ, then goes to 0: almost no gradient reaches the scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

SWEEP = (2, 4, 8, 16, 32, 64, 128, 256, 512)
MIN_DK, MAX_DK, ROWS = 2, 512, 32


@dataclass(frozen=True)
class ScalingPoint:
    """Statistics at one d_k; every tensor is float64."""

    d_k: int
    var_q: float
    var_k: float
    var_scores: float  # var(QKᵀ)          ≈ d_k
    var_scaled: float  # var(QKᵀ / √d_k)   ≈ 1
    row_raw: Tensor  # (n,) softmax of score row 1, unscaled
    row_scaled: Tensor  # (n,) the same row after ÷ √d_k
    jac_raw: float  # mean over rows of ‖diag(p) − p pᵀ‖_F, unscaled
    jac_scaled: float  # the same, scaled


@dataclass(frozen=True)
class ScalingLab:
    """The chosen d_k in detail, and the sweep over SWEEP for the plots."""

    point: ScalingPoint
    sweep: tuple[ScalingPoint, ...]


def softmax_jacobian_norm(scores: Tensor) -> float:
    """Mean over rows of the Frobenius norm of softmax's Jacobian, diag(p) − p pᵀ, for (n, n) scores."""
    p = torch.softmax(scores, dim=-1)  # (n, S)
    jac = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)  # (n, S, S)
    return float(torch.linalg.matrix_norm(jac).mean())


def variance_cell(q: Tensor, k: Tensor) -> tuple[float, float, float, float]:
    """004's variance cell: q.var(), k.var(), (q kᵀ).var(), (q kᵀ / √d_k).var(), as numpy computes them (ddof=0)."""
    scores = q @ k.T
    d_k = q.shape[-1]
    return tuple(float(t.var(unbiased=False)) for t in (q, k, scores, scores / math.sqrt(d_k)))  # type: ignore[return-value]


def point(d_k: int, seed: int, n: int = ROWS) -> ScalingPoint:
    """q, k ~ N(0, 1) of shape (n, d_k) from ``seed``; the statistics with and without ÷ √d_k."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    scores = q @ k.T  # (n, d_k) x (d_k, n) -> (n, n)
    scaled = scores / math.sqrt(d_k)
    var_q, var_k, var_scores, var_scaled = variance_cell(q, k)
    return ScalingPoint(
        d_k=d_k,
        var_q=var_q,
        var_k=var_k,
        var_scores=var_scores,
        var_scaled=var_scaled,
        row_raw=torch.softmax(scores[0], dim=-1),
        row_scaled=torch.softmax(scaled[0], dim=-1),
        jac_raw=softmax_jacobian_norm(scores),
        jac_scaled=softmax_jacobian_norm(scaled),
    )


def scaling_lab(d_k: int, seed: int) -> ScalingLab:
    """The lab for one d_k (MIN_DK..MAX_DK) and seed; raises ValueError outside the range."""
    if not MIN_DK <= d_k <= MAX_DK:
        raise ValueError(f"d_k={d_k} is outside {MIN_DK}..{MAX_DK}")
    return ScalingLab(point(d_k, seed), tuple(point(d, seed) for d in SWEEP))
