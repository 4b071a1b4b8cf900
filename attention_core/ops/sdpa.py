"""Scaled dot-product attention that returns every intermediate.

Shapes (PyTorch's MultiheadAttention symbols):
    L  target (query) length          S  source (key/value) length
    E  query/key width (d_k)          Ev value width (d_v)
    ...  any leading batch dims, e.g. (B, H)

Mask polarity, stated once for the whole package:
    ``keep`` is a bool tensor (..., L, S); ``True`` means "this query may look at this key".
    Each notebook's own polarity is converted at the edge by :func:`apply_fill`.

Fill conventions (each named after the notebook that teaches it):
    "-inf"      000: ``scaled.masked_fill(mask == 0, float('-inf'))``
    "-1e9"      002: ``scaled.masked_fill(block_mask, -1e9)``, block_mask = ~keep
                (the notebook writes ``values=-1.e9``, which raises TypeError in every torch;
                this is what that line means)
    "additive"  004: ``scaled + M`` with M = 0 where kept and -inf where masked
"""

from __future__ import annotations

from dataclasses import replace

import torch
import torch.nn.functional as F
from torch import Tensor

from .trace import Trace

FILLS = ("-inf", "-1e9", "additive")


def scale_divisor(scale: bool | float, d_k: int) -> float | None:
    """``True`` → √d_k, ``False`` → None (no scaling), a number → that number (temperature)."""
    if scale is True:
        return d_k**0.5
    if scale is False:
        return None
    return float(scale)


def score(q: Tensor, k: Tensor) -> Tensor:
    """Step 5, score: (..., L, E) x (..., S, E) -> (..., L, S) dot products q kᵀ."""
    return q @ k.transpose(-2, -1)  # (..., L, E) x (..., E, S) -> (..., L, S)


def scale_scores(scores: Tensor, divisor: float | None) -> Tensor:
    """Step 6, scale: (..., L, S) scores / s; unchanged when scaling is off (``divisor`` None).

    000/002 divide by torch.tensor(sqrt(d_k)); 004 by math.sqrt(d_k): the same number.
    """
    return scores if divisor is None else scores / torch.tensor(divisor, dtype=scores.dtype)


def add_bias(scaled: Tensor, bias: Tensor | None) -> Tensor:
    """Step 7, bias: (..., L, S) scaled scores + a bias broadcastable to them (ALiBi's); unchanged without one."""
    return scaled if bias is None else scaled + bias


def apply_fill(scaled: Tensor, keep: Tensor | None, fill: str) -> Tensor:
    """Mask (..., L, S) scores with one notebook's convention; ``keep`` True = visible."""
    if keep is None:
        return scaled
    if fill == "-inf":  # 000
        return scaled.masked_fill(keep == 0, float("-inf"))
    if fill == "-1e9":  # 002: a boolean block mask, True = blocked
        return scaled.masked_fill(~keep, -1e9)
    if fill == "additive":  # 004: M = 0 / -inf, added
        m = torch.zeros(keep.shape, dtype=scaled.dtype).masked_fill(~keep, float("-inf"))
        return scaled + m
    raise ValueError(f"fill={fill!r} is not one of {FILLS}")


def fully_masked_note(rows: tuple[int, ...], fill: str, n_keys: int, normalize: str = "softmax") -> str:
    """A plain-words warning that says what each convention does with rows that see no key."""
    shown = ", ".join(str(r + 1) for r in rows)
    if normalize == "sum":
        return (
            f"query row(s) {shown}: every key is masked. Divide-by-sum divides the visible scores by their sum, "
            "and this row has none, so whatever the fill, those rows are defined as weight 0 and output 0."
        )
    base = (
        f"query row(s) {shown}: every key is masked. "
        f"With -inf (000) or additive -inf (004) softmax computes 0/0 = NaN; "
        f"with -1e9 (002) every score is equal, so the weights are uniform 1/{n_keys}."
    )
    if fill == "-1e9":
        return base + " This run uses -1e9, so those rows are uniform."
    return base + (
        f" This run uses {'additive -inf' if fill == 'additive' else '-inf'}, so those rows are defined as weight 0 "
        "and output 0 "
        "(what F.scaled_dot_product_attention returns)."
    )


def normalise(masked: Tensor, keep: Tensor | None, normalize: str) -> Tensor:
    """(..., L, S) masked scores -> the weights the normaliser literally returns (NaN possible).

    softmax: ``F.softmax(masked, dim=-1)``, whatever the fill put there (so -1e9 hides a key only while
    the row's visible scores stay far above -1e9). sum (003 In [9]): each visible score over the sum of the
    visible scores; a hidden key takes no part and gets 0, for every fill (-1e9 is a number, not "absent").
    """
    if normalize == "softmax":
        return F.softmax(masked, dim=-1)
    if normalize != "sum":
        raise ValueError(f"normalize={normalize!r} is not 'softmax' or 'sum'")
    visible = masked if keep is None else masked.masked_fill(~keep, 0.0)  # (..., L, S)
    return visible / visible.sum(dim=-1, keepdim=True)


def attend(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    keep: Tensor | None = None,
    scale: bool | float = True,
    fill: str = "-inf",
    normalize: str = "softmax",
    bias: Tensor | None = None,
    base: Trace | None = None,
) -> Trace:
    """Scaled dot-product attention on (..., L, E), (..., S, E), (..., S, Ev) tensors.

    ``keep`` is (L, S) or broadcastable to (..., L, S). ``normalize`` is "softmax" (every seed)
    or "sum" (003's first, naive normalisation: divide each row by its sum). ``bias`` (broadcastable to
    (..., L, S), ALiBi's) is added after the scaling and before the mask; without one nothing changes. ``base``: the
    trace of the steps before (the layer's 1–4), which the result extends; None: a trace of steps 5–10 alone.
    """
    scores = score(q, k)  # 5. (..., L, S)
    divisor = scale_divisor(scale, k.size(-1))
    scaled = scale_scores(scores, divisor)  # 6.
    biased = None if bias is None else add_bias(scaled, bias)  # 7. (None in the trace without a bias)
    masked = apply_fill(scaled if biased is None else biased, keep, fill)  # 8.
    weights_raw = normalise(masked, keep, normalize)  # 9.

    rows: tuple[int, ...] = ()
    warnings: list[str] = []
    weights = weights_raw
    if keep is not None:
        dead = ~keep.any(dim=-1)  # (..., L): per batch element, never combined across the batch
        rows = tuple(int(i) for i in torch.nonzero(dead.reshape(-1, dead.shape[-1]).any(dim=0)).flatten())
        if rows:
            warnings.append(fully_masked_note(rows, fill, k.size(-2), normalize))
            if fill != "-1e9" or normalize == "sum":
                weights = weights_raw.masked_fill(dead.unsqueeze(-1), 0.0)
    if normalize == "sum" and not torch.isfinite(weights).all():
        warnings.append("a row of scores sums to 0, so divide-by-sum is undefined there (shown as 0)")
        weights = torch.nan_to_num(weights, nan=0.0, posinf=0.0, neginf=0.0)
    output = weights @ v  # 10. mix: (..., L, S) x (..., S, Ev) -> (..., L, Ev)
    steps = dict(
        q=q, k=k, v=v, scores=scores, scaled=scaled, masked=masked, weights_raw=weights_raw, weights=weights,
        mixed=output, output=output, keep=keep, fill=fill, divisor=divisor, normalize=normalize, scale=scale,
        fully_masked_rows=rows, warnings=tuple(warnings), bias=bias, biased=biased,
    )  # fmt: skip
    return Trace(**steps) if base is None else replace(base, **steps)


def compare_fills(
    q: Tensor, k: Tensor, v: Tensor, keep: Tensor, scale: bool | float = True, normalize: str = "softmax"
) -> dict[str, Trace]:
    """The same (L, E), (S, E), (S, Ev) inputs under each fill convention: {fill: trace} (mask lab)."""
    return {fill: attend(q, k, v, keep=keep, scale=scale, fill=fill, normalize=normalize) for fill in FILLS}


def _leak(tr: Trace, i: int) -> str:
    """Why -1e9 failed to hide row i's masked keys: the row's visible scores are not far above -1e9."""
    seen = torch.ones(tr.masked.shape[-1], dtype=torch.bool) if tr.keep is None else tr.keep[i]  # (S,)
    top = float(tr.masked[i][seen].max())
    hidden_weight = float(tr.weights[i][~seen].sum())
    floor = 104 if tr.masked.dtype == torch.float32 else 745  # exp(-x) underflows to 0 beyond about this x
    return (
        f"row {i + 1}: the hidden keys get weight {hidden_weight:.4g} under -1e9. -1e9 is a finite score: "
        f"softmax weighs a hidden key by exp(-1e9 − m) against exp(0) for the row's largest visible score "
        f"m = {top:.4g}, and that is 0 only while m is more than about {floor} above -1e9. Scores of this size "
        "(cells up to 1e6 make |scores| reach 1e12) undo the mask; -inf always hides"
    )


def fill_verdicts(traces: dict[str, Trace]) -> dict[str, str]:
    """The mask lab's verdict per fill: what really differs between the fills' weights, row by row, and why.

    ``traces`` is :func:`compare_fills`'s {fill: trace} for one head, (L, S) weights each.
    """
    out: dict[str, str] = {}
    for fill, tr in traces.items():
        dead = tr.fully_masked_rows
        said: list[str] = []
        if dead:
            rows = ", ".join(str(r + 1) for r in dead)
            if tr.normalize == "sum":
                said.append(f"row(s) {rows} see no key: divide-by-sum has no visible score to divide, so they are 0")
            elif fill == "-1e9":
                said.append(
                    f"row(s) {rows} see no key: every score is -1e9, so the row is uniform 1/{tr.keep.shape[-1]}"
                )
            else:
                said.append(f"row(s) {rows} see no key: softmax gives NaN (0/0); the app shows 0 there, like SDPA")
        differ = [
            i
            for i in range(tr.weights.shape[-2])
            if i not in dead and any(not torch.equal(tr.weights[i], o.weights[i]) for o in traces.values())
        ]
        for i in differ:
            said.append(_leak(traces["-1e9"], i) if "-1e9" in traces else f"row {i + 1}: the fills' weights differ")
        if not differ:
            said.append("in every row that sees a key, the three fills give exactly the same weights")
        out[fill] = "; ".join(said)
    return out
