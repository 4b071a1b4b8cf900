"""FlashAttention's tiled online softmax, tile by tile, reconciled with the full softmax.

Symbols: L query length, S key length, E head width, Ev value width, B_r query rows per tile, B_c key columns per
tile; leading batch or head dims (...) are carried along. The order is FlashAttention-2's: each block of B_r query
rows sweeps the key blocks left to right, keeping per row a running max m, a running sum l and an unnormalised
output O. For tile (i, j) with scores S_ij = Q_i K_jᵀ / s + bias, -inf where hidden:

    m_new = max(m, rowmax S_ij)       alpha = exp(m − m_new)       P = exp(S_ij − m_new)
    l_new = alpha·l + rowsum P        O_new = alpha·O + P V_j
    and after the last key block: output = O / l, logsumexp = m + log l.

The full L×S score matrix is never formed. Blocks that do not divide the length leave a smaller last block.

Hidden entries (-inf) get P = 0. While a row has seen only hidden keys its m is -inf, and the exponents use 0 in
its place (as FlashAttention's kernels do), so no -inf − (-inf) = NaN arises: alpha and P are 0 and l stays 0. A row
that sees no key at all ends with l = 0 and O = 0; its output is defined as 0, the full path's defined weights
(and ``F.scaled_dot_product_attention``), and its logsumexp is -inf.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..ops.sdpa import add_bias, apply_fill, attend, scale_divisor, scale_scores, score
from ..validation.errors import check_count, field_error


@dataclass(frozen=True)
class Tile:
    """The running state after one tile: rows [r0, r1) against keys [c0, c1)."""

    row_block: int  # i, counting from 0
    col_block: int  # j
    rows: tuple[int, int]  # (r0, r1) query rows, end exclusive
    cols: tuple[int, int]  # (c0, c1) key columns, end exclusive
    scores: Tensor  # (..., B_r, B_c) S_ij: scaled, biased, -inf where hidden
    m_prev: Tensor  # (..., B_r) running max before this tile (-inf before the first)
    m: Tensor  # (..., B_r) max(m_prev, rowmax S_ij)
    alpha: Tensor  # (..., B_r) exp(m_prev − m): the factor the old l and O shrink by
    p: Tensor  # (..., B_r, B_c) exp(S_ij − m), 0 where hidden
    l: Tensor  # (..., B_r) alpha·l_prev + rowsum p
    o: Tensor  # (..., B_r, Ev) unnormalised: alpha·O_prev + p @ V_j


@dataclass(frozen=True)
class TiledTrace:
    """The tiles in the order computed, the final running state, and the check against the full softmax."""

    q: Tensor  # (..., L, E)
    k: Tensor  # (..., S, E)
    v: Tensor  # (..., S, Ev)
    block_rows: int  # B_r
    block_cols: int  # B_c
    tiles: tuple[Tile, ...]  # row block by row block, each sweeping every key block
    m: Tensor  # (..., L) final running max (-inf for a row that sees no key)
    l: Tensor  # (..., L) final running sum (0 for such a row)
    o: Tensor  # (..., L, Ev) final unnormalised output
    output: Tensor  # (..., L, Ev) O / l, 0 where l = 0
    logsumexp: Tensor  # (..., L) m + log l: what FlashAttention keeps for the backward pass
    reference: Tensor  # (..., L, Ev) the full softmax attention of the same inputs (weights @ v)
    max_abs_diff: float  # max |output − reference|
    keep: Tensor | None  # (L, S) bool, True = visible
    bias: Tensor | None  # broadcastable to (..., L, S)
    divisor: float | None  # s
    fully_masked_rows: tuple[int, ...]


def _check(q: Tensor, k: Tensor, v: Tensor, block_rows: int, block_cols: int) -> None:
    if k.shape[-1] != q.shape[-1]:
        raise field_error("k", f"has head width {k.shape[-1]}; q has {q.shape[-1]}")
    if v.shape[-2] != k.shape[-2]:
        raise field_error("v", f"has {v.shape[-2]} rows; k has {k.shape[-2]}")
    check_count(block_rows, "block_rows", 1, q.shape[-2])
    check_count(block_cols, "block_cols", 1, k.shape[-2])


def _tile(q_i: Tensor, k_j: Tensor, keep_ij: Tensor | None, bias_ij: Tensor | None, divisor: float | None) -> Tensor:
    """(..., B_r, E), (..., B_c, E) -> the tile's scores S_ij (..., B_r, B_c): scaled, biased, masked with -inf."""
    # the full path's steps 5–8 on one tile: (..., B_r, E) x (..., E, B_c) -> (..., B_r, B_c)
    return apply_fill(add_bias(scale_scores(score(q_i, k_j), divisor), bias_ij), keep_ij, "-inf")


def _sweep(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Tensor | None,
    bias: Tensor | None,
    divisor: float | None,
    block_cols: int,
    row_block: int,
    rows: tuple[int, int],
) -> list[Tile]:
    """One block of query rows [r0, r1) against every key block, left to right."""
    r0, r1 = rows
    q_i = q[..., r0:r1, :]  # (..., B_r, E)
    lead = q.shape[:-2]  # q, k, v, keep and bias share their leading dims (broadcast by the caller)
    m = torch.full((*lead, r1 - r0), float("-inf"), dtype=q.dtype)  # (..., B_r)
    l = torch.zeros((*lead, r1 - r0), dtype=q.dtype)
    o = torch.zeros((*lead, r1 - r0, v.shape[-1]), dtype=v.dtype)  # (..., B_r, Ev)
    tiles: list[Tile] = []
    for col_block, c0 in enumerate(range(0, k.shape[-2], block_cols)):
        c1 = min(c0 + block_cols, k.shape[-2])
        keep_ij = None if keep is None else keep[..., r0:r1, c0:c1]
        bias_ij = None if bias is None else bias[..., r0:r1, c0:c1]
        s = _tile(q_i, k[..., c0:c1, :], keep_ij, bias_ij, divisor)  # (..., B_r, B_c)
        m_new = torch.maximum(m, s.amax(dim=-1))  # (..., B_r)
        m_safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)  # -inf → 0: no (-inf) − (-inf)
        alpha = torch.exp(m - m_safe)  # (..., B_r): 0 while nothing was seen before
        p = torch.exp(s - m_safe.unsqueeze(-1))  # (..., B_r, B_c): 0 where hidden
        l = alpha * l + p.sum(dim=-1)
        o = alpha.unsqueeze(-1) * o + p @ v[..., c0:c1, :]  # (..., B_r, B_c) x (..., B_c, Ev) -> (..., B_r, Ev)
        tiles.append(
            Tile(
                row_block=row_block,
                col_block=col_block,
                rows=(r0, r1),
                cols=(c0, c1),
                scores=s,
                m_prev=m,
                m=m_new,
                alpha=alpha,
                p=p,
                l=l,
                o=o,
            )
        )
        m = m_new
    return tiles


def tiled_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    block_rows: int,
    block_cols: int,
    keep: Tensor | None = None,
    bias: Tensor | None = None,
    scale: bool | float = True,
) -> TiledTrace:
    """Softmax attention of q (..., L, E) over k (..., S, E), v (..., S, Ev), computed B_r × B_c tile by tile.

    ``block_rows`` must be in 1..L and ``block_cols`` in 1..S. ``keep`` (L, S) bool, True = visible; ``bias``
    broadcastable to (..., L, S), added after ÷ s. ``reference`` is the same attention with the whole softmax.
    """
    _check(q, k, v, block_rows, block_cols)
    n_q, n_k = q.shape[-2], k.shape[-2]
    divisor = scale_divisor(scale, q.shape[-1])
    extra = [t.shape[:-2] for t in (keep, bias) if t is not None]
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], *extra)
    keep_b = None if keep is None else torch.broadcast_to(keep, (*lead, n_q, n_k))
    bias_b = None if bias is None else torch.broadcast_to(bias, (*lead, n_q, n_k))
    q_b, k_b, v_b = (t.expand(*lead, *t.shape[-2:]) for t in (q, k, v))  # (*lead, L, E), (*lead, S, E), (*lead, S, Ev)
    tiles: list[Tile] = []
    for row_block, r0 in enumerate(range(0, n_q, block_rows)):
        rows = (r0, min(r0 + block_rows, n_q))
        tiles.extend(_sweep(q_b, k_b, v_b, keep_b, bias_b, divisor, block_cols, row_block, rows))
    last = [t for t in tiles if t.col_block == tiles[-1].col_block]  # each row block's final state
    m = torch.cat([t.m for t in last], dim=-1)  # (..., L)
    l = torch.cat([t.l for t in last], dim=-1)  # (..., L)
    o = torch.cat([t.o for t in last], dim=-2)  # (..., L, Ev)
    seen = l > 0  # (..., L): False only for a row that sees no key
    output = torch.where(seen.unsqueeze(-1), o / torch.where(seen, l, torch.ones_like(l)).unsqueeze(-1), 0.0)
    full = attend(q, k, v, keep=keep, scale=scale, fill="-inf", bias=bias)
    reference = full.output  # (..., L, Ev)
    return TiledTrace(
        q=q,
        k=k,
        v=v,
        block_rows=block_rows,
        block_cols=block_cols,
        tiles=tuple(tiles),
        m=m,
        l=l,
        o=o,
        output=output,
        logsumexp=torch.where(seen, m + torch.log(torch.where(seen, l, torch.ones_like(l))), float("-inf")),
        reference=reference,
        max_abs_diff=float((output - reference).abs().max()) if output.numel() else 0.0,
        keep=keep,
        bias=bias,
        divisor=divisor,
        fully_masked_rows=full.fully_masked_rows,
    )
