"""The Real model tab's handlers in process: a sentence, a head opened from the grid, a number explained with its bias
term, a hidden token, and junk events ignored or named."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

from attention_core.teaching import real_model as rm
from ui import pipeline
from ui import real_model as ui

NAMES = ["sentence", "layer", "head", "message", "tokens", "hide", "heads", "title", "inputs", "overview",
         *(f"html_{s}" for s in ui.vw.STEPS), "fig", "explain"]  # fmt: skip
PARTS = ui.Parts({n: n for n in NAMES})  # components stand in as their own names
SENTENCE = "Tokenizers split unbelievable words."


class Event:
    def __init__(self, data: Any) -> None:
        self._data = data


def test_show_then_open_a_head_then_explain_a_q_cell_with_its_bias() -> None:
    got = ui.on_show(pipeline.render, PARTS, SENTENCE, 1, 1)
    tokens, _ = rm.tokenize(SENTENCE)
    assert got["hide"]["choices"] == [(f"{i + 1} {t}", i) for i, t in enumerate(tokens)] and got["hide"]["value"] == []
    assert got["heads"].count("class='rm-hm") == 72 and "L6H12" in got["heads"] and "L1H1 in detail" in got["title"]
    opened = ui.on_head(pipeline.render, PARTS, SENTENCE, [], Event({"layer": 4, "head": 11}))
    assert opened["layer"] == 4 and opened["head"] == 11 and "L4H11 in detail" in opened["title"]
    assert "data-layer='4' data-head='11' aria-label='L4H11: open this head' aria-pressed='true'" in opened["heads"]
    assert "bias=True" in opened["html_qkv"] and "b_q: its bias" in html.unescape(opened["inputs"])
    picked = ui.on_pick(pipeline.render, PARTS, SENTENCE, 4, 11, [], Event({"name": "v", "row": 2, "col": 3}))
    text = html.unescape(picked["explain"])
    _, s = rm.forward_and_head(SENTENCE, None, 4, 11)
    b = float(s.weights.b_v[0, 3])
    assert "v[3, 4]" in text and "+ b_v[4]" in text and f"{b:.4f}".lstrip("-") in text


def test_hiding_a_token_acts_as_padding_and_junk_events_are_named_or_ignored() -> None:
    tokens, _ = rm.tokenize(SENTENCE)
    got = ui.on_change(pipeline.render, PARTS, SENTENCE, 2, 2, [1])
    assert "rm-tok hid" in got["tokens"] and f"hidden (as padding): {tokens[1]}" in html.unescape(got["title"])
    assert "-inf" in got["html_masked"]
    bad = ui.on_change(pipeline.render, PARTS, SENTENCE, 2, 2, [99])
    assert set(bad) == {"message"} and "hide: 99 is not a token" in bad["message"]
    every = ui.on_change(pipeline.render, PARTS, SENTENCE, 2, 2, list(range(len(tokens))))
    assert "hide: every token is hidden" in every["message"]
    assert set(ui.on_head(pipeline.render, PARTS, SENTENCE, [], Event({"layer": 7, "head": 1}))) == {"message"}
    for junk in (None, {"name": "q", "row": -1, "col": 0}, {"name": "x", "row": 0, "col": 0}, "q"):
        assert ui.on_pick(pipeline.render, PARTS, SENTENCE, 1, 1, [], Event(junk)) == gr.skip()  # nothing changes
    long = ui.on_show(pipeline.render, PARTS, "x" * 301, 1, 1)
    assert set(long) == {"message"} and f"at most {rm.MAX_CHARS}" in long["message"]
