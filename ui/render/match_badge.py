"""The match badge: whether the state on screen is a preset's own (and which notebook printed it), or what
changed since.
"""

from __future__ import annotations

import functools
import html

import torch
from torch import Tensor

import attention_core as ac
from attention_core import VARIANT_KEYS


def as_linear(w: Tensor | None, layout: str) -> Tensor | None:
    return w if w is None or layout == "linear" else w.transpose(-2, -1)


def differs(ta: Tensor | None, tb: Tensor | None) -> bool:
    """Whether two of a scenario's tensors differ. Of two dtypes, the values are compared at the coarser one: a dtype
    switched alone is "dtype" (float64 of the preset's float32 numbers listed x, W_q, W_k, W_v as changed too)."""
    if ta is None or tb is None:
        return (ta is None) != (tb is None)
    if ta.shape != tb.shape:
        return True
    if ta.dtype != tb.dtype and ta.is_floating_point() and tb.is_floating_point():
        low = min(ta.dtype, tb.dtype, key=lambda t: torch.finfo(t).bits)
        ta, tb = ta.to(low), tb.to(low)
    return not torch.equal(ta, tb)


def same_scenario(a: ac.Scenario, b: ac.Scenario) -> list[str]:
    """Names of the fields where two parsed scenarios differ (empty = the same state)."""
    diff = []
    for name in ("x_q", "x_k", "x_v"):
        if differs(getattr(a, name), getattr(b, name)):
            diff.append("x" if a.self_attention and b.self_attention else name)
    for name in ("b_q", "b_k", "b_v", "b_o"):
        if differs(getattr(a.weights, name), getattr(b.weights, name)):
            diff.append(name)
    for name in ("W_q", "W_k", "W_v", "W_o"):  # compared as out×in, so a layout flip alone is "layout"
        if differs(as_linear(getattr(a.weights, name), a.weights.layout),
                   as_linear(getattr(b.weights, name), b.weights.layout)):  # fmt: skip
            diff.append(name)
    for name in ("heads", "head_mode", "fill", "dtype", "normalize"):
        if getattr(a, name) != getattr(b, name):
            diff.append(name)
    if (type(a.scale), a.scale) != (type(b.scale), b.scale):  # (a temperature of 1 == True: yet another choice)
        diff.append("scale")
    if a.weights.layout != b.weights.layout:
        diff.append("layout")
    ka, kb = a.keep, b.keep
    if (ka is None) != (kb is None) or (ka is not None and not torch.equal(ka, kb)):
        diff.append("mask")
    ma = {} if a.variants is None else a.variants.as_json()  # RoPE, ALiBi, kv heads, window, tiles, decoding
    mb = {} if b.variants is None else b.variants.as_json()
    diff += [key for key in VARIANT_KEYS if ma.get(key) != mb.get(key)]
    return sorted(set(diff), key=diff.index)


# the seed notebooks by the titles they give themselves (the badge names a notebook in words, not by its file)
NOTEBOOK_NAMES = {"000": "Attention in Transformers (StatQuest, DeepLearning.AI)",
                  "001": "Understanding Attention Mechanism in Deep Learning",
                  "002": "Encoder Decoder Attention Explained", "003": "LLMs from scratch: attention mechanisms",
                  "004": "Self Attention for Transformers (numpy)"}  # fmt: skip


def notebook_words(source: str) -> str:
    """A preset's notebook in words: ``notebook 001, “Understanding Attention Mechanism in Deep Learning”``."""
    nb = source[:3]
    return f"notebook {nb}, “{NOTEBOOK_NAMES[nb]}”," if nb in NOTEBOOK_NAMES else f"notebook {nb}"


# the badge names what changed in the controls' words, not the scenario's keys
FIELD_WORDS = {"head_mode": "head mode", "normalize": "normalise", "rope_base": "RoPE base", "kv_heads": "kv heads",
               "block_rows": "tile B_r", "block_cols": "tile B_c", "decode": "KV-cache decoding", "alibi": "ALiBi",
               "layout": "weight layout", "b_q": "bias b_q", "b_k": "bias b_k", "b_v": "bias b_v",
               "b_o": "bias b_o"}  # fmt: skip


@functools.cache
def preset_scenario(preset_id: str) -> ac.Scenario:
    """A preset's scenario as parsed, shared by every caller: to be read, never changed (each edit of a preset's
    state compares with it: a parse per edit)."""
    return ac.parse(ac.read_preset(preset_id).scenario)


def badge(preset_id: str | None, s: ac.Scenario, tr: ac.Trace) -> str:
    """✓ with the largest deviation per printed tensor while the state equals a preset; else what changed.
    (The preset picker shows the same preset, or nothing in free play.) ``tr``: ``s`` evaluated; its printed
    tensors are gathered (``ac.result_json``) only while the state is still the preset's."""
    if not preset_id:
        return "<div class='badge free'>Free play: no preset loaded. Pick one to compare with a notebook.</div>"
    p = ac.read_preset(preset_id)
    changed = same_scenario(s, preset_scenario(preset_id))
    decoders = p.source == "decoders"  # the decoder presets: no notebook printed them
    if changed:
        what = "its torch-checked numbers" if decoders else f"notebook {p.source[:3]}"
        return (
            f"<div class='badge left'>✎ You have left the preset <b>{html.escape(p.title)}</b> "
            f"(changed: {html.escape(', '.join(FIELD_WORDS.get(c, c) for c in changed))}). Reload it to compare with "
            f"{what}.</div>"
        )
    if decoders:
        return (
            f"<div class='badge ok'>✓ <b>{html.escape(p.title)}</b>: today's attention, from no notebook, so it "
            "printed no tensors; checked against torch's SDPA (enable_gqa) and transformers' Llama RoPE in the test "
            "suite.</div>"
        )
    if not p.printed:
        return (
            f"<div class='badge ok'>✓ <b>{html.escape(p.title)}</b>: {html.escape(notebook_words(p.source))} "
            f"printed no tensors; this preset is checked against torch in the test suite.</div>"
        )
    rows = []
    worst_ok = True
    for pr, dev in ac.check(ac.result_json(s, tr), p):
        ok = dev <= pr.atol
        worst_ok &= ok
        mark = "✓" if ok else "✗"
        label = html.escape(pr.label).replace(".", ".<wbr>").replace("(", "<wbr>(")  # breaks where code reads well
        rows.append(
            f"<tr><td>{mark}</td><td><code>{label}</code></td><td>{html.escape(pr.cell)}"
            f"</td><td>{dev:.1e}</td><td>≤ {pr.atol:g}</td></tr>"
        )
    head = "✓ matches" if worst_ok else "✗ does not match"
    return (
        f"<details class='badge {'ok' if worst_ok else 'bad'}'><summary>{head} <b>{html.escape(p.title)}</b>: "
        f"{len(rows)} printed tensor{'s' if len(rows) != 1 else ''} of notebook {html.escape(p.source[:3])} "
        f"<span class='more'>(details)</span></summary>"
        f"<div class='badge-more'><p>Largest |ours − printed| per tensor that "
        f"{html.escape(notebook_words(p.source).rstrip(','))} printed:</p>"
        f"<table><tr><th></th><th>printed</th><th>cell</th><th>max dev</th><th>tolerance</th></tr>"
        f"{''.join(rows)}</table></div></details>"
    )
