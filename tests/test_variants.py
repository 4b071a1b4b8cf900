"""The variant steps against independent references: torch's SDPA (enable_gqa, is_causal, attn_mask),
transformers' own Llama RoPE, ALiBi's official slope code and the formulas written out plainly."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import Tensor
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

import attention_core as ac
from attention_core.ops.kv_heads import kv_head_map, share_kv
from attention_core.ops.masks import causal_keep, padding_keep, window_keep
from attention_core.ops.positions import alibi, alibi_slopes, rope, rope_theta, sinusoidal
from attention_core.ops.sdpa import attend
from attention_core.pipeline.kv_cache import kv_cache_decode
from attention_core.pipeline.layer import Variants, prepare
from attention_core.pipeline.strategies import STRATEGIES, full
from attention_core.pipeline.tiled import tiled_attention
from attention_core.validation.errors import ScenarioError

# ---- independent references, written from the papers and official code --------------------------------------


def official_alibi_slopes(n: int) -> list[float]:
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py, as published."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + official_alibi_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def loop_window(n_q: int, n_k: int, w: int, causal: bool) -> Tensor:
    """Mistral: query i sees key j when i − w < j ≤ i; without causality the band |i − j| < w."""
    keep = torch.zeros(n_q, n_k, dtype=torch.bool)
    for i in range(n_q):
        for j in range(n_k):
            keep[i, j] = (i - w < j <= i) if causal else abs(i - j) < w
    return keep


def hf_rope(q: Tensor, k: Tensor, base: float, positions: Tensor) -> tuple[Tensor, Tensor]:
    """transformers' Llama rotary embedding on (B, H, T, E) q and (B, G, T, E) k."""
    e = q.shape[-1]
    config = LlamaConfig(
        hidden_size=q.shape[1] * e,
        num_attention_heads=q.shape[1],
        num_key_value_heads=k.shape[1],
        head_dim=e,
        rope_theta=base,
        max_position_embeddings=4096,
    )
    cos, sin = LlamaRotaryEmbedding(config)(q, positions.unsqueeze(0))  # (1, T, E) each
    return apply_rotary_pos_emb(q, k, cos, sin)


def float_mask(keep: Tensor | None, bias: Tensor | None, shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
    """An SDPA float attn_mask: the bias (0 without one), -inf where keep is False."""
    m = torch.zeros(shape, dtype=dtype) if bias is None else bias.to(dtype).expand(shape).clone()
    return m if keep is None else m.masked_fill(~keep, float("-inf"))


# ---- grouped-query attention ----------------------------------------------------------------------------------

GQA_SHAPES = [(4, 1), (4, 2), (4, 4), (6, 3), (8, 2), (1, 1)]  # (H, G): G = 1 multi-query, G = H multi-head


@pytest.mark.parametrize(("heads", "kv_heads"), GQA_SHAPES)
@pytest.mark.parametrize("kind", ["none", "is_causal", "bool_mask", "cross"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gqa_matches_sdpa_enable_gqa(heads: int, kv_heads: int, kind: str, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(heads * 10 + kv_heads)
    n_q, n_k = (5, 7) if kind == "cross" else (6, 6)
    q = torch.randn(2, heads, n_q, 4, generator=g, dtype=dtype)
    k = torch.randn(2, kv_heads, n_k, 4, generator=g, dtype=dtype)
    v = torch.randn(2, kv_heads, n_k, 3, generator=g, dtype=dtype)
    keep = None
    if kind == "is_causal":
        keep = torch.ones(n_q, n_k, dtype=torch.bool).tril()
    elif kind == "bool_mask":
        keep = torch.rand(n_q, n_k, generator=g) < 0.6
        keep[2] = False  # one query row sees no key: SDPA returns 0 there, and so must the trace
    p = prepare(q, k, v, keep)  # steps 3, 4, 7, 8 at G kv heads; 5.–10. the "full" strategy
    tr = full(p)
    if kind == "is_causal":
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    else:
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    torch.testing.assert_close(tr.output, ref)
    assert tr.output.shape == (2, heads, n_q, 3)
    assert not torch.isnan(tr.weights).any()
    group = heads // kv_heads
    assert kv_head_map(heads, kv_heads) == tuple(h // group for h in range(heads))
    for h in range(heads):  # each query head reads its group's K and V, untouched
        assert torch.equal(p.k[:, h], k[:, h // group])
        assert torch.equal(p.v[:, h], v[:, h // group])
    if kind == "bool_mask":
        assert tr.fully_masked_rows == (2,)
        assert torch.isnan(tr.weights_raw[..., 2, :]).all()
        assert tr.warnings


def test_g_equal_h_is_the_package_attention() -> None:
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(3, 5, 4, generator=g) for _ in range(3))
    keep = torch.ones(5, 5, dtype=torch.bool).tril()
    tr = full(prepare(q, k, v, keep))
    ref = attend(q, k, v, keep=keep)
    torch.testing.assert_close(tr.weights, ref.weights)
    torch.testing.assert_close(tr.output, ref.output)


def test_gqa_multi_query_heads_share_one_key() -> None:
    g = torch.Generator().manual_seed(2)
    q = torch.randn(4, 3, 2, generator=g)
    k, v = torch.randn(1, 5, 2, generator=g), torch.randn(1, 5, 2, generator=g)
    tr = full(prepare(q, k, v))
    assert kv_head_map(4, 1) == (0, 0, 0, 0)
    for h in range(4):  # head h's scores are q[h] against the one shared K, written out
        torch.testing.assert_close(tr.scores[h], q[h] @ k[0].T)
        torch.testing.assert_close(tr.weights[h], torch.softmax(q[h] @ k[0].T / math.sqrt(2), dim=-1))


# ---- RoPE -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("head_width", [2, 4, 8, 16])
@pytest.mark.parametrize("base", [10000.0, 500.0, 1e6])
@pytest.mark.parametrize("offset", [0, 9])
def test_rope_matches_transformers_llama(head_width: int, base: float, offset: int) -> None:
    g = torch.Generator().manual_seed(head_width)
    q = torch.randn(1, 4, 7, head_width, generator=g)
    k = torch.randn(1, 2, 7, head_width, generator=g)
    positions = torch.arange(offset, offset + 7)
    tr = rope(q, k, base, pos_q=positions, pos_k=positions)
    q_ref, k_ref = hf_rope(q, k, base, positions)
    torch.testing.assert_close(tr.q_rot, q_ref)
    torch.testing.assert_close(tr.k_rot, k_ref)
    assert torch.equal(tr.q, q)
    assert torch.equal(tr.k, k)  # the trace keeps the unrotated tensors as given


def test_rope_trace_angles_and_pairs_written_out() -> None:
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(3, 6, generator=g, dtype=torch.float64), torch.randn(4, 6, generator=g, dtype=torch.float64)
    tr = rope(q, k, base=100.0)
    for i in range(3):  # θ_i = base^(-2i/E)
        assert tr.theta[i].item() == pytest.approx(100.0 ** (-2 * i / 6), rel=1e-15)
    for pos in range(3):
        for i in range(3):  # pair i = dims (i, i + E/2), turned by pos·θ_i
            a = pos * 100.0 ** (-2 * i / 6)
            assert tr.angles_q[pos, i].item() == pytest.approx(a, rel=1e-15, abs=0)
            x, y = q[pos, i].item(), q[pos, i + 3].item()
            assert tr.q_rot[pos, i].item() == pytest.approx(x * math.cos(a) - y * math.sin(a), rel=1e-12, abs=1e-14)
            assert tr.q_rot[pos, i + 3].item() == pytest.approx(y * math.cos(a) + x * math.sin(a), rel=1e-12, abs=1e-14)
    torch.testing.assert_close(tr.cos_k, tr.angles_k.cos())
    torch.testing.assert_close(tr.sin_q, tr.angles_q.sin())


def test_rope_scores_depend_on_the_offset_only() -> None:
    g = torch.Generator().manual_seed(6)
    q, k = torch.randn(1, 8, generator=g, dtype=torch.float64), torch.randn(1, 8, generator=g, dtype=torch.float64)
    dots = []
    for m in (0, 3, 11):  # the same q at m + 2 and k at m: one offset, three places
        r = rope(q, k, pos_q=[m + 2], pos_k=[m])
        dots.append((r.q_rot @ r.k_rot.T).item())
    assert dots[1] == pytest.approx(dots[0], rel=1e-12)
    assert dots[2] == pytest.approx(dots[0], rel=1e-12)


# ---- ALiBi ----------------------------------------------------------------------------------------------------


def test_alibi_slopes_for_8_heads_are_the_papers() -> None:
    slopes = alibi_slopes(8)
    assert slopes.tolist() == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]


@pytest.mark.parametrize("heads", [1, 2, 3, 4, 5, 6, 7, 12, 16, 20, 24])
def test_alibi_slopes_match_the_official_code(heads: int) -> None:
    ref = torch.tensor(official_alibi_slopes(heads), dtype=torch.float64)
    torch.testing.assert_close(alibi_slopes(heads), ref, rtol=1e-14, atol=0)


def test_alibi_bias_written_out() -> None:
    tr = alibi(3, 4, 5)
    slopes = official_alibi_slopes(3)
    for h in range(3):
        for i in range(4):
            for j in range(5):  # −m_h·(i − j) at or before the query; the same distance charged after it
                want = -slopes[h] * (i - j) if j <= i else -slopes[h] * (j - i)
                assert tr.bias[h, i, j].item() == pytest.approx(want, rel=1e-6)
                assert tr.distance[i, j].item() == i - j


def test_causal_alibi_attention_matches_sdpa_with_the_bias() -> None:
    g = torch.Generator().manual_seed(7)
    q = torch.randn(4, 6, 8, generator=g)
    k, v = torch.randn(2, 6, 8, generator=g), torch.randn(2, 6, 8, generator=g)
    p = prepare(q, k, v, causal_keep(6, 6), variants=Variants(alibi=True), causal=True)
    slopes = torch.tensor(official_alibi_slopes(4))
    i, j = torch.arange(6).unsqueeze(1), torch.arange(6).unsqueeze(0)
    bias = (-slopes[:, None, None] * (i - j)).float()  # (H, L, S), the paper's causal bias
    mask = float_mask(torch.ones(6, 6, dtype=torch.bool).tril(), bias, (4, 6, 6), torch.float32)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    torch.testing.assert_close(full(p).output, ref)
    assert p.alibi is not None and p.alibi.bias.shape == (4, 6, 6)


# ---- sinusoidal -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(1, 1), (5, 4), (7, 6), (10, 16), (4, 5), (64, 64)])
def test_sinusoidal_is_the_papers_formula(n: int, d: int) -> None:
    want = torch.zeros(n, d, dtype=torch.float64)
    for pos in range(n):
        for c in range(d):  # PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
            i = c // 2
            angle = pos / 10000 ** (2 * i / d)
            want[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    torch.testing.assert_close(sinusoidal(n, d, dtype=torch.float64), want, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(sinusoidal(n, d), want.float())


def test_sinusoidal_is_added_to_x() -> None:
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(8))
    w = ac.init_weights("linear", 1, 4, 2, 1, "concat", "linear")
    tr = ac.multi_head(x, x, x, w, 1, variants=ac.Variants(positions="sinusoidal"))  # step 1 of the layer
    torch.testing.assert_close(tr.x_q, x + sinusoidal(5, 4))
    assert torch.equal(tr.pe_q, sinusoidal(5, 4))  # the encoding the layer added, kept in its trace
    assert tr.pe_q[0].tolist() == [0.0, 1.0, 0.0, 1.0]  # position 0: sin 0, cos 0


# ---- sliding window -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_q", "n_k"), [(1, 1), (6, 6), (4, 7), (7, 4)])
@pytest.mark.parametrize("w", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("causal", [True, False])
def test_window_mask_is_the_definition(n_q: int, n_k: int, w: int, causal: bool) -> None:
    assert torch.equal(window_keep(n_q, n_k, w, causal=causal), loop_window(n_q, n_k, w, causal))


@pytest.mark.parametrize("w", [1, 2, 4, 8])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("padded", [False, True])
def test_window_attention_matches_sdpa_with_that_mask(w: int, causal: bool, padded: bool) -> None:
    g = torch.Generator().manual_seed(w)
    q = torch.randn(4, 7, 4, generator=g)
    k, v = torch.randn(2, 7, 4, generator=g), torch.randn(2, 7, 4, generator=g)
    pad = [False, True, False, False, True, False, False] if padded else None
    given = causal_keep(7, 7) if causal else None
    if pad is not None:
        given = padding_keep(7, pad) if given is None else given & padding_keep(7, pad)
    p = prepare(q, k, v, given, variants=Variants(window=w), causal=causal)
    keep = loop_window(7, 7, w, causal)
    if pad is not None:
        keep &= ~torch.tensor(pad).unsqueeze(0)
    assert torch.equal(p.keep, keep)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=p.keep, enable_gqa=True)
    torch.testing.assert_close(full(p).output, ref)


# ---- tiled online softmax -------------------------------------------------------------------------------------


def test_tiled_two_tiles_written_out() -> None:
    q = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    k = torch.tensor([[0.5, 0.0], [2.0, 0.0]], dtype=torch.float64)
    v = torch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=torch.float64)
    tr = tiled_attention(q, k, v, block_rows=1, block_cols=1, scale=False)
    first, second = tr.tiles
    assert (first.m.item(), first.l.item()) == (0.5, 1.0)  # after key 0: m = s0, l = exp(0)
    assert first.o.tolist() == [[1.0, 2.0]]
    a = math.exp(0.5 - 2.0)  # key 1 raises the max: the old sum and O shrink by exp(m_old − m_new)
    assert second.alpha.item() == pytest.approx(a)
    assert second.l.item() == pytest.approx(a + 1.0)
    torch.testing.assert_close(second.o, torch.tensor([[a * 1 + 3, a * 2 + 5]], dtype=torch.float64))
    torch.testing.assert_close(
        tr.output, torch.tensor([[(a + 3) / (a + 1), (2 * a + 5) / (a + 1)]], dtype=torch.float64)
    )


def test_tiled_fully_masked_row_is_zero_without_nan() -> None:
    g = torch.Generator().manual_seed(9)
    q, k, v = torch.randn(4, 3, generator=g), torch.randn(5, 3, generator=g), torch.randn(5, 2, generator=g)
    keep = torch.ones(4, 5, dtype=torch.bool)
    keep[1] = False
    keep[2, :3] = False  # row 2 sees nothing in the first key block
    tr = tiled_attention(q, k, v, block_rows=2, block_cols=3, keep=keep)
    assert tr.fully_masked_rows == (1,)
    assert tr.output[1].tolist() == [0.0, 0.0]
    assert tr.l[1].item() == 0.0 and tr.m[1].item() == float("-inf") and tr.logsumexp[1].item() == float("-inf")
    for t in tr.tiles:
        for part in (t.alpha, t.p, t.l, t.o):
            assert not torch.isnan(part).any()
    torch.testing.assert_close(tr.output, F.scaled_dot_product_attention(q, k, v, attn_mask=keep))


@st.composite
def attention_case(draw: st.DrawFn) -> dict:
    n_q, n_k = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["none", "causal", "random"]))
    return {
        "heads": draw(st.integers(1, 2)),
        "n_q": n_q,
        "n_k": n_k,
        "e": draw(st.integers(1, 4)),
        "ev": draw(st.integers(1, 3)),
        "kind": kind,
        "bias": draw(st.booleans()),
        "dtype": draw(st.sampled_from([torch.float32, torch.float64])),
        "seed": draw(st.integers(0, 2**31)),
    }


@settings(max_examples=20, deadline=None)
@given(attention_case())
def test_tiled_equals_full_softmax_for_every_block_size(c: dict) -> None:
    g = torch.Generator().manual_seed(c["seed"])
    h, n_q, n_k, dt = c["heads"], c["n_q"], c["n_k"], c["dtype"]
    q = torch.randn(h, n_q, c["e"], generator=g, dtype=dt)
    k = torch.randn(h, n_k, c["e"], generator=g, dtype=dt)
    v = torch.randn(h, n_k, c["ev"], generator=g, dtype=dt)
    keep = {
        "none": None,
        "causal": torch.ones(n_q, n_k, dtype=torch.bool).tril(),
        "random": torch.rand(n_q, n_k, generator=g) < 0.5,
    }[c["kind"]]
    bias = torch.randn(h, n_q, n_k, generator=g, dtype=dt) if c["bias"] else None
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask(keep, bias, (h, n_q, n_k), dt))
    scores = q @ k.transpose(-2, -1) / math.sqrt(c["e"]) + (0 if bias is None else bias)
    if keep is not None:
        scores = scores.masked_fill(~keep, float("-inf"))
    for b_r in range(1, n_q + 1):
        for b_c in range(1, n_k + 1):
            tr = tiled_attention(q, k, v, b_r, b_c, keep=keep, bias=bias)
            torch.testing.assert_close(tr.output, ref)
            assert len(tr.tiles) == math.ceil(n_q / b_r) * math.ceil(n_k / b_c)
            torch.testing.assert_close(tr.m, scores.amax(dim=-1))  # the running max ends at the row max
            torch.testing.assert_close(tr.logsumexp, torch.logsumexp(scores, dim=-1))
            assert tr.max_abs_diff <= (1e-5 if dt == torch.float32 else 1e-12)


# ---- KV-cache decoding ----------------------------------------------------------------------------------------


@st.composite
def decode_case(draw: st.DrawFn) -> dict:
    kv_heads = draw(st.integers(1, 3))
    n = draw(st.integers(1, 7))
    return {
        "kv_heads": kv_heads,
        "heads": kv_heads * draw(st.integers(1, 3)),
        "n": n,
        "e": 2 * draw(st.integers(1, 3)),
        "rope": draw(st.booleans()),
        "base": draw(st.sampled_from([10000.0, 100.0])),
        "alibi": draw(st.booleans()),
        "window": draw(st.one_of(st.none(), st.integers(1, n + 1))),
        "padding": draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n))),
        "seed": draw(st.integers(0, 2**31)),
    }


def _full_reference(c: dict, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """Full causal attention from the references alone: HF RoPE, official slopes, a loop mask, SDPA."""
    n, heads = c["n"], c["heads"]
    if c["rope"]:
        q, k = hf_rope(q.unsqueeze(0), k.unsqueeze(0), c["base"], torch.arange(n))
        q, k = q[0], k[0]
    keep = loop_window(n, n, c["window"], True) if c["window"] else torch.ones(n, n, dtype=torch.bool).tril()
    if c["padding"] is not None:
        keep &= ~torch.tensor(c["padding"]).unsqueeze(0)
    bias = None
    if c["alibi"]:
        i, j = torch.arange(n).unsqueeze(1), torch.arange(n).unsqueeze(0)
        bias = -torch.tensor(official_alibi_slopes(heads))[:, None, None] * (i - j).abs()
    mask = float_mask(keep, bias, (heads, n, n), q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)


@settings(max_examples=30, deadline=None)
@given(decode_case())
def test_kv_cache_decoding_equals_full_causal_attention(c: dict) -> None:
    g = torch.Generator().manual_seed(c["seed"])
    n, e = c["n"], c["e"]
    q = torch.randn(c["heads"], n, e, generator=g)
    k, v = torch.randn(c["kv_heads"], n, e, generator=g), torch.randn(c["kv_heads"], n, 3, generator=g)
    pad = c["padding"]
    keep = causal_keep(n, n) if pad is None else causal_keep(n, n) & padding_keep(n, pad)
    var = Variants(
        positions="rope" if c["rope"] else "none",
        rope_base=c["base"],
        alibi=c["alibi"],
        window=c["window"],
        decode=True,
    )
    p = prepare(q, k, v, keep, variants=var, causal=True, padding=None if pad is None else tuple(pad))
    att, dec = full(p), STRATEGIES["kv_cache"](p)
    torch.testing.assert_close(dec.output, _full_reference(c, q, k, v))
    torch.testing.assert_close(dec.output, att.output)
    torch.testing.assert_close(dec.weights, att.weights)
    q_full = p.rope.q_rot if p.rope is not None else q
    for t, step in enumerate(dec.steps):
        assert step.t == t
        assert step.cache_size == (t + 1 if c["window"] is None else min(t + 1, c["window"]))
        assert step.positions.tolist() == list(range(t + 1 - step.cache_size, t + 1))
        assert step.k_cache.shape == (c["kv_heads"], step.cache_size, e)
        torch.testing.assert_close(step.q, q_full[:, t])  # the step's rows are the full rows
        torch.testing.assert_close(step.scores, att.scores[:, t, step.positions])
        torch.testing.assert_close(step.weights, att.weights[:, t, step.positions])
        torch.testing.assert_close(step.output, att.output[:, t])
        if p.alibi is not None:  # a constant shift per row would not change the weights: check the bias itself
            torch.testing.assert_close(step.bias, p.alibi.bias[:, t, step.positions])


def test_decoding_plain_matches_sdpa_is_causal() -> None:
    g = torch.Generator().manual_seed(10)
    q, k, v = torch.randn(6, 5, 4, generator=g), torch.randn(2, 5, 4, generator=g), torch.randn(2, 5, 4, generator=g)
    dec = kv_cache_decode(q, k, v)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    torch.testing.assert_close(dec.output, ref)
    assert [s.cache_size for s in dec.steps] == [1, 2, 3, 4, 5]
    assert dec.kv_head == (0, 0, 0, 1, 1, 1)


# ---- the combined entry point ---------------------------------------------------------------------------------


def test_the_layer_from_x_is_seeded_privately_and_projects_like_llama() -> None:
    x = torch.randn(6, 8, generator=torch.Generator().manual_seed(11))
    sc = {"x": x.tolist(), "heads": 4, "kv_heads": 2, "head_mode": "split", "weights": {"init": "linear", "seed": 3},
          "positions": "sinusoidal", "mask": {"kind": "causal"}}  # fmt: skip
    before = torch.random.get_rng_state()
    a, b = ac.evaluate(ac.parse(sc)), ac.evaluate(ac.parse(sc))
    assert torch.equal(torch.random.get_rng_state(), before)  # the global RNG is never touched
    assert torch.equal(a.mixed, b.mixed)
    w = a.params
    assert w.W_q.shape == (1, 8, 8) and w.W_k.shape == (1, 4, 8)
    x_pos = torch.tensor(x.tolist()) + sinusoidal(6, 8)
    q_ref = (x_pos @ w.W_q[0].T).view(6, 4, 2).transpose(0, 1)  # Llama: q_proj(x).view(T, H, E).transpose
    k_ref = (x_pos @ w.W_k[0].T).view(6, 2, 2).transpose(0, 1)
    v_ref = (x_pos @ w.W_v[0].T).view(6, 2, 2).transpose(0, 1)
    torch.testing.assert_close(a.q, q_ref)
    ref = F.scaled_dot_product_attention(q_ref, k_ref, v_ref, is_causal=True, enable_gqa=True)
    torch.testing.assert_close(a.mixed, ref)
    torch.testing.assert_close(a.concat, ref.transpose(0, 1).reshape(6, 8))


def test_the_layer_with_everything_on_agrees_with_itself() -> None:
    x = torch.randn(7, 8, generator=torch.Generator().manual_seed(12))
    sc = {"x": x.tolist(), "heads": 4, "kv_heads": 1, "head_mode": "split", "positions": "rope", "alibi": True,
          "window": 3, "mask": {"kind": "causal+padding", "padding": [False] * 6 + [True]}, "block_rows": 3,
          "block_cols": 2, "decode": True}  # fmt: skip
    tr = ac.evaluate(ac.parse(sc))
    p = tr
    assert p is not None and p.tiled is not None and p.decoding is not None and p.rope is not None
    torch.testing.assert_close(p.tiled.output, tr.mixed)
    torch.testing.assert_close(p.decoding.output, tr.mixed)
    assert p.head_map == (0, 0, 0, 0)


# ---- bad values -----------------------------------------------------------------------------------------------

_T = torch.zeros(2, 5, 4)
_X = [[0.0] * 8] * 5
_K3 = torch.zeros(3, 5, 4)
BAD = {
    "kv_heads not dividing heads": ("kv_heads", lambda: kv_head_map(8, 3)),
    "kv_heads 0": ("kv_heads", lambda: kv_head_map(8, 0)),
    "3 kv heads for 8": ("kv_heads", lambda: share_kv(_K3, 8)),
    "layer kv_heads": ("kv_heads", lambda: ac.compute({"x": _X, "heads": 8, "kv_heads": 3, "head_mode": "split"})),
    "layer heads 0": ("heads", lambda: ac.compute({"x": _X, "heads": 0})),
    "odd head width": ("head_width", lambda: rope(torch.zeros(3, 5), torch.zeros(3, 5))),
    "odd head width via theta": ("head_width", lambda: rope_theta(7)),
    "layer odd head width": ("positions", lambda: ac.compute({"x": _X, "heads": 4, "d_out": 3, "positions": "rope"})),
    "rope base 0": ("rope_base", lambda: rope(_T, _T, base=0.0)),
    "window 0": ("window", lambda: window_keep(4, 4, 0)),
    "window -2": ("window", lambda: window_keep(4, 4, -2, causal=False)),
    "layer window 0": ("window", lambda: ac.compute({"x": _X, "window": 0, "mask": {"kind": "causal"}})),
    "decode window 0": ("window", lambda: kv_cache_decode(_T, _T, _T, window=0)),
    "block_rows 0": ("block_rows", lambda: tiled_attention(_T, _T, _T, 0, 2)),
    "block_rows too big": ("block_rows", lambda: tiled_attention(_T, _T, _T, 6, 2)),
    "block_cols 0": ("block_cols", lambda: tiled_attention(_T, _T, _T, 2, 0)),
    "block_cols too big": ("block_cols", lambda: tiled_attention(_T, torch.zeros(2, 3, 4), torch.zeros(2, 3, 4), 2, 4)),
    "layer block_cols too big": ("block_cols", lambda: ac.compute({"x": _X, "block_cols": 9})),
    "positions unknown": ("positions", lambda: ac.compute({"x": _X, "positions": "alibi"})),
    "decode without causal": ("decode", lambda: ac.compute({"x": _X, "decode": True})),
    "padding length": ("padding", lambda: kv_cache_decode(_T, _T, _T, padding=[True])),
    "alibi heads 0": ("heads", lambda: alibi_slopes(0)),
    "x and x_q": ("x", lambda: ac.compute({"x": _X, "x_q": _X, "x_k": _X})),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_values_raise_scenario_error_naming_the_field(case: str) -> None:
    field, call = BAD[case]
    with pytest.raises(ScenarioError) as err:
        call()
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: ")


def test_error_message_names_both_counts() -> None:
    with pytest.raises(ScenarioError, match=r"^kv_heads: kv_heads=3 does not divide heads=8$"):
        kv_head_map(8, 3)
