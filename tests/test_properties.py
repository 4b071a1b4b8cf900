"""Property tests (hypothesis) on the traced attention."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac

dims = st.integers(1, 6)
seeds = st.integers(0, 2**31 - 1)
fills = st.sampled_from(["-inf", "-1e9", "additive"])


def _inputs(seed: int, n_q: int, n_k: int, d: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n_q, d, generator=g), torch.randn(n_k, d, generator=g), torch.randn(n_k, d, generator=g)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n_q=dims, n_k=dims, d=dims, fill=fills, density=st.floats(0.0, 1.0))
def test_rows_sum_to_one_and_masked_weights_are_zero(
    seed: int, n_q: int, n_k: int, d: int, fill: str, density: float
) -> None:
    q, k, v = _inputs(seed, n_q, n_k, d)
    keep = torch.rand(n_q, n_k, generator=torch.Generator().manual_seed(seed + 1)) < density
    tr = ac.attend(q, k, v, keep=keep, fill=fill)
    visible_rows = keep.any(dim=-1)
    sums = tr.weights.sum(dim=-1)
    torch.testing.assert_close(sums[visible_rows], torch.ones(int(visible_rows.sum())))
    assert torch.all(tr.weights[~keep & visible_rows.unsqueeze(-1)] == 0)
    assert not torch.isnan(tr.weights).any() and not torch.isnan(tr.output).any()
    assert tr.fully_masked_rows == tuple(int(i) for i in torch.nonzero(~visible_rows).flatten())
    assert bool(tr.warnings) == bool(tr.fully_masked_rows)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(2, 7), d=dims, i=st.integers(0, 5), heads=st.integers(1, 3))
def test_causal_output_row_ignores_later_tokens(seed: int, n: int, d: int, i: int, heads: int) -> None:
    i = i % (n - 1)
    x, _, _ = _inputs(seed, n, 1, d)
    w = ac.init_weights("linear", seed, d, d, heads, "concat", "linear")
    keep = ac.causal_keep(n, n)
    before = ac.multi_head(x, x, x, w, heads, keep=keep).output
    edited = x.clone()
    edited[i + 1 :] += torch.randn(n - i - 1, d, generator=torch.Generator().manual_seed(seed))
    after = ac.multi_head(edited, edited, edited, w, heads, keep=keep).output
    torch.testing.assert_close(after[: i + 1], before[: i + 1])


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n_q=dims, n_k=dims, d=dims, layout=st.sampled_from(["linear", "matmul"]))
def test_concat_one_head_equals_plain_attention(seed: int, n_q: int, n_k: int, d: int, layout: str) -> None:
    x_q, x_k, x_v = _inputs(seed, n_q, n_k, d)
    w = ac.init_weights("rand", seed, d, d, 1, "concat", layout)
    tr = ac.multi_head(x_q, x_k, x_v, w, 1, "concat")
    wq, wk, wv = (m[0] if layout == "matmul" else m[0].T for m in (w.W_q, w.W_k, w.W_v))
    plain = ac.attend(x_q @ wq, x_k @ wk, x_v @ wv)
    torch.testing.assert_close(tr.output, plain.output)
    torch.testing.assert_close(tr.weights[0], plain.weights)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**40), recipe=st.sampled_from(["linear", "rand", "randn"]), heads=st.integers(1, 3))
def test_seeded_init_never_touches_global_rng(seed: int, recipe: str, heads: int) -> None:
    before = torch.random.get_rng_state()
    ac.compute({"x": [[1.0, 2.0], [3.0, 4.0]], "heads": heads, "weights": {"init": recipe, "seed": seed, "w_o": True}})
    assert torch.equal(before, torch.random.get_rng_state())


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=dims, fill=fills)
def test_fully_masked_row_is_defined_and_explained(seed: int, n: int, fill: str) -> None:
    q, k, v = _inputs(seed, n, n, 3)
    keep = torch.ones(n, n, dtype=torch.bool)
    keep[0] = False
    tr = ac.attend(q, k, v, keep=keep, fill=fill)
    assert tr.fully_masked_rows == (0,)
    assert "NaN" in tr.warnings[0] and "uniform" in tr.warnings[0]
    if fill == "-1e9":
        torch.testing.assert_close(tr.weights[0], torch.full((n,), 1 / n))
    else:
        assert torch.isnan(tr.weights_raw[0]).all()
        assert torch.all(tr.weights[0] == 0) and torch.all(tr.output[0] == 0)
