"""Every execution strategy in the registry (attention_core/pipeline/strategies.py) against "full" on the same
prepared inputs: causal self-attention with grouped kv heads, RoPE, ALiBi, a window and padding, in every mix; and
"full" itself against torch's F.scaled_dot_product_attention."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F

import attention_core as ac
from attention_core.ops.masks import causal_keep, padding_keep
from attention_core.ops.trace import Trace
from attention_core.pipeline.layer import Variants, prepare
from attention_core.pipeline.strategies import STRATEGIES, full

CASES = list(itertools.product([(4, 4), (4, 2), (6, 1)], [False, True], [False, True], [None, 2], [False, True]))


def prepared(heads: int, kv: int, with_rope: bool, with_alibi: bool, window: int | None, pad: bool) -> Trace:
    g = torch.Generator().manual_seed(heads * 100 + kv * 10 + window_or(window) + 2 * pad)
    n, e = 7, 4
    q, k, v = (
        torch.randn(heads, n, e, generator=g),
        torch.randn(kv, n, e, generator=g),
        torch.randn(kv, n, 3, generator=g),
    )
    padding = (False, False, True, False, False, False, False) if pad else None
    keep = causal_keep(n, n) if padding is None else causal_keep(n, n) & padding_keep(n, list(padding))
    var = Variants(
        positions="rope" if with_rope else "none", alibi=with_alibi, window=window, block_rows=3, block_cols=2
    )
    p = prepare(q, k, v, keep, variants=var, causal=True, padding=padding)
    assert p.k.shape == (heads, n, e) and (p.rope is not None) == with_rope and (p.alibi is not None) == with_alibi
    return p


def window_or(w: int | None) -> int:
    return 0 if w is None else w


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_each_strategy_equals_full(name: str, case: tuple) -> None:
    (heads, kv), with_rope, with_alibi, window, pad = case
    p = prepared(heads, kv, with_rope, with_alibi, window, pad)
    want = full(p).output  # (H, L, Ev)
    got = STRATEGIES[name](p).output
    assert got.shape == want.shape == (heads, 7, 3)
    torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-5)


def test_full_is_torchs_sdpa_with_the_same_mask_and_bias() -> None:
    p = prepared(4, 2, True, True, 3, True)
    mask = torch.zeros(p.keep.shape).masked_fill(~p.keep, float("-inf")) + p.bias  # (H, L, S) additive
    ref = F.scaled_dot_product_attention(p.q, p.k, p.v, attn_mask=mask)
    torch.testing.assert_close(full(p).output, ref)


def test_an_unknown_name_falls_back_to_the_default_and_the_layer_runs_the_named_ones() -> None:
    assert STRATEGIES.get_interface("flash-9000", full) is full
    assert STRATEGIES.get_interface("tiled", full) is STRATEGIES["tiled"]
    sc = {"x": [[1.0, 0.5, -1.0, 2.0], [0.0, 1.0, 1.0, -0.5], [2.0, -1.0, 0.5, 0.0]], "heads": 2, "d_out": 2,
          "mask": {"kind": "causal"}}  # fmt: skip
    plain = ac.evaluate(ac.parse(sc))
    assert plain.variants is None  # every step at its default: nothing beside "full"
    both = ac.evaluate(ac.parse({**sc, "block_rows": 2, "decode": True}))
    assert both.variants is not None and both.tiled is not None and both.decoding is not None
    assert torch.equal(both.mixed, plain.mixed)  # the strategies beside it change nothing
    torch.testing.assert_close(both.tiled.output, plain.mixed)
    torch.testing.assert_close(both.decoding.output, plain.mixed)
