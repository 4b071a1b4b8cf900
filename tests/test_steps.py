"""The notebook's steps are listed once (attention_core/contract/steps.py): the notebook view's headings, the
exported .py and .ipynb's cells, explain and present mode read each step's title, formula, sentence, torch line and
tables from that list, and none writes them again, so none can drift from the others."""

from __future__ import annotations

import ast
import html
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

import attention_core as ac
from ui import pipeline, present
from ui.render import step_cells, tables

PRESETS = ["statquest-mha2", "numpy-masked", "qkv-split"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_exported_script_and_notebook_head_their_cells_from_the_list(preset: str) -> None:
    s = ac.parse(ac.get_preset(preset).scenario)
    want = [f"{step.heading}: {step.does}" for step in ac.NOTEBOOK_STEPS]
    script = [ln[2:] for ln in ac.to_script(s, "t").splitlines() if ln.startswith("# ") and " · " in ln]
    assert script[: len(want)] == want
    cells = json.loads(ac.to_notebook(s, "t"))["cells"]
    md = ["".join(c["source"]).splitlines()[0].removeprefix("## ") for c in cells if c["cell_type"] == "markdown"]
    assert md[1 : 1 + len(want)] == want  # after the title cell


@pytest.mark.parametrize("preset", PRESETS)
def test_the_notebook_view_numbers_each_step_as_the_list_does(preset: str) -> None:
    _, v, _ = pipeline.load_values(preset)
    views = pipeline.compute_views(preset, v)
    for step in ac.NOTEBOOK_STEPS:
        assert f"{step.number} · " in views[f"html_{step.key}"], step.key
    assert [step.key for step in ac.NOTEBOOK_STEPS] == list(tables.STEPS)  # the views' keys, in order


def test_explain_explains_every_table_the_steps_show() -> None:
    shown = [t for step in ac.NOTEBOOK_STEPS for t in step.tables]
    assert list(ac.EXPLAINABLE[: len(shown)]) == shown
    assert [step.number for step in ac.NOTEBOOK_STEPS] == list(range(1, len(ac.NOTEBOOK_STEPS) + 1))


# Each reader writes the list's words for a step at the list's settings (nn.Linear, concatenated heads, no bias,
# ÷ √d_k, the -inf fill of a causal mask, softmax), and no reader holds a copy of them (the last test).
LISTED = "statquest-masked"  # one such preset: causal, -inf, softmax, √d_k, nn.Linear, one head, no W_o


def listed() -> ac.Scenario:
    s = ac.parse(ac.get_preset(LISTED).scenario)
    assert (s.weights.layout, s.head_mode, s.scale, s.fill, s.normalize, s.mask_kind) == (
        "linear", "concat", True, "-inf", "softmax", "causal"
    )  # fmt: skip
    return s


def test_the_notebook_view_heads_each_step_with_the_lists_formula_and_sentence() -> None:
    _, v, _ = pipeline.load_values(LISTED)
    views = pipeline.compute_views(LISTED, v)
    for step in ac.NOTEBOOK_STEPS:
        view = views[f"html_{step.key}"]
        assert html.escape(step.sentence) in view, step.key
        if step.key != "combine":  # (its formula names W_o, which this preset has not: below)
            assert f"<div class='nb-formula'>{step_cells.formula_html(step.formula)}" in view, step.key
    s = listed()
    with_w_o = replace(s, weights=replace(s.weights, W_o=torch.eye(2)))
    combine = ac.NOTEBOOK_STEPS[-1]
    assert step_cells.formula_html(combine.formula) in step_cells.step_heading("combine", with_w_o, 2**0.5)


def test_the_exports_write_each_steps_formula_sentence_and_torch_line_from_the_list() -> None:
    s = listed()
    script = ac.to_script(s, "t")
    md = [c for c in json.loads(ac.to_notebook(s, "t"))["cells"] if c["cell_type"] == "markdown"]
    code = [c for c in json.loads(ac.to_notebook(s, "t"))["cells"] if c["cell_type"] == "code"]
    for n, step in enumerate(ac.NOTEBOOK_STEPS, start=1):  # (cell 0: the title and the data)
        assert step.code in script, step.key
        assert step.code in "".join(code[n]["source"]), step.key
        assert f"`{step.formula}`: {step.sentence}" in "".join(md[n]["source"]), step.key


def test_explain_heads_each_cell_with_its_steps_heading_and_formula() -> None:
    s = listed()
    tr = ac.evaluate(s)
    x = {"q": s.x_q, "k": s.x_k, "v": s.x_v}
    for step in ac.NOTEBOOK_STEPS:
        for name in step.tables:
            e = ac.explain(tr, 0, name, 0, 0, x)
            assert e.step == step, name
            card = tables.explain_html(e.title, e.lines, step=e.step)
            assert f"{step.heading}: {step_cells.formula_html(step.formula)}" in card, name


def test_present_mode_shows_each_steps_title_formula_and_sentence_from_the_list() -> None:
    stages = {st["key"]: st for st in json.loads(present.stages_json())}
    for step in ac.NOTEBOOK_STEPS:
        st = stages[step.key]
        assert st["title"].lower() == step.title.lower(), step.key
        want = step_cells.formula_html(step.formula)
        if step.key in present.BASE_FORMULAS:  # the heads joined without W_o; the list's formula (·W_o) once drawn
            assert dict(st["formulas"])["W_o"] == want, step.key
            want = step_cells.formula_html(present.BASE_FORMULAS[step.key])
        assert (st["formula"], st["words"]) == (want, step.sentence), step.key


SOURCES = [*Path("attention_core").rglob("*.py"), *Path("ui").rglob("*.py"), *Path("ui/static").glob("*.js")]


def strings(path: Path) -> list[str]:
    """The string literals of a Python file (implicitly joined ones as one, f-strings' text parts), or a JS file's
    whole text."""
    text = path.read_text()
    if path.suffix == ".js":
        return [text]
    return [n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_each_steps_formula_sentence_and_torch_line_are_written_once() -> None:
    """Only contract/steps.py writes them, as plain text; no reader writes them again, nor the formula as HTML."""
    found: dict[str, list[str]] = {}
    for path in SOURCES:
        for text in strings(path):
            for step in ac.NOTEBOOK_STEPS:
                words = {step.formula, step_cells.formula_html(step.formula), step.sentence, *step.code.splitlines()}
                for w in words:
                    if w in text:
                        found.setdefault(w, []).append(str(path))
    for step in ac.NOTEBOOK_STEPS:
        for w in [step.formula, step.sentence, *step.code.splitlines()]:
            assert found.get(w) == ["attention_core/contract/steps.py"], (step.key, w, found.get(w))
        html_formula = step_cells.formula_html(step.formula)
        if html_formula != step.formula:
            assert html_formula not in found, (step.key, found[html_formula])
