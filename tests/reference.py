"""An independent reference for ``attention_core.compute``, written from the seed notebooks' own lines.

Nothing here imports attention_core: every step is a plain torch op copied from a notebook line
(cited beside it), so a test comparing the two can catch a mistake in either.

    weights    nn.Linear(d_in, d_out, bias=False, dtype=...) after torch.manual_seed (000, 002, 003 In [33]);
               torch.rand(d_in, d_out) (003 In [21]); torch.randn(d_in, d_out) (001); the identity (003, 004)
    heads      000's ModuleList loop + torch.cat(dim=1); 001's view(1, T, H, hd).transpose(1, 2)
    scale      000: sims / torch.tensor(k.size(1) ** 0.5); off; or a temperature
    mask       000: masked_fill(mask == 0, -inf); 002: masked_fill(block_mask, -1e9); 004: scaled + M
    normalise  F.softmax(dim=-1) (every seed); 003 In [9]: scores / scores.sum() over the visible keys
    defined    a query row that sees no key has weight 0 where softmax gives 0/0 (SDPA's convention), and
               divide-by-sum has nothing to divide there, so it is 0 for every fill; a row whose visible
               scores sum to 0 is 0 too
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def seeded(recipe: str, seed: int, d_in: int, d_out: int, n_mats: int, w_o: bool, dtype: torch.dtype) -> dict:
    """Apply-matrices (in×out, ``x @ W``) drawn as the notebooks draw them, in their order.

    -> {"W_q": [H × (D, d)], "W_k": ..., "W_v": ..., "W_o": (H·d, D) or None}
    """
    out: dict[str, Any] = {"W_q": [], "W_k": [], "W_v": [], "W_o": None}

    def one(n_in: int, n_out: int) -> Tensor:
        if recipe == "linear":  # 000 In [2]: nn.Linear(in_features, out_features, bias=False); x @ W.T
            return nn.Linear(n_in, n_out, bias=False, dtype=dtype).weight.detach().T
        if recipe == "rand":  # 003 In [21]: nn.Parameter(torch.rand(d_in, d_out)); x @ W
            return torch.rand(n_in, n_out, dtype=dtype)
        if recipe == "randn":  # 001: W_q = torch.randn(4, 4); x @ W
            return torch.randn(n_in, n_out, dtype=dtype)
        return torch.eye(n_out, n_in, dtype=dtype).T  # identity: q = k = v = x (003, 004)

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for _ in range(n_mats):
            for name in ("W_q", "W_k", "W_v"):
                out[name].append(one(d_in, d_out))
        if w_o:
            out["W_o"] = one(n_mats * d_out, d_in)
    return out


def explicit(w: dict[str, Any], layout: str, dtype: torch.dtype) -> dict:
    """The scenario's stored matrices as apply-matrices: linear (out×in) is applied as x @ W.T."""

    def apply(m: list) -> Tensor:
        t = torch.tensor(m, dtype=dtype)
        return t.T if layout == "linear" else t

    return {
        **{n: [apply(m) for m in w[n]] for n in ("W_q", "W_k", "W_v")},
        "W_o": None if w.get("W_o") is None else apply(w["W_o"]),
    }


def keep_of(mask: dict[str, Any] | None, n_q: int, n_k: int) -> Tensor | None:
    """(L, S) bool, True = the query may look at the key."""
    kind = (mask or {}).get("kind", "none")
    if kind == "none":
        return None
    keep = torch.ones(n_q, n_k, dtype=torch.bool)
    if "causal" in kind:  # 000 In [21]: mask = torch.tril(torch.ones(3, 3)); 004: np.tril(np.ones((T, T)))
        keep &= torch.tril(torch.ones(n_q, n_k)) == 1
    if "padding" in kind:
        keep &= ~torch.tensor(mask["padding"], dtype=torch.bool).unsqueeze(0)
    if kind == "custom":
        keep &= torch.tensor(mask["keep"]) == 1
    return keep


def head(q: Tensor, k: Tensor, v: Tensor, keep: Tensor | None, scale: Any, fill: str, normalize: str) -> tuple:
    """One head, (L, d), (S, d), (S, dv) -> weights (L, S), output (L, dv)."""
    sims = torch.matmul(q, k.transpose(0, 1))  # 000: sims = torch.matmul(q, k.transpose(...))
    if scale is True:
        scaled = sims / torch.tensor(k.size(1) ** 0.5, dtype=sims.dtype)  # 000: / torch.tensor(k.size(col) ** 0.5)
    elif scale is False:
        scaled = sims
    else:
        scaled = sims / torch.tensor(float(scale), dtype=sims.dtype)
    if keep is None:
        masked = scaled
        visible_rows = torch.ones(q.size(0), dtype=torch.bool)
    else:
        visible_rows = keep.any(dim=1)
        if fill == "-inf":  # 000: scaled_sims.masked_fill(mask == 0, float('-inf'))
            masked = scaled.masked_fill(keep.int() == 0, float("-inf"))
        elif fill == "-1e9":  # 002: sims_scaled.masked_fill(block_mask, -1e9), block_mask True = blocked
            masked = scaled.masked_fill(~keep, -1e9)
        else:  # 004: mask[mask == 0] = -np.infty; mask[mask == 1] = 0; scaled + mask
            m = keep.to(scaled.dtype)  # 1 = visible, 0 = hidden, like np.tril(np.ones((T, T)))
            m[m == 0] = -math.inf
            m[m == 1] = 0
            masked = scaled + m
    if normalize == "softmax":
        weights = F.softmax(masked, dim=-1)  # 000: attention_percents = F.softmax(scaled_sims, dim=1)
        if fill != "-1e9":  # a row with no visible key: 0/0 = NaN, defined as 0 (SDPA)
            weights = torch.where(visible_rows.unsqueeze(1), weights, torch.zeros_like(weights))
    else:  # 003 In [9]: attn_weights = attn_scores / attn_scores.sum(), over the keys the row may see
        vis = scaled if keep is None else torch.where(keep, scaled, torch.zeros_like(scaled))
        total = vis.sum(dim=-1, keepdim=True)
        weights = torch.where(total != 0, vis / torch.where(total != 0, total, torch.ones_like(total)), 0.0)
    return weights, torch.matmul(weights, v)  # 000: attention_scores = torch.matmul(attention_percents, v)


def reference(sc: dict[str, Any]) -> dict[str, Any]:
    """A well-formed scenario (numbers, not strings) -> {"weights": [H × (L, S)], "outputs": [H × (L, dv)],
    "combined": (L, ·), "W": the apply-matrices}. Raises nothing for a valid scenario; validates nothing."""
    dtype = DTYPES[sc.get("dtype", "float32")]
    if "x" in sc:
        x_q = x_k = x_v = torch.tensor(sc["x"], dtype=dtype)
    else:
        x_q, x_k = torch.tensor(sc["x_q"], dtype=dtype), torch.tensor(sc["x_k"], dtype=dtype)
        x_v = torch.tensor(sc["x_v"], dtype=dtype) if "x_v" in sc else x_k
    n_q, d_model = x_q.shape
    n_k = x_k.size(0)
    heads, mode, layout = sc.get("heads", 1), sc.get("head_mode", "concat"), sc.get("layout", "linear")
    w = sc.get("weights", {"init": "linear", "seed": 42})
    if "init" in w:
        d_out = d_model if mode == "split" else sc.get("d_out") or d_model
        n_mats = 1 if mode == "split" else heads
        W = seeded(w["init"], w.get("seed", 0), d_model, d_out, n_mats, bool(w.get("w_o")), dtype)
    else:
        W = explicit(w, layout, dtype)
    keep = keep_of(sc.get("mask"), n_q, n_k)
    mask = sc.get("mask") or {}
    fill, scale, normalize = mask.get("fill", "-inf"), sc.get("scale", True), sc.get("normalize", "softmax")
    weights, outputs = [], []
    if mode == "concat":  # 000 In [5]: [head(q, k, v) for head in self.heads], torch.cat(dim=1)
        for h in range(heads):
            wt, out = head(x_q @ W["W_q"][h], x_k @ W["W_k"][h], x_v @ W["W_v"][h], keep, scale, fill, normalize)
            weights.append(wt)
            outputs.append(out)
        concat = torch.cat(outputs, dim=1)
    else:  # 001: Q.view(1, T, H, hd).transpose(1, 2) ... transpose(1, 2).reshape(1, T, D)
        hd = d_model // heads
        Q = (x_q @ W["W_q"][0]).view(1, n_q, heads, hd).transpose(1, 2)
        K = (x_k @ W["W_k"][0]).view(1, n_k, heads, hd).transpose(1, 2)
        V = (x_v @ W["W_v"][0]).view(1, n_k, heads, hd).transpose(1, 2)
        for h in range(heads):
            wt, out = head(Q[0, h], K[0, h], V[0, h], keep, scale, fill, normalize)
            weights.append(wt)
            outputs.append(out)
        concat = torch.stack(outputs).unsqueeze(0).transpose(1, 2).reshape(n_q, d_model)
    combined = concat if W["W_o"] is None else concat @ W["W_o"]
    return {"weights": weights, "outputs": outputs, "combined": combined, "W": W, "keep": keep}
