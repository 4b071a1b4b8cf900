"""Every refusal the workbench's validators give names its field as the page labels it (issue 37, a fresh learner's
walk: "decode: … set mask.kind to causal", "kv_heads: grouped K and V …", "tokens: must be a list of 3 labels"),
fed through the page's own handlers as the browser sends a typed or clicked value."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

import pytest
from test_handlers import call, handler

import playground as pg
from ui import values

# (the control's label, what the learner gives it): one bad value for each validator a control reaches
BAD: list[tuple[str, Any]] = [
    ("T (query tokens)", 65), ("d_model", 0), ("d_out per head", 99), ("heads", 9), ("head shown", 0),
    ("token labels (comma-separated)", "a, b"), ("token labels (comma-separated)", "t" * 3000),
    ("kv heads (K, V shared)", 3), ("window (0 = off)", -1), ("tile B_r", 99), ("tile B_c", -2),
    ("KV-cache decoding", True), ("temperature (divide by)", -1), ("seed", -5), ("tile B_c", None),
]  # fmt: skip
KEYS = set(values.NAMES) | {"mask.kind", "mask.padding", "mask.fill", "weights.layout", "decode", "d_in"}


def page_labels() -> list[str]:
    return [b.label for b in pg.demo.blocks.values() if isinstance(getattr(b, "label", None), str) and b.label]


def page_words() -> set[str]:
    """Every word of the page's labels and choices (a scenario key that is also one of them is the page's word)."""
    shown = page_labels() + [str(c[0]) for b in pg.demo.blocks.values() for c in getattr(b, "choices", None) or []]
    return {w for text in shown for w in re.findall(r"[A-Za-z_][\w.]*", text)}


def refusal(label: str, value: Any) -> str:
    """The message line's error after ``value`` is given to the control labelled ``label`` on a fresh page."""
    key = uuid.uuid4().hex
    call(handler("on_open"), key)
    for name in ("on_control", "on_structure", "on_seed"):
        try:
            f = handler(name, label)
        except AssertionError:
            continue
        said = " ".join(html.unescape(str(o)) for o in call(f, key, value))
        found = re.search(r"✖</span> ([^<]*)", said)
        assert found, (label, value, said[:300])
        return found[1]
    raise AssertionError(f"no handler for {label}")


@pytest.mark.parametrize(("label", "value"), BAD)
def test_a_refusal_names_a_label_on_the_page_not_a_scenario_key(label: str, value: Any) -> None:
    said = refusal(label, value)
    field = said.split(": ")[0]
    labels = page_labels()
    assert any(lab == field or lab.startswith(f"{field} ") for lab in labels), (field, said)
    words = set(re.findall(r"[A-Za-z_][\w.]*", said))
    assert not words & (KEYS - page_words()), said  # (kv_heads, mask.kind, tokens, view_head…)


@pytest.mark.parametrize("label", ["d_out per head", "seed", "heads", "temperature (divide by)"])
def test_an_emptied_box_is_named_once_by_its_label_and_says_what_it_keeps(label: str) -> None:
    """A number box emptied (letters typed over it: gradio sends nothing) is named by its label, once: "d_out per
    head per head: the box is empty" and "seed: None is not a whole number" were said (a learner's walk)."""
    said = refusal(label, None)
    assert said.startswith(f"{label}: the box is empty; it keeps ") and said.count(label) == 1, said
