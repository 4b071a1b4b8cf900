"""A parsed scenario as tensors, and tensors back as JSON: what the contract's parser and its result share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import Tensor

from ..ops.projections import Weights
from ..ops.trace import Variants


@dataclass(frozen=True)
class Scenario:
    """A validated scenario, as tensors. x_q (L, D); x_k, x_v (S, D)."""

    x_q: Tensor
    x_k: Tensor
    x_v: Tensor
    self_attention: bool
    tokens: list[str]
    tokens_k: list[str]
    heads: int
    head_mode: str
    weights: Weights
    keep: Tensor | None  # (L, S) bool, True = visible
    mask_kind: str
    fill: str
    scale: bool | float
    dtype: str
    normalize: str
    padding: tuple[bool, ...] | None = None  # (S,) the padding flags as given, True = padded; None without them
    variants: Variants | None = None  # RoPE, ALiBi, kv heads, window, tiles, decoding; None = all off


def to_json(t: Tensor) -> Any:
    """A tensor as nested lists; -inf, inf and NaN survive JSON as the strings "-inf", "inf", "nan"."""
    n = t.detach().cpu().numpy()  # numpy's per-call cost is a tenth of torch's on these small tables
    if np.isfinite(n).all():
        return n.tolist()
    a = n.astype(object)  # Python floats, and the words where a number is not finite
    a[np.isnan(n)] = "nan"
    a[np.isposinf(n)] = "inf"
    a[np.isneginf(n)] = "-inf"
    return a.tolist()
