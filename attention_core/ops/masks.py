"""The masks, each (L, S) bool with the package's polarity: True = this query may see this key.

Sliding window (Mistral's convention, ``causal=True``): query i sees key j when i − w < j ≤ i, i.e. its own key and
the w − 1 before it, w keys at most. Without causality (``causal=False``) the window is the symmetric band
|i − j| < w: w − 1 keys on each side plus itself. Positions count from 0 on both sides.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ..validation.errors import check_count


def causal_keep(n_q: int, n_k: int) -> Tensor:
    """(L, S) look-ahead mask: query i sees keys 0..i (``torch.tril(torch.ones(L, S))``)."""
    return torch.ones(n_q, n_k, dtype=torch.bool).tril()


def padding_keep(n_q: int, pad: list[bool]) -> Tensor:
    """(L, S) padding mask: ``pad[j]`` True marks key j as padding, hidden from every query."""
    visible = ~torch.tensor(pad, dtype=torch.bool)  # (S,)
    return visible.unsqueeze(0).expand(n_q, len(pad)).clone()


def compose_keep(n_q: int, n_k: int, causal: bool, pad: list[bool], hidden_rows: list[int]) -> dict[str, Tensor]:
    """The mask lab's masks, each (L, S) bool with True = visible, and how they combine.

    causal      query i sees keys 0..i               padding   key j hidden from every query when pad[j]
    rows        query rows in ``hidden_rows`` see no key (to build a fully masked row on purpose)
    combined    causal ∧ padding ∧ rows: a key is visible only if every mask allows it
    """
    every = torch.ones(n_q, n_k, dtype=torch.bool)
    parts = {
        "causal": causal_keep(n_q, n_k) if causal else every,
        "padding": padding_keep(n_q, pad),
        "rows": every.clone().index_fill_(0, torch.tensor(hidden_rows, dtype=torch.long), False)
        if hidden_rows
        else every,
    }
    return parts | {"combined": parts["causal"] & parts["padding"] & parts["rows"]}


def window_keep(n_q: int, n_k: int, window: int, causal: bool = True) -> Tensor:
    """(L, S) bool sliding-window mask, True = visible.

    causal=True (Mistral): query i sees key j when i − w < j ≤ i (the last w keys, itself included).
    causal=False: the band |i − j| < w. A window of at least S hides nothing a causal mask would not.
    """
    check_count(n_q, "n_q")
    check_count(n_k, "n_k")
    check_count(window, "window")
    i = torch.arange(n_q).unsqueeze(1)  # (L, 1)
    j = torch.arange(n_k).unsqueeze(0)  # (1, S)
    if causal:
        return (j > i - window) & (j <= i)
    return (i - j).abs() < window


def combine_keep(*keeps: Tensor | None) -> Tensor | None:
    """The masks' AND (a key is visible only if every mask allows it); None when every mask is None."""
    present = [m for m in keeps if m is not None]
    if not present:
        return None
    out = present[0]
    for m in present[1:]:
        out = out & m
    return out
