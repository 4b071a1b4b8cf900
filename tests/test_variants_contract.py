"""The modern keys of the JSON contract (RoPE, sinusoidal, ALiBi, kv heads, window, tiles, decoding) against
independent references: torch's SDPA with enable_gqa and the weights copied, transformers' Llama RoPE on the same
q and k, the paper's ALiBi slopes, the full causal computation for the decoded rows, the full softmax for the tiles."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from test_variants import float_mask, hf_rope, loop_window, official_alibi_slopes
from torch import Tensor

import attention_core as ac
from attention_core.contract.scenario import KNOWN_KEYS
from attention_core.contract.variants import VARIANT_KEYS as MODERN

X = [[1.16, 0.23, -0.5, 0.8], [0.57, 1.36, 0.3, -1.1], [4.41, -2.16, 0.9, 0.2], [-0.7, 0.4, 1.5, 0.6],
     [0.1, -0.9, -1.3, 2.0]]  # fmt: skip
T, D = len(X), len(X[0])


def t(value: Any) -> Tensor:
    """A result list as float64 (``"-inf"`` strings included)."""

    def num(v: Any) -> Any:
        return [num(u) for u in v] if isinstance(v, list) else float(v)

    return torch.tensor(num(value), dtype=torch.float64)


def explicit(heads: int, kv_heads: int, d: int, seed: int = 7) -> dict[str, list]:
    """nn.Linear-layout weights (d, D) per head: H for W_q, G for W_k and W_v, from a private generator."""
    g = torch.Generator().manual_seed(seed)

    def mats(n: int) -> list:
        return [torch.randn(d, D, generator=g, dtype=torch.float64).tolist() for _ in range(n)]

    return {"W_q": mats(heads), "W_k": mats(kv_heads), "W_v": mats(kv_heads)}


def base(**extra: Any) -> dict[str, Any]:
    """Four query heads over two kv heads, explicit float64 weights, 5 tokens of width 4."""
    return {"x": X, "heads": 4, "kv_heads": 2, "d_out": 2, "dtype": "float64", "weights": explicit(4, 2, 2), **extra}


def projected(sc: dict[str, Any]) -> tuple[Tensor, Tensor, Tensor]:
    """q (1, H, T, d), k, v (1, G, T, d) projected here from the scenario's own explicit weights."""
    x = torch.tensor(sc["x"], dtype=torch.float64)
    w = {n: torch.tensor(sc["weights"][n], dtype=torch.float64) for n in ("W_q", "W_k", "W_v")}
    q, k, v = (torch.stack([x @ m.T for m in w[n]]).unsqueeze(0) for n in ("W_q", "W_k", "W_v"))
    return q, k, v


HF32 = {"atol": 1e-6, "rtol": 1e-6}  # transformers computes RoPE's cos and sin in float32, whatever q's dtype


def heads_of(r: dict[str, Any], key: str) -> Tensor:
    """(1, H, L, ·) one per-head table of the result, stacked."""
    return torch.stack([t(h[key]) for h in r["heads"]]).unsqueeze(0)


# ---- the keys that are on, echoed -------------------------------------------------------------------------------


def test_the_result_names_the_variant_keys_that_are_on_and_keeps_their_old_name() -> None:
    sc = {"x": X, "heads": 4, "kv_heads": 2, "d_out": 2, "positions": "rope", "window": 2, "alibi": False}
    r = ac.compute(sc)
    assert r["variants"] == {"positions": "rope", "kv_heads": 2, "window": 2}  # alibi off: not echoed
    assert r["modern"] == r["variants"]  # the old name, kept for clients that read it
    plain = ac.compute({"x": X, "heads": 4, "d_out": 2})
    assert "variants" not in plain and "modern" not in plain


# ---- grouped-query attention ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("heads", "kv_heads"), [(4, 2), (4, 1), (8, 2), (6, 3)])
@pytest.mark.parametrize("mask", ["none", "causal"])
def test_grouped_query_matches_sdpa_enable_gqa(heads: int, kv_heads: int, mask: str) -> None:
    sc = {"x": X, "heads": heads, "kv_heads": kv_heads, "d_out": 2, "dtype": "float64",
          "weights": explicit(heads, kv_heads, 2), "mask": {"kind": mask}}  # fmt: skip
    r = ac.compute(sc)
    q, k, v = projected(sc)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=mask == "causal", enable_gqa=True)  # (1, H, T, d)
    torch.testing.assert_close(heads_of(r, "output"), ref)
    torch.testing.assert_close(t(r["concat"]), ref[0].transpose(0, 1).reshape(T, -1))
    group = heads // kv_heads
    assert r["kv_heads"] == kv_heads and r["head_map"] == [h // group for h in range(heads)]
    for h in range(heads):  # every head of a group shows its group's one K and V
        torch.testing.assert_close(t(r["heads"][h]["k"]), k[0, h // group])
        torch.testing.assert_close(t(r["heads"][h]["v"]), v[0, h // group])
        torch.testing.assert_close(t(r["kv"][h // group]["k"]), k[0, h // group])
    assert len(r["weights_used"]["W_k"]) == kv_heads and len(r["weights_used"]["W_q"]) == heads


def test_grouped_query_in_split_mode_matches_sdpa() -> None:
    g = torch.Generator().manual_seed(3)
    w_q, w_k, w_v = (torch.randn(n, D, generator=g, dtype=torch.float64) for n in (D, 2, 2))  # G·D/H = 1·2
    sc = {"x": X, "heads": 2, "kv_heads": 1, "head_mode": "split", "dtype": "float64",
          "weights": {"W_q": [w_q.tolist()], "W_k": [w_k.tolist()], "W_v": [w_v.tolist()]}}  # fmt: skip
    r = ac.compute(sc)
    x = torch.tensor(X, dtype=torch.float64)
    q = (x @ w_q.T).reshape(T, 2, 2).transpose(0, 1).unsqueeze(0)  # (1, H, T, D/H)
    k, v = (x @ w_k.T).unsqueeze(0).unsqueeze(0), (x @ w_v.T).unsqueeze(0).unsqueeze(0)  # (1, 1, T, D/H)
    torch.testing.assert_close(heads_of(r, "output"), F.scaled_dot_product_attention(q, k, v, enable_gqa=True))


def test_seeded_grouped_query_weights_draw_k_and_v_once_per_group() -> None:
    """Seed 42's nn.Linear draw in the order W_q, W_k, W_v of head 1, W_q of head 2, W_q, W_k, W_v of head 3, ..."""
    r = ac.compute({"x": X, "heads": 4, "kv_heads": 2, "d_out": 2, "weights": {"init": "linear", "seed": 42}})
    g = torch.Generator().manual_seed(42)
    bound = 1 / math.sqrt(D)  # nn.Linear's kaiming_uniform_(a=√5) bound
    want: dict[str, list] = {"W_q": [], "W_k": [], "W_v": []}
    for h in range(4):
        for n in ("W_q", "W_k", "W_v") if h % 2 == 0 else ("W_q",):
            want[n].append(torch.empty(2, D).uniform_(-bound, bound, generator=g))
    for n, mats in want.items():
        torch.testing.assert_close(t(r["weights_used"][n]), torch.stack(mats).double())


def test_kv_heads_equal_to_heads_is_the_plain_result() -> None:
    plain = {"x": X, "heads": 2, "d_out": 2, "weights": {"init": "linear", "seed": 42}, "mask": {"kind": "causal"}}
    assert ac.compute({**plain, "kv_heads": 2}) == ac.compute(plain)
    assert ac.compute({**plain, "positions": "none", "alibi": False, "decode": False}) == ac.compute(plain)


# ---- positions --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rope_base", [10000, 500.0])
def test_rope_matches_transformers_llama(rope_base: float) -> None:
    sc = base(positions="rope", rope_base=rope_base, mask={"kind": "causal"})
    r = ac.compute(sc)
    q, k, v = projected(sc)
    q_ref, k_ref = hf_rope(q, k, float(rope_base), torch.arange(T))
    torch.testing.assert_close(t(r["rope"]["q_before"]), q[0])
    torch.testing.assert_close(t(r["rope"]["q_after"]), q_ref[0], **HF32)
    torch.testing.assert_close(t(r["rope"]["k_after"]), k_ref[0], **HF32)
    torch.testing.assert_close(heads_of(r, "q"), q_ref, **HF32)  # the per-head q is the rotated one
    ref = F.scaled_dot_product_attention(q_ref, k_ref, v, is_causal=True, enable_gqa=True)
    torch.testing.assert_close(heads_of(r, "output"), ref, **HF32)
    theta = [rope_base ** (-2 * i / 2) for i in range(1)]  # E = 2: one pair
    torch.testing.assert_close(t(r["rope"]["theta"]), torch.tensor(theta, dtype=torch.float64))
    torch.testing.assert_close(t(r["rope"]["angles_q"]), torch.arange(T, dtype=torch.float64).unsqueeze(1) * theta[0])


def test_sinusoidal_is_added_to_x_before_the_projections() -> None:
    r = ac.compute(base(positions="sinusoidal"))
    pe = torch.zeros(T, D, dtype=torch.float64)
    for pos in range(T):
        for i in range(0, D, 2):  # the paper's PE[pos, 2i] = sin(pos / 10000^(2i/D)), PE[pos, 2i+1] = cos(...)
            pe[pos, i] = math.sin(pos / 10000 ** (i / D))
            pe[pos, i + 1] = math.cos(pos / 10000 ** (i / D))
    torch.testing.assert_close(t(r["sinusoidal"]["pe_q"]), pe)
    plain = ac.compute({**base(), "x": (torch.tensor(X, dtype=torch.float64) + pe).tolist()})  # PE added by hand
    torch.testing.assert_close(t(r["output"]), t(plain["output"]))


# ---- ALiBi and the window ---------------------------------------------------------------------------------------


def test_alibi_matches_sdpa_with_the_papers_bias() -> None:
    sc = base(alibi=True, mask={"kind": "causal"})
    r = ac.compute(sc)
    slopes = torch.tensor(official_alibi_slopes(4), dtype=torch.float64)
    i, j = torch.arange(T).unsqueeze(1), torch.arange(T).unsqueeze(0)
    bias = -slopes[:, None, None] * (i - j).abs()  # (H, T, T)
    torch.testing.assert_close(t(r["alibi"]["slopes"]), slopes)
    torch.testing.assert_close(t(r["alibi"]["bias"]), bias)
    q, k, v = projected(sc)
    keep = torch.ones(T, T, dtype=torch.bool).tril()
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask(keep, bias, (4, T, T), q.dtype), enable_gqa=True)
    torch.testing.assert_close(heads_of(r, "output"), ref)
    torch.testing.assert_close(heads_of(r, "biased")[0], heads_of(r, "scaled")[0] + bias)


@pytest.mark.parametrize(("window", "mask"), [(2, "causal"), (1, "causal"), (2, "none"), (3, "causal+padding")])
def test_window_matches_sdpa_with_the_mask(window: int, mask: str) -> None:
    pad = [False, False, False, True, False]
    sc = base(window=window, mask={"kind": mask, "padding": pad} if "padding" in mask else {"kind": mask})
    r = ac.compute(sc)
    keep = loop_window(T, T, window, causal=mask != "none")
    if mask != "none":
        keep &= torch.ones(T, T, dtype=torch.bool).tril()
    if "padding" in mask:
        keep &= ~torch.tensor(pad).unsqueeze(0)
    assert r["keep"] == keep.int().tolist()
    assert r["window"]["keep"] == loop_window(T, T, window, causal=mask != "none").int().tolist()
    q, k, v = projected(sc)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    torch.testing.assert_close(heads_of(r, "output"), ref)
    for h in r["heads"]:  # a key the window hides gets weight 0
        assert t(h["weights"])[~keep].abs().max() == 0


# ---- tiles and decoding -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("b_r", "b_c"), [(2, 2), (5, 1), (1, 5), (3, None)])
def test_tiles_reach_the_full_softmax(b_r: int, b_c: int | None) -> None:
    extra = {"block_rows": b_r} | ({} if b_c is None else {"block_cols": b_c})
    r = ac.compute(base(mask={"kind": "causal"}, alibi=True, **extra))
    tiles = r["tiles"]
    torch.testing.assert_close(t(tiles["output"]), heads_of(r, "output")[0])
    masked = heads_of(r, "masked")[0]  # (H, T, T): scaled + bias, -inf where hidden
    m = masked.amax(dim=-1)
    torch.testing.assert_close(t(tiles["m"]), m)
    torch.testing.assert_close(t(tiles["l"]), torch.exp(masked - m.unsqueeze(-1)).sum(dim=-1))
    b_c = T if b_c is None else b_c
    assert len(tiles["heads"][0]) == math.ceil(T / b_r) * math.ceil(T / b_c)
    last = tiles["heads"][1][-1]  # the last tile of head 2: its running m is the full row max of its rows
    r0, r1 = last["rows"]
    torch.testing.assert_close(t(last["m"]), m[1, r0:r1])


def test_decoding_rows_equal_the_full_causal_rows() -> None:
    sc = base(positions="rope", window=3, alibi=True, mask={"kind": "causal"}, decode=True)
    r = ac.compute(sc)
    dec = r["decode"]
    full_out, full_w = heads_of(r, "output")[0], heads_of(r, "weights")[0]
    torch.testing.assert_close(t(dec["output"]), full_out)
    torch.testing.assert_close(t(dec["weights"]), full_w)
    assert [s["positions"] for s in dec["steps"]] == [[0], [0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert [s["evicted"] for s in dec["steps"]] == [[], [], [], [0], [1]]
    for s in dec["steps"]:
        torch.testing.assert_close(t(s["output"]), full_out[:, s["t"]])
        torch.testing.assert_close(t(s["k_new"]), t(r["rope"]["k_after"])[:, s["t"]])  # the cache keeps rotated keys
    assert dec["max_abs_diff"] <= 1e-12


# ---- bad input names the field, nothing else computed -----------------------------------------------------------


BAD = [
    ({"kv_heads": 3}, "kv_heads: kv_heads=3 does not divide heads=4"),
    ({"kv_heads": 0}, "kv_heads: 0 is out of range 1..4"),
    ({"kv_heads": "two"}, "kv_heads: 'two' is not a whole number"),
    ({"positions": "rope", "d_out": 3, "weights": {"init": "linear", "seed": 1}}, "positions: RoPE turns pairs"),
    ({"positions": "alibi"}, "positions: 'alibi' is not one of none, sinusoidal, rope"),
    ({"rope_base": -1, "positions": "rope"}, "rope_base: -1 must be above 0"),
    ({"window": 0}, "window: 0 is out of range 1..64"),
    ({"block_rows": 6}, "block_rows: 6 is out of range 1..5"),
    ({"block_cols": 0}, "block_cols: 0 is out of range 1..64"),
    ({"decode": True}, "decode: KV-cache decoding is causal"),
    ({"decode": True, "mask": {"kind": "causal"}, "normalize": "sum"}, "normalize: decode runs softmax"),
    ({"decode": True, "mask": {"kind": "causal", "fill": "-1e9"}}, "mask.fill: decode hides keys with -inf"),
    ({"alibi": "maybe"}, "alibi: 'maybe' is not true/false"),
    ({"weights": explicit(4, 4, 2)}, "weights.W_k: must be a list of 2 matrices, one per kv head"),
]


@pytest.mark.parametrize(("extra", "message"), BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_bad_modern_values_name_the_field(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ac.ScenarioError) as err:
        ac.compute({**base(), **extra})
    assert str(err.value).startswith(message)


def test_block_size_range_is_bounded_by_eight_blocks() -> None:
    x = [[float(i), 1.0] for i in range(20)]
    with pytest.raises(ac.ScenarioError, match=r"block_rows: 2 is out of range 3\.\.20"):
        ac.compute({"x": x, "block_rows": 2})
    assert len(ac.compute({"x": x, "block_rows": 3})["tiles"]["heads"][0]) == 7


def test_decode_needs_self_attention() -> None:
    with pytest.raises(ac.ScenarioError, match=r"^decode: KV-cache decoding is self-attention"):
        ac.compute({"x_q": X, "x_k": X, "decode": True, "mask": {"kind": "causal"}})


# ---- today's presets against references that share no code with the core -------------------------------------


def preset_reference(preset: str) -> Tensor:
    """(H, T, E) every head's output of a modern preset (split heads, RoPE, causal, optional window), from its own
    weights through transformers' Llama RoPE and SDPA with enable_gqa."""
    sc = ac.get_preset(preset).scenario
    s = ac.parse(sc)
    x = s.x_q.double()
    n, heads = x.shape[0], s.heads
    kv = sc.get("kv_heads", heads)

    def heads_of_proj(w: Tensor, count: int) -> Tensor:  # nn.Linear (out, in): (T, count·E) -> (1, count, T, E)
        return (x @ w[0].double().T).reshape(n, count, -1).transpose(0, 1).unsqueeze(0)

    q, k, v = heads_of_proj(s.weights.W_q, heads), heads_of_proj(s.weights.W_k, kv), heads_of_proj(s.weights.W_v, kv)
    q, k = hf_rope(q, k, 10000.0, torch.arange(n))
    keep = torch.ones(n, n, dtype=torch.bool).tril()
    if "window" in sc:
        keep &= loop_window(n, n, sc["window"], causal=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)[0]


@pytest.mark.parametrize("preset", ["llama-style", "mistral-style"])
def test_todays_presets_match_llama_rope_and_sdpa(preset: str) -> None:
    r = ac.compute(ac.get_preset(preset).scenario)
    torch.testing.assert_close(heads_of(r, "output")[0], preset_reference(preset), **HF32)
    assert not r["warnings"]


# ---- any value in any modern key: a result or a ScenarioError naming a field, never another exception -------------

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 70), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["none", "rope", "sinusoidal", "alibi", "", "2", "x", "1e400"]), st.lists(st.integers(0, 2)),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    values=st.fixed_dictionaries({}, optional={k: JUNK for k in KNOWN_KEYS if k in MODERN}),
    heads=st.sampled_from([1, 2, 4]),
    mode=st.sampled_from(["concat", "split"]),
    mask=st.sampled_from(["none", "causal", "causal+padding"]),
    cross=st.booleans(),
)
def test_any_modern_value_computes_or_names_its_field(
    values: dict[str, Any], heads: int, mode: str, mask: str, cross: bool
) -> None:
    sc: dict[str, Any] = {"heads": heads, "head_mode": mode, "d_out": 2, "mask": {"kind": mask}, **values}
    sc |= {"x_q": X[:3], "x_k": X} if cross else {"x": X}
    if "padding" in mask:
        sc["mask"]["padding"] = [False, True, False, False, False]
    try:
        r = ac.compute(sc)
    except ac.ScenarioError as e:
        assert e.field.split(" ")[0].split(".")[0] in {*MODERN, "heads", "d_out", "normalize", "mask", "kv_heads"}, e
        return
    json.dumps(r)  # every answer is JSON
    assert len(r["heads"]) == heads
