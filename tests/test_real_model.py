"""A real model's heads through the core: every layer × head of all-MiniLM-L6-v2 against the model's own
``attentions`` (BertModel, output_attentions=True) and its query/key/value Linear outputs captured by forward hooks."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import torch

import attention_core as ac
from attention_core.teaching import real_model as rm

SENTENCES = [
    "The cat sat on the mat because it was tired.",
    "Attention is all you need!",
    "unbelievably, tokenizers split words.",
]


def model_run(sentence: str, mask: list[int] | None = None) -> tuple[Any, dict[tuple[int, str], torch.Tensor]]:
    """The model itself, every layer's query/key/value Linear output captured: (output, {(layer, role): (T, D)})."""
    tokenizer, model = rm.load()
    enc = tokenizer(sentence, return_tensors="pt")
    if mask is not None:
        enc["attention_mask"] = torch.tensor([mask])
    seen: dict[tuple[int, str], torch.Tensor] = {}
    hooks = []
    for i, layer in enumerate(model.encoder.layer):
        for role in ("query", "key", "value"):
            lin = getattr(layer.attention.self, role)
            hooks.append(lin.register_forward_hook(lambda _m, _i, out, k=(i, role): seen.__setitem__(k, out[0])))
    try:
        with torch.no_grad():
            out = model(**enc, output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    return out, seen


@pytest.mark.parametrize("sentence", SENTENCES)
def test_every_head_equals_the_models_own_attentions_and_projections(sentence: str) -> None:
    out, seen = model_run(sentence)
    fw = rm.forward(sentence)
    assert fw.tokens[0] == "[CLS]" and fw.tokens[-1] == "[SEP]" and len(fw.tokens) == out.attentions[0].shape[-1]
    for layer in range(1, rm.LAYERS + 1):
        for head in range(1, rm.HEADS + 1):
            s = rm.scenario_of(fw, layer, head)
            assert s.x_q.shape == (len(fw.tokens), 384) and s.weights.W_q.shape == (1, 32, 384)
            part = ac.evaluate(s).head(0)
            torch.testing.assert_close(part["weights"], out.attentions[layer - 1][0, head - 1], atol=1e-5, rtol=0)
            cols = slice((head - 1) * 32, head * 32)
            for n, role in (("q", "query"), ("k", "key"), ("v", "value")):
                torch.testing.assert_close(part[n], seen[(layer - 1, role)][:, cols], atol=1e-5, rtol=1e-5)


def test_hidden_tokens_act_as_padding_in_every_layer() -> None:
    sentence = SENTENCES[0]
    tokens, _ = rm.tokenize(sentence)
    flags = [t == "mat" for t in tokens]
    out, _ = model_run(sentence, [0 if f else 1 for f in flags])
    fw = rm.forward(sentence, flags)
    j = flags.index(True)
    for layer in (1, 4, 6):
        s = rm.scenario_of(fw, layer, 3)
        assert s.mask_kind == "padding" and s.padding == tuple(flags)
        w = ac.evaluate(s).head(0)["weights"]
        torch.testing.assert_close(w, out.attentions[layer - 1][0, 2], atol=1e-5, rtol=0)
        assert float(w[:, j].abs().max()) == 0.0
    plain = ac.evaluate(rm.scenario_of(rm.forward(sentence), 4, 3)).head(0)["weights"]
    assert float((plain - ac.evaluate(rm.scenario_of(fw, 4, 3)).head(0)["weights"]).abs().max()) > 1e-3


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("", 1, 1), "sentence: is empty"),
        (("   ", 1, 1), "sentence: is empty"),
        ((None, 1, 1), "sentence: must be text"),
        (("x" * 301, 1, 1), f"at most {rm.MAX_CHARS} are allowed"),
        (("word " * 40, 1, 1), f"WordPiece tokens with [CLS] and [SEP]; at most {rm.MAX_TOKENS}"),
        (("hi", 0, 1), "layer: 0 is out of range 1..6"),
        (("hi", 7, 1), "layer: 7 is out of range 1..6"),
        (("hi", "two", 1), "layer: 'two' is not a whole number"),
        (("hi", 1.5, 1), "layer: 1.5 is not a whole number"),
        (("hi", 1, 13), "head: 13 is out of range 1..12"),
        (("hi", 1, None), "head: None is not a whole number"),
        (("hi", 1, 1, [True, True, True]), "hide: every token is hidden"),
        (("hi", 1, 1, [True]), "hide: must list 3 true/false flags"),
    ],
)
def test_bad_requests_name_the_field(args: tuple[Any, ...], problem: str) -> None:
    with pytest.raises(ac.ScenarioError) as e:
        sentence, layer, head, *hidden = args  # the tab's order: the position is checked before the forward pass
        rm.forward_and_head(sentence, hidden[0] if hidden else None, *rm.check_position(layer, head))
    assert problem in str(e.value)


def test_the_endpoint_contract_equals_the_model_with_hidden_tokens() -> None:
    sentence = SENTENCES[1]
    r = rm.attention_json({"sentence": sentence, "layer": 5, "head": 12, "hide": [3], "weights": True})
    assert r["label"] == "L5H12" and r["model"] == rm.MODEL and r["tokens"][0] == "[CLS]"
    mask = [0 if i == 2 else 1 for i in range(len(r["tokens"]))]
    out, seen = model_run(sentence, mask)
    torch.testing.assert_close(torch.tensor(r["heads"][0]["weights"]), out.attentions[4][0, 11], atol=1e-5, rtol=0)
    torch.testing.assert_close(torch.tensor(r["heads"][0]["q"]), seen[(4, "query")][:, 352:384], atol=1e-5, rtol=1e-5)
    assert set(r["heads"][0]) >= {"q", "k", "v", "scores", "scaled", "masked", "weights", "output"}
    assert r["divisor"] == pytest.approx(32**0.5) and r["weights_used"]["b_q"] is not None
    att = rm.head_weights(5, 12)
    torch.testing.assert_close(torch.tensor(r["weights_used"]["W_q"]), att.W_q, atol=0, rtol=0)


def test_the_heads_weights_come_only_when_asked_for() -> None:
    """Without "weights": true the answer leaves out the head's 37,000 weights (~800 KB a server walks and sends
    per call, and an agent reads)."""
    r = rm.attention_json({"sentence": SENTENCES[0], "layer": 1, "head": 1})
    assert "weights_used" not in r and set(r) >= {"heads", "tokens", "label", "output"}
    assert len(json.dumps(r)) < 100_000
    with pytest.raises(ac.ScenarioError, match="weights"):
        rm.attention_json({"sentence": SENTENCES[0], "layer": 1, "head": 1, "wieghts": True})
    with pytest.raises(ac.ScenarioError, match=r"^weights: must be true or false"):
        rm.attention_json({"sentence": SENTENCES[0], "layer": 1, "head": 1, "weights": "yes"})


def test_importing_the_app_does_not_import_transformers() -> None:
    code = "import sys, playground; assert 'transformers' not in sys.modules, 'transformers imported eagerly'"
    root = rm.__file__.rsplit("/", 3)[0]  # attention_core/teaching/real_model.py -> the repo
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
