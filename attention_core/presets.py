"""Every example in the five seed notebooks (``../shared/seeds/``) as data.

A preset is a scenario for :func:`attention_core.compute` plus the tensors its notebook printed,
copied from the notebook text with the seed file and cell they came from. The comparison is always
against that printed text, never against our own output.

Where a notebook's RNG is not portable the preset carries the printed tensors as inputs:
003's ``nn.Embedding(7, 3)`` draw (torch's normal_ fill differs across platforms) and 004's numpy
``randn`` q/k/v. 001 prints nothing, so its preset fixes a seed and is checked against torch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import torch

from .tokenizer import SimpleTokenizer

SEED_000 = "000_eca17ddd97127a7c.txt"
SEED_001 = "001_cca86507d04768b2.txt"
SEED_002 = "002_79b7855929db9385.txt"
SEED_003 = "003_60bbf88e9db22b50.txt"
SEED_004 = "004_3d98ccb34784dbbc.txt"


@dataclass(frozen=True)
class Printed:
    """One tensor a notebook printed, and where it lives in ``compute``'s result.

    ``path`` is a slash path into the result (``heads/0/q``, ``weights_used/W_q/0``, ``output``);
    ``rows`` selects a row range of it (a notebook that printed one row, or truncated a big matrix);
    ``transpose`` marks prints of ``W.weight.transpose(0, 1)``.
    """

    label: str  # the notebook's own expression
    source: str  # seed file
    cell: str  # e.g. "In [28]"
    path: str
    values: list[Any]
    atol: float  # half of the last printed digit, or the input rounding downstream of it
    rows: tuple[int, int] | None = None
    transpose: bool = False


@dataclass(frozen=True)
class Preset:
    id: str
    title: str  # what a teacher recognises in the picker
    source: str
    cells: str
    conventions: str  # layout, mask fill and names, in the notebook's own terms
    note: str
    scenario: dict[str, Any]
    printed: tuple[Printed, ...] = ()
    names: dict[str, str] = field(default_factory=dict)  # step -> the notebook's variable name


# ---- shared inputs, copied from the notebook text ---------------------------------------------

STATQUEST_X = [[1.16, 0.23], [0.57, 1.36], [4.41, -2.16]]
STATQUEST_OUT = [[1.0100, 1.0641], [0.2040, 0.7057], [3.4989, 2.2427]]
STATQUEST_OUT2 = [
    [1.0100, 1.0641, -0.7081, -0.8268],
    [0.2040, 0.7057, -0.7417, -0.9193],
    [3.4989, 2.2427, -0.7190, -0.8447],
]
STATQUEST_MASKED_OUT = [[0.6038, 0.7434], [-0.0062, 0.6072], [3.4989, 2.2427]]
STATQUEST_WQ_T = [[0.5406, -0.1657], [0.5869, 0.6496]]
CAUSAL_3 = [[1, 0, 0], [1, 1, 0], [1, 1, 1]]

SENTENCE = "The dog attacks the wild cat"
EMBEDDINGS_003 = [  # 003 In [4]: printed nn.Embedding(7, 3) rows for ids [1,0,4,0,2,0,5,0,6,0,3]
    [1.2221, 1.0395, 0.9608],
    [-0.5300, -1.3035, 0.4438],
    [0.6370, 1.3158, -0.4287],
    [-0.5300, -1.3035, 0.4438],
    [0.4214, 0.7452, -1.8389],
    [-0.5300, -1.3035, 0.4438],
    [1.9435, -0.8080, -0.8735],
    [-0.5300, -1.3035, 0.4438],
    [0.9367, -0.3077, -1.4196],
    [-0.5300, -1.3035, 0.4438],
    [-1.2497, -0.2485, -1.0530],
]
SCORES_003 = [  # 003 In [7]/[8]: rows 1-8 of embeddings @ embeddings.T (the print is cut in row 9)
    [3.4975, -1.5764, 1.7344, -1.5764, -0.4773, -1.5764, 0.6959, -1.5764, -0.5391, -1.5764, -2.7973],
    [-1.5764, 2.1770, -2.2430, 2.1770, -2.0108, 2.1770, -0.3645, 2.1770, -0.7254, 2.1770, 0.5189],
    [1.7344, -2.2430, 2.3208, -2.2430, 2.0373, -2.2430, 0.5492, -2.2430, 0.8003, -2.2430, -0.6715],
    [-1.5764, 2.1770, -2.2430, 2.1770, -2.0108, 2.1770, -0.3645, 2.1770, -0.7254, 2.1770, 0.5189],
    [-0.4773, -2.0108, 2.0373, -2.0108, 4.1144, -2.0108, 1.8230, -2.0108, 2.7759, -2.0108, 1.2246],
    [-1.5764, 2.1770, -2.2430, 2.1770, -2.0108, 2.1770, -0.3645, 2.1770, -0.7254, 2.1770, 0.5189],
    [0.6959, -0.3645, 0.5492, -0.3645, 1.8230, -0.3645, 5.1931, -0.3645, 3.3092, -0.3645, -1.3082],
    [-1.5764, 2.1770, -2.2430, 2.1770, -2.0108, 2.1770, -0.3645, 2.1770, -0.7254, 2.1770, 0.5189],
]
WEIGHTS_003 = [  # 003 In [12]: rows 1-9 of attention_scores.softmax(dim=1) (the print is cut in row 10)
    [0.7682, 0.0048, 0.1318, 0.0048, 0.0144, 0.0048, 0.0466, 0.0048, 0.0136, 0.0048, 0.0014],
    [0.0044, 0.1861, 0.0022, 0.1861, 0.0028, 0.1861, 0.0147, 0.1861, 0.0102, 0.1861, 0.0354],
    [0.1987, 0.0037, 0.3571, 0.0037, 0.2689, 0.0037, 0.0607, 0.0037, 0.0781, 0.0037, 0.0179],
    [0.0044, 0.1861, 0.0022, 0.1861, 0.0028, 0.1861, 0.0147, 0.1861, 0.0102, 0.1861, 0.0354],
    [0.0065, 0.0014, 0.0800, 0.0014, 0.6389, 0.0014, 0.0646, 0.0014, 0.1675, 0.0014, 0.0355],
    [0.0044, 0.1861, 0.0022, 0.1861, 0.0028, 0.1861, 0.0147, 0.1861, 0.0102, 0.1861, 0.0354],
    [0.0091, 0.0031, 0.0078, 0.0031, 0.0280, 0.0031, 0.8144, 0.0031, 0.1238, 0.0031, 0.0012],
    [0.0044, 0.1861, 0.0022, 0.1861, 0.0028, 0.1861, 0.0147, 0.1861, 0.0102, 0.1861, 0.0354],
    [0.0083, 0.0069, 0.0318, 0.0069, 0.2294, 0.0069, 0.3910, 0.0069, 0.2835, 0.0069, 0.0213],
]
CONTEXT_003 = [  # 003 In [18]/[19]: attention_weights @ embeddings
    [1.1176, 0.9091, 0.6043],
    [-0.4914, -1.2268, 0.3463],
    [0.7425, 0.7750, -0.6312],
    [-0.4914, -1.2268, 0.3463],
    [0.5625, 0.4664, -1.5314],
    [-0.4914, -1.2268, 0.3463],
    [1.7167, -0.6763, -0.9275],
    [-0.4914, -1.2268, 0.3463],
    [1.1076, -0.2321, -1.1786],
    [-0.4914, -1.2268, 0.3463],
    [-0.6744, -0.4126, -0.7193],
]
Q_004 = [
    [0.03076571, -0.66596084, -0.57981773, 0.78204297, -2.20486326, 0.26485014],
    [-0.67861224, 0.49590148, 0.13423506, -0.4223308, 0.7713341, -1.18389824],
    [2.0906267, 0.27694552, -1.1727269, 1.66930336, -0.14534764, 0.74502536],
    [-1.13411916, 1.13097436, -1.65952086, -2.06938392, 2.02277881, 0.37287297],
]
K_004 = [
    [-1.22715745, 1.49918116, 0.89824522, -0.08052928, -2.21706475, -0.26191323],
    [0.71747107, 0.009494, -0.69504954, 0.02322563, -1.25806545, -0.11341351],
    [0.91258838, 1.11400796, 0.46615481, -0.170631, -0.17803358, -0.97992068],
    [1.05682361, 0.70185397, 0.62036256, -0.63105621, -0.80103572, -2.07085978],
]
V_004 = [
    [-0.48742851, 1.76485745, 0.36118831, 0.84109156, 1.64645719, 2.49370612],
    [-0.41495437, -0.82550919, -1.8979914, 1.13401928, -0.17321176, -0.39958629],
    [-0.86078293, 0.08485973, 0.13252766, 0.6324223, 0.25428529, -0.25960824],
    [-1.01291217, 0.73806086, 0.21143847, -0.17391314, -1.78605033, -0.59720633],
]
SCALED_004 = [
    [1.30599064, 1.29853211, -0.40193157, -0.0287394],
    [0.13503922, -0.58028584, 0.4452293, 0.74076119],
    [-1.31090471, 1.00217946, 0.27789664, -0.32805017],
    [-1.1508619, -0.93270475, -0.3760255, -1.02914406],
]
NEG = "-inf"

# The notebooks' own names for each step.
NAMES_000 = {"q": "q", "k": "k", "v": "v", "scores": "sims", "scaled": "scaled_sims",
             "masked": "scaled_sims", "weights": "attention_percents", "output": "attention_scores"}  # fmt: skip
NAMES_002 = {**NAMES_000, "scaled": "sims_scaled", "masked": "sims_scaled"}
NAMES_001 = {"q": "Q", "k": "K", "v": "V", "scores": "Q @ K.transpose(-2, -1)",
             "scaled": "attention_scores", "masked": "masked_attention_scores",
             "weights": "attention_weights", "output": "attention_output"}  # fmt: skip
NAMES_003 = {"q": "query_vectors", "k": "key_vectors", "v": "value_vectors", "scores": "attn_scores",
             "scaled": "scaled_attn_scores", "masked": "scaled_attn_scores",
             "weights": "attn_weights", "output": "context_vectors"}  # fmt: skip
NAMES_003S = {"q": "embeddings", "k": "embeddings", "v": "embeddings", "scores": "attention_scores",
              "scaled": "attention_scores", "masked": "attention_scores",
              "weights": "attention_weights", "output": "context_vectors"}  # fmt: skip
NAMES_004 = {"q": "q", "k": "k", "v": "v", "scores": "np.matmul(q, k.T)", "scaled": "scaled_dot_product",
             "masked": "scaled_dot_product + mask", "weights": "softmax(scaled_dot_product + mask)",
             "output": "attention"}  # fmt: skip

LINEAR_000 = "nn.Linear(bias=False): weight is out×in, applied as x @ W.T; printed as W.weight.transpose(0, 1)"


def _p(label: str, source: str, cell: str, path: str, values: list[Any], atol: float = 5e-5, **kw: Any) -> Printed:
    return Printed(label, source, cell, path, values, atol, **kw)


def _statquest(mask: dict | None = None, heads: int = 1, cross: bool = False) -> dict[str, Any]:
    sc: dict[str, Any] = {"tokens": ["t1", "t2", "t3"], "heads": heads, "head_mode": "concat",
                          "layout": "linear", "d_out": 2, "weights": {"init": "linear", "seed": 42},
                          "scale": True, "dtype": "float32"}  # fmt: skip
    if cross:
        sc.update(x_q=STATQUEST_X, x_k=STATQUEST_X, x_v=STATQUEST_X, tokens_k=["t1", "t2", "t3"])
    else:
        sc["x"] = STATQUEST_X
    if mask:
        sc["mask"] = mask
    return sc


def _llm(tokens: list[str], **kw: Any) -> dict[str, Any]:
    """003's scenarios: the printed embeddings as x, one head; ``kw`` sets weights, layout, scale, ..."""
    return {"x": EMBEDDINGS_003, "tokens": tokens, "heads": 1, "head_mode": "concat", "dtype": "float32", **kw}


def _numpy(mask: dict | None = None) -> dict[str, Any]:
    """004's scenarios: the printed q, k, v used directly (identity projections), float64."""
    sc: dict[str, Any] = {"x_q": Q_004, "x_k": K_004, "x_v": V_004, "tokens": ["q1", "q2", "q3", "q4"],
                          "tokens_k": ["k1", "k2", "k3", "k4"], "heads": 1, "head_mode": "concat",
                          "layout": "matmul", "weights": {"init": "identity"}, "scale": True,
                          "dtype": "float64"}  # fmt: skip
    if mask:
        sc["mask"] = mask
    return sc


def seed_001(seed: int) -> tuple[list[list[float]], list[list[list[float]]]]:
    """001's draws, in its order, from a private generator: input (1, 3, 4) then W_q, W_k, W_v (4, 4).

    Returns x (3, 4) (the batch of one dropped) and the three in×out matrices.
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 3, 4, generator=g)[0]
    ws = [torch.randn(4, 4, generator=g) for _ in range(3)]
    return x.tolist(), [w.tolist() for w in ws]


SEED_OF_001 = 2024


def _seed001_scenario(heads: int, mask: dict | None) -> dict[str, Any]:
    x, (wq, wk, wv) = seed_001(SEED_OF_001)
    sc: dict[str, Any] = {"x": x, "tokens": ["x1", "x2", "x3"], "heads": heads, "head_mode": "split",
                          "layout": "matmul", "weights": {"W_q": [wq], "W_k": [wk], "W_v": [wv], "W_o": None},
                          "scale": True, "dtype": "float32"}  # fmt: skip
    if mask:
        sc["mask"] = mask
    return sc


def _all() -> list[Preset]:
    tokens003 = SimpleTokenizer.tokenize(SENTENCE)
    tokens003 = ["␣" if t.isspace() else t for t in tokens003]
    presets = [
        Preset(
            "statquest-self",
            "StatQuest: self-attention, seed 42",
            SEED_000,
            "In [27]-[32]",
            LINEAR_000 + "; no mask.",
            "torch.manual_seed(42) then SelfAttention(d_model=2): nn.Linear layers W_q, W_k, W_v in that order.",
            _statquest(),
            (
                _p("selfAttention.forward(encoding_matrix)", SEED_000, "In [28]", "output", STATQUEST_OUT),
                _p(
                    "selfAttention.W_q.weight.transpose(0, 1)",
                    SEED_000,
                    "In [32]",
                    "weights_used/W_q/0",
                    STATQUEST_WQ_T,
                    transpose=True,
                ),
                _p(
                    "selfAttention.W_k.weight.transpose(0, 1)",
                    SEED_000,
                    "In [32]",
                    "weights_used/W_k/0",
                    [[-0.1549, -0.3443], [0.1427, 0.4153]],
                    transpose=True,
                ),
                _p(
                    "selfAttention.W_v.weight.transpose(0, 1)",
                    SEED_000,
                    "In [32]",
                    "weights_used/W_v/0",
                    [[0.6233, 0.6146], [-0.5188, 0.1323]],
                    transpose=True,
                ),
                _p(
                    "selfAttention.W_q(encoding_matrix)",
                    SEED_000,
                    "In [32]",
                    "heads/0/q",
                    [[0.7621, -0.0428], [1.1063, 0.7890], [1.1164, -2.1336]],
                ),
            ),
            NAMES_000,
        ),
        Preset(
            "statquest-masked",
            "StatQuest: masked self-attention, seed 42",
            SEED_000,
            "In [21]-[33]",
            LINEAR_000 + "; mask = torch.tril(torch.ones(3, 3)), scores.masked_fill(mask == 0, float('-inf')).",
            "The mask is applied after scaling, as in the notebook.",
            _statquest({"kind": "causal", "fill": "-inf"}),
            (
                _p("mask = torch.tril(torch.ones(3, 3), diagonal=0)", SEED_000, "In [21]", "keep", CAUSAL_3),
                _p(
                    "maskedSelfAttention.forward(encoding_matrix, mask=mask)",
                    SEED_000,
                    "In [None] (after In [21])",
                    "output",
                    STATQUEST_MASKED_OUT,
                ),
                _p(
                    "maskedSelfAttention.W_q.weight.transpose(0, 1)",
                    SEED_000,
                    "In [33]",
                    "weights_used/W_q/0",
                    STATQUEST_WQ_T,
                    transpose=True,
                ),
                _p(
                    "maskedSelfAttention.W_v(encoding_matrix)",
                    SEED_000,
                    "In [33]",
                    "heads/0/v",
                    [[0.6038, 0.7434], [-0.3502, 0.5303], [3.8695, 2.4246]],
                ),
            ),
            NAMES_000,
        ),
        Preset(
            "statquest-qkv",
            "StatQuest: Attention(encodings_for_q, _k, _v), seed 42",
            SEED_000,
            "In [2]-[None]",
            LINEAR_000 + "; three encoding matrices (here all equal), optional mask with -inf.",
            "The general class: queries, keys and values may come from different encodings.",
            _statquest(cross=True),
            (
                _p(
                    "attention.forward(encodings_for_q, encodings_for_k, encodings_for_v)",
                    SEED_000,
                    "In [None] (after In [2])",
                    "output",
                    STATQUEST_OUT,
                ),
            ),
            NAMES_000,
        ),
        Preset(
            "statquest-mha1",
            "StatQuest: multi-head attention, 1 head, seed 42",
            SEED_000,
            "In [5]-[None]",
            LINEAR_000 + "; nn.ModuleList of Attention heads, torch.cat(..., dim=col_dim), no W_o.",
            "One head equals plain attention.",
            _statquest(cross=True, heads=1),
            (_p("multiHeadAttention.forward(...)", SEED_000, "In [None] (after In [5])", "output", STATQUEST_OUT),),
            NAMES_000,
        ),
        Preset(
            "statquest-mha2",
            "StatQuest: multi-head attention, 2 heads, seed 42",
            SEED_000,
            "In [None]",
            LINEAR_000 + "; heads created in order (W_q, W_k, W_v of head 1, then head 2) and concatenated.",
            "Head 1 reproduces single-head attention; head 2 adds two columns.",
            _statquest(cross=True, heads=2),
            (_p("multi_head_attention.forward(...)", SEED_000, "In [None] (last cell)", "output", STATQUEST_OUT2),),
            NAMES_000,
        ),
        Preset(
            "encdec-cross",
            "Encoder-decoder (cross) attention, seed 42",
            SEED_002,
            "In [2]-[3]",
            LINEAR_000 + "; masked with a boolean block mask filled with -1e9 (True = blocked).",
            "Queries from the decoder side, keys and values from the encoder side (here the same matrix).",
            {**_statquest(cross=True), "mask": {"kind": "none", "fill": "-1e9"}},
            (
                _p(
                    "attention(encodings_for_q, encodings_for_k, encodings_for_v)",
                    SEED_002,
                    "In [3]",
                    "output",
                    STATQUEST_OUT,
                ),
            ),
            NAMES_002,
        ),
        Preset(
            "encdec-masked",
            "Encoder-decoder attention with a -1e9 causal mask, seed 42",
            SEED_002,
            "In [2]",
            LINEAR_000 + "; sims_scaled.masked_fill(mask, -1e9) with mask True = blocked.",
            "002 writes masked_fill(mask, values=-1.e9), which raises TypeError in every torch, and never runs "
            "it. This preset does what the line means: fill the blocked (True) entries with -1e9. 002 printed "
            "no masked output, so the reference is 000's printed masked output (same weights, -inf fill).",
            {**_statquest(cross=True), "mask": {"kind": "causal", "fill": "-1e9"}},
            (
                _p(
                    "maskedSelfAttention.forward(encoding_matrix, mask=mask)  [printed by 000; 002 never ran its mask]",
                    SEED_000,
                    "In [None] (after In [21])",
                    "output",
                    STATQUEST_MASKED_OUT,
                ),
            ),
            NAMES_002,
        ),
        Preset(
            "encdec-mha1",
            "Encoder-decoder multi-head attention, 1 head, seed 42",
            SEED_002,
            "In [4]-[5]",
            LINEAR_000 + ".",
            "One head equals plain attention.",
            {**_statquest(cross=True, heads=1), "mask": {"kind": "none", "fill": "-1e9"}},
            (_p("multiHeadAttention(...)", SEED_002, "In [5]", "output", STATQUEST_OUT),),
            NAMES_002,
        ),
        Preset(
            "encdec-mha2",
            "Encoder-decoder multi-head attention, 2 heads, seed 42",
            SEED_002,
            "In [6]",
            LINEAR_000 + ".",
            "Heads concatenated along the columns.",
            {**_statquest(cross=True, heads=2), "mask": {"kind": "none", "fill": "-1e9"}},
            (_p("multiHeadAttention(...)", SEED_002, "In [6]", "output", STATQUEST_OUT2),),
            NAMES_002,
        ),
        Preset(
            "qkv-split",
            "QKV tutorial: 2 heads split by view/transpose",
            SEED_001,
            "sections 1-4",
            "Bare tensors W = torch.randn(4, 4): in×out, applied as x @ W (matmul layout); d_model split into "
            "heads of d_model // num_heads; no W_o.",
            f"001 prints nothing, so this preset draws 001's randn(1, 3, 4) input and three randn(4, 4) weights "
            f"in 001's order from a private generator seeded {SEED_OF_001}; the batch of one is dropped.",
            _seed001_scenario(2, None),
            (),
            NAMES_001,
        ),
        Preset(
            "qkv-single",
            "QKV tutorial: single-head scaled dot-product",
            SEED_001,
            "sections 1-2",
            "matmul layout (x @ W), scaled by sqrt(d_k) with d_k = 4.",
            f"Same draws as 'qkv-split' (seed {SEED_OF_001}), one head.",
            _seed001_scenario(1, None),
            (),
            NAMES_001,
        ),
        Preset(
            "qkv-masked",
            "QKV tutorial: look-ahead mask",
            SEED_001,
            "section 5",
            "attention_scores.masked_fill(mask == 0, float('-inf')) with mask = [[1,0,0],[1,1,0],[1,1,1]].",
            f"Same draws as 'qkv-split' (seed {SEED_OF_001}), one head, causal mask.",
            _seed001_scenario(1, {"kind": "causal", "fill": "-inf"}),
            (),
            NAMES_001,
        ),
        Preset(
            "llm-simplified",
            "LLMs from scratch: simplified self-attention (softmax)",
            SEED_003,
            "In [4]-[19]",
            "No weights: scores = embeddings @ embeddings.T, unscaled, softmax over each row.",
            "The embeddings are 003's printed nn.Embedding(7, 3) rows (seed 69): the draw itself is not "
            "portable (torch's normal_ fill differs across platforms), so the printed values are the input.",
            _llm(tokens003, layout="matmul", weights={"init": "identity"}, scale=False),
            (
                _p(
                    "attention_scores = embeddings @ embeddings.T",
                    SEED_003,
                    "In [8]",
                    "heads/0/scores",
                    SCORES_003,
                    atol=5e-4,
                    rows=(0, 8),
                ),
                _p(
                    "attention_scores.softmax(dim=1)",
                    SEED_003,
                    "In [12]",
                    "heads/0/weights",
                    WEIGHTS_003,
                    atol=5e-4,
                    rows=(0, 9),
                ),
                _p("attention_weights @ embeddings", SEED_003, "In [19]", "output", CONTEXT_003, atol=5e-4),
            ),
            NAMES_003S,
        ),
        Preset(
            "llm-simplified-sum",
            "LLMs from scratch: simplified self-attention (divide by sum)",
            SEED_003,
            "In [9]",
            "No weights: each row of scores divided by its own sum (weights can be negative).",
            "The naive normalisation 003 shows before softmax; the weights sum to 1 but are not probabilities.",
            _llm(tokens003, layout="matmul", weights={"init": "identity"}, scale=False, normalize="sum"),
            (
                _p(
                    "atwts0 = atscs0 / sum(atscs0)",
                    SEED_003,
                    "In [9]",
                    "heads/0/weights",
                    [[-0.6064, 0.2733, -0.3007, 0.2733, 0.0828, 0.2733, -0.1207, 0.2733, 0.0935, 0.2733, 0.4850]],
                    atol=5e-4,
                    rows=(0, 1),
                ),
            ),
            NAMES_003S,
        ),
        Preset(
            "llm-parameter",
            "LLMs from scratch: trainable self-attention (Parameter, rand, seed 69)",
            SEED_003,
            "In [21]-[32]",
            "torch.nn.Parameter(torch.rand(d_in, d_out)): in×out, applied as x @ W_query (matmul layout); "
            "d_in=3 → d_out=2; scaled by key_vectors.shape[-1] ** 0.5.",
            "Weights reproduce from torch.manual_seed(69); the embeddings are the printed ones.",
            _llm(tokens003, layout="matmul", d_out=2, weights={"init": "rand", "seed": 69}, scale=True),
            (
                _p(
                    "W_query",
                    SEED_003,
                    "In [22]",
                    "weights_used/W_q/0",
                    [[0.8398, 0.8042], [0.1213, 0.5309], [0.6646, 0.4077]],
                ),
                _p(
                    "W_key",
                    SEED_003,
                    "In [22]",
                    "weights_used/W_k/0",
                    [[0.0888, 0.2429], [0.7053, 0.6216], [0.9188, 0.0185]],
                ),
                _p(
                    "W_value",
                    SEED_003,
                    "In [22]",
                    "weights_used/W_v/0",
                    [[0.8741, 0.0560], [0.9659, 0.0073], [0.3628, 0.4197]],
                ),
                _p("query_1 = e1 @ W_query", SEED_003, "In [23]", "heads/0/q", [[-0.3083, -0.9373]], 5e-4, rows=(1, 2)),
                _p(
                    "key_vectors = embeddings @ W_key",
                    SEED_003,
                    "In [24]",
                    "heads/0/k",
                    [
                        [1.7245, 0.9609],
                        [-0.5587, -0.9308],
                        [0.5908, 0.9647],
                        [-0.5587, -0.9308],
                        [-1.1265, 0.5316],
                        [-0.5587, -0.9308],
                        [-1.2000, -0.0464],
                        [-0.5587, -0.9308],
                        [-1.4382, 0.0100],
                        [-0.5587, -0.9308],
                        [-1.2536, -0.4775],
                    ],
                    5e-4,
                ),
                _p(
                    "value_vectors = embeddings @ W_value",
                    SEED_003,
                    "In [24]",
                    "heads/0/v",
                    [
                        [2.4211, 0.4793],
                        [-1.5614, 0.1471],
                        [1.6722, -0.1347],
                        [-1.5614, 0.1471],
                        [0.4209, -0.7427],
                        [-1.5614, 0.1471],
                        [0.6014, -0.2637],
                        [-1.5614, 0.1471],
                        [0.0065, -0.5456],
                        [-1.5614, 0.1471],
                        [-1.7144, -0.5137],
                    ],
                    5e-4,
                ),
                _p(
                    "attn_score_1_1 = query_1.dot(keys_1)",
                    SEED_003,
                    "In [25]",
                    "heads/0/scores/1/1",
                    1.044725775718689,
                    5e-4,
                ),
                _p(
                    "attn_scores_1_all = query_1 @ key_vectors.T",
                    SEED_003,
                    "In [26]",
                    "heads/0/scores",
                    [[-1.4323, 1.0447, -1.0864, 1.0447, -0.1510, 1.0447, 0.4134, 1.0447, 0.4340, 1.0447, 0.8340]],
                    5e-4,
                    rows=(1, 2),
                ),
                _p(
                    "scaled_attn_scores_1_all",
                    SEED_003,
                    "In [27]",
                    "heads/0/scaled",
                    [[-1.0128, 0.7387, -0.7682, 0.7387, -0.1067, 0.7387, 0.2923, 0.7387, 0.3069, 0.7387, 0.5897]],
                    5e-4,
                    rows=(1, 2),
                ),
                _p(
                    "attn_weights_1_all",
                    SEED_003,
                    "In [28]",
                    "heads/0/weights",
                    [[0.0218, 0.1254, 0.0278, 0.1254, 0.0538, 0.1254, 0.0802, 0.1254, 0.0814, 0.1254, 0.1080]],
                    5e-4,
                    rows=(1, 2),
                ),
                _p(
                    "context_vector_1 = attn_weights_1_all @ value_vectors",
                    SEED_003,
                    "In [30]",
                    "output",
                    [[-0.9935, -0.0622]],
                    5e-4,
                    rows=(1, 2),
                ),
                _p(
                    "context_vectors_P = self_attention_P(embeddings)",
                    SEED_003,
                    "In [32]",
                    "output",
                    [
                        [2.1652, 0.33566],
                        [-0.99352, -0.062155],
                        [0.81129, 0.00034023],
                        [-0.99352, -0.062155],
                        [-0.63151, -0.18909],
                        [-0.99352, -0.062155],
                        [1.1980, 0.13611],
                        [-0.99352, -0.062155],
                        [-0.48231, -0.11911],
                        [-0.99352, -0.062155],
                        [-1.0848, -0.12670],
                    ],
                    5e-4,
                ),
            ),
            NAMES_003,
        ),
        Preset(
            "llm-linear",
            "LLMs from scratch: trainable self-attention (nn.Linear, seed 69)",
            SEED_003,
            "In [33]-[38]",
            "torch.nn.Linear(d_in, d_out, bias=False): out×in, applied as x @ W.T (linear layout). "
            "Flip the layout to matmul and the same numbers are stored transposed, as 003 In [37] does.",
            "Weights reproduce from torch.manual_seed(69); the embeddings are the printed ones.",
            _llm(tokens003, layout="linear", d_out=2, weights={"init": "linear", "seed": 69}, scale=True),
            (
                _p(
                    "self_attention_L.W_key.weight",
                    SEED_003,
                    "In [36]",
                    "weights_used/W_k/0",
                    [[-0.4748, -0.2969, 0.2371], [0.1405, 0.4836, -0.5560]],
                ),
                _p(
                    "self_attention_L(embeddings)",
                    SEED_003,
                    "In [34]",
                    "output",
                    [
                        [0.1785, 0.1088],
                        [0.1216, -0.1495],
                        [0.1985, 0.1906],
                        [0.1216, -0.1495],
                        [0.2426, 0.2571],
                        [0.1216, -0.1495],
                        [0.2941, 0.2379],
                        [0.1216, -0.1495],
                        [0.2602, 0.2216],
                        [0.1216, -0.1495],
                        [0.1258, -0.0132],
                    ],
                    5e-4,
                ),
            ),
            NAMES_003,
        ),
        Preset(
            "numpy-scaled",
            "Self-attention for Transformers: scaled dot product (numpy)",
            SEED_004,
            "In [None] (q, k, v to scaled_dot_product)",
            "q, k and v are given directly (identity projections), float64 as numpy computes; "
            "scaled by math.sqrt(d_k) with d_k = 6.",
            "q/k/v are 004's printed np.random.randn draws, so every printed output reproduces within 1e-8.",
            _numpy(),
            (
                _p(
                    "np.matmul(q, k.T)",
                    SEED_004,
                    "In [None] (Dot product)",
                    "heads/0/scores",
                    [
                        [3.19901068, 3.18074107, -0.98452726, -0.07039688],
                        [0.33077719, -1.4214042, 1.09058459, 1.81448694],
                        [-3.21104763, 2.45482831, 0.68070498, -0.80355552],
                        [-2.81902441, -2.28465071, -0.92107062, -2.52087782],
                    ],
                    1e-7,
                ),
                _p(
                    "scaled_dot_product = np.matmul(q, k.T) / math.sqrt(d_k)",
                    SEED_004,
                    "In [None]",
                    "heads/0/scaled",
                    SCALED_004,
                    1e-7,
                ),
                _p(
                    "q.var()  [of q.var(), k.var(), np.matmul(q, k.T).var()]",
                    SEED_004,
                    "In [None] (Why we need sqrt(d_k))",
                    "heads/0/stats/var_q",
                    1.341162827829847,
                    1e-7,
                ),
                _p(
                    "k.var()",
                    SEED_004,
                    "In [None] (Why we need sqrt(d_k))",
                    "heads/0/stats/var_k",
                    0.936821161732119,
                    1e-7,
                ),
                _p(
                    "np.matmul(q, k.T).var()",
                    SEED_004,
                    "In [None] (Why we need sqrt(d_k))",
                    "heads/0/stats/var_scores",
                    4.089120011404893,
                    1e-7,
                ),
                _p(
                    "scaled_dot_product.var()",
                    SEED_004,
                    "In [None]",
                    "heads/0/stats/var_scaled",
                    0.6815200019008156,
                    1e-7,
                ),
            ),
            NAMES_004,
        ),
        Preset(
            "numpy-masked",
            "Self-attention for Transformers: look-ahead mask M (numpy)",
            SEED_004,
            "In [None] (Masking, Softmax)",
            "An additive mask M: 0 where visible, -inf where hidden (mask[mask == 0] = -np.infty), "
            "softmax(scaled_dot_product + mask); float64.",
            "q/k/v are 004's printed draws.",
            _numpy({"kind": "causal", "fill": "additive"}),
            (
                _p(
                    "mask = np.tril(np.ones((T, T)))",
                    SEED_004,
                    "In [None] (Masking)",
                    "keep",
                    [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]],
                    0.0,
                ),
                _p(
                    "scaled_dot_product + mask",
                    SEED_004,
                    "In [None]",
                    "heads/0/masked",
                    [
                        [1.30599064, NEG, NEG, NEG],
                        [0.13503922, -0.58028584, NEG, NEG],
                        [-1.31090471, 1.00217946, 0.27789664, NEG],
                        SCALED_004[3],
                    ],
                    1e-7,
                ),
                _p(
                    "softmax(scaled_dot_product + mask)",
                    SEED_004,
                    "In [None] (Softmax)",
                    "heads/0/weights",
                    [
                        [1.0, 0.0, 0.0, 0.0],
                        [0.67157673, 0.32842327, 0.0, 0.0],
                        [0.06248665, 0.63146158, 0.30605177, 0.0],
                        [0.18039292, 0.22436955, 0.39149539, 0.20374214],
                    ],
                    1e-7,
                ),
                _p(
                    "attention = np.matmul(softmax(scaled_dot_product + mask), v)",
                    SEED_004,
                    "In [None]",
                    "output",
                    [
                        [-0.48742851, 1.76485745, 0.36118831, 0.84109156, 1.64645719, 2.49370612],
                        [-0.46362631, 0.91412078, -0.38077887, 0.93729584, 1.04883557, 1.54348157],
                        [-0.55592966, -0.38502584, -1.13537887, 0.96220057, 0.07132949, -0.17595361],
                        [-0.72439722, 0.31674494, -0.26573278, 0.61832334, -0.00619643, 0.1368804],
                    ],
                    1e-7,
                ),
            ),
            NAMES_004,
        ),
    ]
    return presets


def preset_ids() -> list[str]:
    return [p.id for p in _all()]


def all_presets() -> list[Preset]:
    """Fresh preset objects (nothing is cached at module level)."""
    return _all()


def get_preset(preset_id: str) -> Preset:
    for p in _all():
        if p.id == preset_id:
            return p
    raise KeyError(preset_id)


def scenario_of(preset_id: str) -> dict[str, Any]:
    """A deep copy of a preset's scenario, tagged with its id."""
    return {**copy.deepcopy(get_preset(preset_id).scenario), "preset": preset_id}


def lookup(result: dict[str, Any], p: Printed) -> Any:
    """The part of a compute() result that a printed tensor claims to show."""
    node: Any = result
    for part in p.path.split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    if p.transpose:
        node = [list(r) for r in zip(*node, strict=True)]
    if p.rows is not None:
        node = node[p.rows[0] : p.rows[1]]
    return node


def deviation(result: dict[str, Any], p: Printed) -> float:
    """Largest |ours - printed| over one printed tensor (inf where only one side is -inf)."""
    ours = torch.tensor(_flat(lookup(result, p)), dtype=torch.float64)
    printed = torch.tensor(_flat(p.values), dtype=torch.float64)
    if ours.shape != printed.shape:
        return float("inf")
    same_inf = torch.isinf(ours) & torch.isinf(printed) & (torch.sign(ours) == torch.sign(printed))
    diff = (ours - printed).abs().masked_fill(same_inf, 0.0)
    return float(diff.max()) if diff.numel() else 0.0


def _flat(x: Any) -> list[float]:
    if isinstance(x, list):
        return [v for item in x for v in _flat(item)]
    return [float(x)]  # numbers, or the strings "-inf"/"inf"/"nan"


def check(result: dict[str, Any], preset: Preset) -> list[tuple[Printed, float]]:
    """Each printed tensor with its largest deviation from ``result``."""
    return [(p, deviation(result, p)) for p in preset.printed]
