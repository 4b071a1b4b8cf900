"""003's tolerances, derived rather than chosen: printed precision plus the rounding of the printed embeddings.

003's presets take its printed ``nn.Embedding`` rows (4 decimals) as input, so every tensor computed from them
carries that rounding: each embedding cell may be off by up to 5e-5. For each printed value the allowed
deviation is half a unit in its printed last digit plus the first-order bound Σ_j |∂y/∂e_j| × 5e-5 (autograd
through plain torch ops written from 003's lines, float64). Weights drawn from the seed are exact: half a digit.

Two checks: every printed value is within its own element's bound (tighter than the tensor's atol for small
weights), and each tensor's stored atol (the badge's) covers the worst element and is at most 1.25× it.
"""

from __future__ import annotations

import pytest
import torch
from reference import seeded
from test_data_files import find_run, flat, tokens

import attention_core as ac
from attention_core.notebooks.presets import lookup

EMBEDDING_HALF_DIGIT = 5e-5  # 003 In [4] prints the embeddings with 4 decimals


def steps(sc: dict, x: torch.Tensor) -> dict[str, torch.Tensor]:
    """003's lines on ``x`` (T, d_in), float64: query/key/value vectors, scores, scaled, weights, context."""
    w = sc["weights"]
    d_in = x.shape[1]
    if w["init"] == "identity":
        wq = wk = wv = torch.eye(d_in, dtype=torch.float64)
    else:  # drawn as the preset draws them (float32), then used in float64 for the derivative
        m = seeded(w["init"], w["seed"], d_in, sc["d_out"], 1, False, torch.float32)
        wq, wk, wv = (m[n][0].double() for n in ("W_q", "W_k", "W_v"))
    q, k, v = x @ wq, x @ wk, x @ wv  # 003 In [24]: key_vectors = embeddings @ W_key
    scores = q @ k.T  # In [26]: attn_scores = query_vectors @ key_vectors.T
    scaled = scores / k.shape[-1] ** 0.5 if sc.get("scale") else scores  # In [27]
    if sc.get("normalize") == "sum":
        weights = scaled / scaled.sum(dim=-1, keepdim=True)  # In [9]: atscs0 / sum(atscs0)
    else:
        weights = torch.softmax(scaled, dim=-1)  # In [28]
    out = weights @ v  # In [30]: context_vector = attn_weights @ value_vectors
    return {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "weights": weights, "output": out}


def element_bounds(p: ac.Preset, pr: ac.Printed) -> torch.Tensor:
    """Per printed value: half its last printed digit + the first-order effect of the embeddings' rounding."""
    values = flat(pr.values)
    start = find_run(values, pr.source)
    assert start is not None
    half = []
    for t in tokens(pr.source)[start : start + len(values)]:
        mantissa, _, exp = t.partition("e")
        half.append(0.5 * 10.0 ** (int(exp or 0) - len(mantissa.partition(".")[2])))
    half_t = torch.tensor(half, dtype=torch.float64)
    if pr.path.startswith("weights_used"):
        return half_t  # drawn from the seed: no input rounding
    x = torch.tensor(p.scenario["x"], dtype=torch.float64, requires_grad=True)
    parts = steps(p.scenario, x)
    path = pr.path.split("/")
    y = parts["output" if path[0] == "output" else path[2]]
    if len(path) > 3:
        y = y[int(path[3]), int(path[4])].reshape(1, 1)
    if pr.rows is not None:
        y = y[pr.rows[0] : pr.rows[1]]
    prop = [float(torch.autograd.grad(yi, x, retain_graph=True)[0].abs().sum()) for yi in y.flatten()]
    return half_t + EMBEDDING_HALF_DIGIT * torch.tensor(prop, dtype=torch.float64)


CASES = [(p, pr) for p in ac.all_presets() if p.source.startswith("003") for pr in p.printed]


@pytest.mark.parametrize(("preset", "printed"), CASES, ids=[f"{p.id}:{pr.label[:40]}" for p, pr in CASES])
def test_003_values_are_within_their_own_bound_and_the_atol_is_derived(preset: ac.Preset, printed: ac.Printed) -> None:
    bound = element_bounds(preset, printed)
    ours = torch.tensor(flat(lookup(ac.compute(preset.scenario), printed)), dtype=torch.float64)
    dev = (ours - torch.tensor(flat(printed.values), dtype=torch.float64)).abs()
    assert torch.all(dev <= bound), f"{printed.label}: deviations {dev[dev > bound]} over {bound[dev > bound]}"
    worst = float(bound.max())
    assert worst <= printed.atol <= 1.25 * worst, f"{printed.label}: atol {printed.atol:g}, derived {worst:.3g}"
