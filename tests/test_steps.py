"""The notebook's steps are listed once (attention_core/contract/steps.py): the notebook view's headings, the
exported .py and .ipynb's cells and explain's tables all read that list, so none can drift from the others."""

from __future__ import annotations

import json

import pytest

import attention_core as ac
from ui import pipeline
from ui.render import tables

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
