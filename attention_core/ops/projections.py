"""Steps 2 and 11: projections, seeded weight recipes, splitting and merging heads, in the seeds' two styles.

Symbols: L query length, S key length, D = d_in (d_model), d = d_out (per-head width), H heads.

Layouts (how a stored matrix is applied):
    "linear"  out×in, applied as ``x @ W.T``  (nn.Linear; notebooks 000, 002, 003's Linear class)
    "matmul"  in×out, applied as ``x @ W``    (a bare Parameter/tensor; 001, 003's Parameter class)

Head modes:
    "concat"  every head has its own full-width W_q/W_k/W_v (D→d); head outputs are concatenated
              (000/002's ``nn.ModuleList`` of ``Attention`` heads, ``torch.cat(..., dim=1)``)
    "split"   one D×D projection, viewed as H heads of D/H (``Q.view(1, T, H, D//H).transpose(1, 2)``,
              001 and the Vaswani paper), merged back and optionally passed through W_o

Weight recipes (``init``), each drawn from its own ``torch.Generator`` so the global RNG is untouched:
    "linear"    nn.Linear(in, out, bias=False) default: U(-1/√in, 1/√in), out×in   (000/002 seed 42)
    "rand"      torch.rand(in, out)                                                    (003 seed 69)
    "randn"     torch.randn(in, out)                                                   (001)
    "identity"  the identity, so q = k = v = x                                        (003, 004)
A recipe fixes the numbers; the layout only fixes how they are stored, so flipping the layout
stores the transpose and leaves every output unchanged (003 shows exactly this equivalence).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

LAYOUTS = ("linear", "matmul")
MODES = ("concat", "split")
RECIPES = ("linear", "rand", "randn", "identity")


@dataclass(frozen=True)
class Weights:
    """Projection matrices in one layout. concat: one matrix per head; split: exactly one."""

    W_q: Tensor  # (H or 1, d, D) linear | (H or 1, D, d) matmul
    W_k: Tensor  # same as W_q; grouped-query (G kv heads): (G, d, D) concat, (1, G·D/H, D) split (linear)
    W_v: Tensor  # same as W_k
    W_o: Tensor | None  # (D, H·d) linear | (H·d, D) matmul
    layout: str
    b_q: Tensor | None = None  # (H or 1, d) biases, added after the projection (nn.Linear(bias=True)); None = none
    b_k: Tensor | None = None  # same as b_q
    b_v: Tensor | None = None  # same as b_q
    b_o: Tensor | None = None  # (D,) added after W_o


def draw(recipe: str, n_in: int, n_out: int, g: torch.Generator, dtype: torch.dtype = torch.float32) -> Tensor:
    """One (n_out, n_in) matrix in linear layout, drawn by ``recipe`` from generator ``g`` in ``dtype``.

    Drawn in the target dtype, as ``nn.Linear(..., dtype=torch.float64)`` or ``torch.rand(..., dtype=...)``
    draw after ``torch.manual_seed``: a float64 draw is not a float32 draw cast up.
    """
    if recipe == "linear":  # nn.Linear.reset_parameters: kaiming_uniform_(a=√5), its bound computed as torch does
        gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
        bound = math.sqrt(3.0) * (gain / math.sqrt(n_in))
        return torch.empty(n_out, n_in, dtype=dtype).uniform_(-bound, bound, generator=g)
    if recipe == "rand":
        return torch.rand(n_in, n_out, generator=g, dtype=dtype).T
    if recipe == "randn":
        return torch.randn(n_in, n_out, generator=g, dtype=dtype).T
    if recipe == "identity":
        return torch.eye(n_out, n_in, dtype=dtype)
    raise ValueError(f"init={recipe!r} is not one of {RECIPES}")


def to_layout(w_linear: Tensor, layout: str) -> Tensor:
    """Store an (out, in) matrix in ``layout``."""
    return (w_linear if layout == "linear" else w_linear.T).contiguous()


def init_weights(
    recipe: str,
    seed: int,
    d_in: int,
    d_out: int,
    heads: int,
    mode: str,
    layout: str,
    with_w_o: bool = False,
    dtype: torch.dtype = torch.float32,
    kv_heads: int | None = None,
) -> Weights:
    """Seeded weights drawn in the notebooks' order: W_q, W_k, W_v, then the next head, then W_o.

    Reproduces ``torch.manual_seed(seed)`` followed by creating the layers, without touching the
    global RNG. In split mode d_out is ignored: the projections are D×D.

    ``kv_heads`` G < H (grouped-query): concat draws W_k and W_v only with the first head of each group of H/G
    heads (W_q, W_k, W_v, then the group's other heads' W_q), so W_k, W_v are (G, d, D); split draws W_k and W_v
    G·D/H wide. G = H (or None) is the plain draw.
    """
    g = torch.Generator().manual_seed(seed)
    n_mats, width = (heads, d_out) if mode == "concat" else (1, d_in)
    group = 1 if kv_heads is None else heads // kv_heads
    kv_width = width if mode == "concat" else width // group  # split: G·D/H
    per: list[list[Tensor]] = [[], [], []]
    for h in range(n_mats):
        per[0].append(to_layout(draw(recipe, d_in, width, g, dtype), layout))  # W_q of this head
        if mode == "split" or h % group == 0:  # W_k, W_v: once per group of heads
            for slot in per[1:]:
                slot.append(to_layout(draw(recipe, d_in, kv_width, g, dtype), layout))
    w_o = to_layout(draw(recipe, n_mats * width, d_in, g, dtype), layout) if with_w_o else None  # (D, H·d)
    return Weights(*(torch.stack(s) for s in per), W_o=w_o, layout=layout)


def project(x: Tensor, w: Tensor, layout: str, b: Tensor | None = None) -> Tensor:
    """(..., T, D) with (H, ·, ·) weights and optional (H, d) biases -> (..., H, T, d)."""
    x = x.unsqueeze(-3)  # (..., 1, T, D)
    out = x @ w.transpose(-2, -1) if layout == "linear" else x @ w
    return out if b is None else out + b.unsqueeze(-2)  # (H, d) -> (H, 1, d): one bias per head, every row


def apply_out(concat: Tensor, w_o: Tensor | None, layout: str, b_o: Tensor | None = None) -> Tensor:
    """(..., L, H·d) through W_o (plus b_o) -> (..., L, D); identity when there is no W_o."""
    if w_o is None:
        return concat
    out = concat @ w_o.T if layout == "linear" else concat @ w_o
    return out if b_o is None else out + b_o


def split_heads(x: Tensor, heads: int) -> Tensor:
    """(..., T, D) -> (..., H, T, D/H), as 001's ``view(1, T, H, hd).transpose(1, 2)``."""
    *lead, t, d = x.shape
    return x.reshape(*lead, t, heads, d // heads).transpose(-3, -2)


def merge_heads(x: Tensor) -> Tensor:
    """(..., H, T, hd) -> (..., T, H·hd), as 001's ``transpose(1, 2).reshape(1, T, D)``."""
    *lead, h, t, hd = x.shape
    return x.transpose(-3, -2).reshape(*lead, t, h * hd)
