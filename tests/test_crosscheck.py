"""attention_core against torch's own F.scaled_dot_product_attention and nn.MultiheadAttention."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import attention_core as ac

CASES = [(seed, kind) for seed in range(6) for kind in ("none", "causal", "padding", "custom")]


def _keep(kind: str, n_q: int, n_k: int, g: torch.Generator) -> torch.Tensor | None:
    if kind == "none":
        return None
    if kind == "causal":
        return ac.causal_keep(n_q, n_k)
    if kind == "padding":
        pad = (torch.rand(n_k, generator=g) < 0.4).tolist()
        pad[0] = False
        return ac.padding_keep(n_q, pad)
    return torch.rand(n_q, n_k, generator=g) < 0.6  # custom: may leave a row fully masked


@pytest.mark.parametrize(("seed", "kind"), CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_attend_matches_sdpa(seed: int, kind: str, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(seed)
    b, h = int(torch.randint(1, 3, (1,), generator=g)), int(torch.randint(1, 4, (1,), generator=g))
    n_q, n_k, e, ev = (int(v) for v in torch.randint(1, 9, (4,), generator=g))
    q = torch.randn(b, h, n_q, e, generator=g, dtype=dtype)
    k = torch.randn(b, h, n_k, e, generator=g, dtype=dtype)
    v = torch.randn(b, h, n_k, ev, generator=g, dtype=dtype)
    keep = _keep(kind, n_q, n_k, g)
    for scale, sdpa_scale in ((True, None), (False, 1.0), (0.7, 1 / 0.7)):
        tr = ac.attend(q, k, v, keep=keep, scale=scale, fill="-inf")
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=sdpa_scale)
        torch.testing.assert_close(tr.output, ref)
        assert not torch.isnan(tr.weights).any()
        assert tr.output.shape == (b, h, n_q, ev)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("masked", [False, True])
def test_split_mode_with_w_o_matches_nn_multihead_attention(seed: int, masked: bool) -> None:
    g = torch.Generator().manual_seed(seed)
    heads = [1, 2, 4][seed % 3]
    d = heads * int(torch.randint(1, 5, (1,), generator=g))
    n_q, n_k = (int(v) for v in torch.randint(1, 7, (2,), generator=g))
    w = ac.init_weights("linear", seed, d, d, heads, "split", "linear", with_w_o=True)
    x_q = torch.randn(n_q, d, generator=g)
    x_kv = torch.randn(n_k, d, generator=g)
    keep = ac.causal_keep(n_q, n_k) if masked else None
    tr = ac.multi_head(x_q, x_kv, x_kv, w, heads, "split", keep=keep)

    mha = nn.MultiheadAttention(d, heads, bias=False, batch_first=True)
    with torch.no_grad():  # copy_weights: in_proj is [W_q; W_k; W_v] stacked, out×in like nn.Linear
        mha.in_proj_weight.copy_(torch.cat([w.W_q[0], w.W_k[0], w.W_v[0]]))
        mha.out_proj.weight.copy_(w.W_o)
    # nn.MultiheadAttention's bool mask has the opposite polarity: True = NOT allowed
    attn_mask = None if keep is None else ~keep
    out, attn = mha(x_q[None], x_kv[None], x_kv[None], attn_mask=attn_mask, average_attn_weights=False)
    torch.testing.assert_close(tr.output, out[0].detach())
    torch.testing.assert_close(tr.weights, attn[0].detach())


@pytest.mark.parametrize("layout", ["linear", "matmul"])
def test_concat_mode_heads_equal_separate_single_head_runs(layout: str) -> None:
    g = torch.Generator().manual_seed(3)
    x = torch.randn(5, 4, generator=g)
    w = ac.init_weights("randn", 11, 4, 3, 3, "concat", layout, with_w_o=True)
    tr = ac.multi_head(x, x, x, w, 3, "concat", keep=ac.causal_keep(5, 5))
    outs = []
    for h in range(3):
        one = ac.Weights(w.W_q[h : h + 1], w.W_k[h : h + 1], w.W_v[h : h + 1], None, layout)
        outs.append(ac.multi_head(x, x, x, one, 1, "concat", keep=ac.causal_keep(5, 5)).output)
    concat = torch.cat(outs, dim=-1)
    torch.testing.assert_close(tr.concat, concat)
    w_o = w.W_o if layout == "matmul" else w.W_o.T
    torch.testing.assert_close(tr.output, concat @ w_o)
    assert tr.output.shape == (5, 4)
