"""The page's values are a frozen dataclass (ui/values.py's PageValues): a misspelt field fails loudly, when the
values are built or replaced and, before anything runs, in this file's static check of every module under ui/."""

from __future__ import annotations

import ast
import copy
import dataclasses
import pickle
from pathlib import Path

import gradio as gr
import pytest

import attention_core as ac
from serving.sessions import estimate_bytes
from ui import pipeline, values, workbench

UI = Path(__file__).resolve().parent.parent / "ui"
METHODS = {"as_dict"}


def test_the_fields_are_the_handlers_values_in_order_then_what_no_control_edits() -> None:
    assert values.NAMES == (*values.FIELDS, "biases", "pick")
    assert values.FIELDS[:4] == ("tokens", "tokens_k", "cross", "x")  # the order the handlers receive them in
    assert values.FIELDS[-len(values.VARIANT_FIELDS) :] == values.VARIANT_FIELDS
    assert set(values.TABLE_FIELDS) <= set(values.FIELDS)
    hints = {f.name: f.type for f in dataclasses.fields(values.PageValues)}
    assert all(hints[n] == "Table" for n in values.TABLE_FIELDS) and hints["cross"] == "bool"


def test_a_misspelt_field_is_refused_when_built_replaced_read_or_set() -> None:
    _, v, _ = pipeline.load_values(values.DEFAULT_PRESET)
    with pytest.raises(TypeError, match="tokns"):
        dataclasses.replace(v, tokns="a, b")
    with pytest.raises(TypeError, match="tokns"):
        values.PageValues(**{**v.as_dict(), "tokns": "a, b"})
    with pytest.raises(TypeError, match="tokens"):  # a field left out is refused too (no silent default)
        values.PageValues(**{k: x for k, x in v.as_dict().items() if k != "tokens"})
    with pytest.raises(AttributeError):
        v.tokns  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.tokens = "a, b"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(v, "tokns", "a, b")  # (slots: no attribute beside the fields, even forced)
    assert dataclasses.replace(v, tokens="a, b, c").tokens == "a, b, c" and v.tokens != "a, b, c"


def test_every_control_of_the_workbench_is_a_field() -> None:
    """Each control the handlers store (workbench's controls dict) names a field: the controls and the grids are the
    values, nothing beside them."""
    _, v, _ = pipeline.load_values(values.DEFAULT_PRESET)
    with gr.Blocks():
        controls, _, _ = workbench.build_toolbar(v)
    assert set(controls) == set(values.FIELDS) - set(values.TABLE_FIELDS)
    assert set(workbench.REPEATS) | set(workbench.LIVE) | set(workbench.STRUCTURAL) <= set(controls)


def test_the_values_copy_pickle_and_weigh_as_the_dict_they_were() -> None:
    """The session store weighs a page's values field by field, as it weighed the dict (serving/sessions.py), and
    a copy (the handlers' tests take one) is equal and separate."""
    sc = {**ac.scenario_of("statquest-mha2"), "weights": {**ac.scenario_of("statquest-mha2")["weights"]}}
    v = values.values_from_scenario(ac.parse(sc), seed=7)
    assert estimate_bytes({"vals": v})[0] == estimate_bytes({"vals": v.as_dict()})[0] > 4096
    table, x = v.W_q, copy.deepcopy(v.x)  # a look ahead holds the page's values and the next ones, which share W_q
    d = v.as_dict()
    both = estimate_bytes({"vals": v, "ahead": {"base": v, "nv": dataclasses.replace(v, x=x)}})[0]
    assert both == estimate_bytes({"vals": d, "ahead": {"base": d, "nv": {**d, "x": x}}})[0] > 4096 + 2 * 900
    twin = copy.deepcopy(v)
    assert twin == v and twin.W_q is not table and pickle.loads(pickle.dumps(v)) == v


# ---- the static check: handlers read fields, never string keys --------------------------------------------------


def typed(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names ``fn`` holds page values in: its parameters and its local variables annotated PageValues
    (``vals: PageValues | None = entry.get("vals")``, as ui/live.py takes them from the session store)."""
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    names = {a.arg for a in args if a.annotation is not None and "PageValues" in ast.unparse(a.annotation)}
    return names | {
        n.target.id
        for n in ast.walk(fn)
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and "PageValues" in ast.unparse(n.annotation)
    }


def misreads(source: str) -> list[str]:
    """Reads of page values in ``source`` that no field answers: a parameter or local annotated PageValues read by a
    string key or by an attribute that is no field, and ``replace(…)`` given a keyword that is no field."""
    found: list[str] = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        typed_names = typed(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in typed_names:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in typed_names:
                if node.attr not in values.NAMES and node.attr not in METHODS:
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("replace", "dataclasses.replace"):
                bad = [k.arg for k in node.keywords if k.arg is not None and k.arg not in values.NAMES]
                found += [f"line {node.lineno}: replace(…, {k}=…)" for k in bad]
    return found


def test_the_check_finds_a_misspelt_field_a_string_key_and_a_bad_replace() -> None:
    bad = (
        "def f(v: PageValues, n: int) -> None:\n"
        "    a = v.tokns\n"
        "    b = v['tokens']\n"
        "    c = dataclasses.replace(v, tokns='a')\n"
        "    d = v.tokens, v.as_dict(), dataclasses.replace(v, tokens='a')\n"
    )
    assert misreads(bad) == ["line 2: v.tokns", "line 3: v['tokens']", "line 4: replace(…, tokns=…)"]


def test_the_check_finds_a_misspelt_field_of_an_annotated_local() -> None:
    bad = "def f(entry: dict) -> None:\n    vals: PageValues | None = entry.get('vals')\n    a = vals.tokns, vals.x\n"
    assert misreads(bad) == ["line 3: vals.tokns"]


def test_live_edits_hold_the_page_values_typed_so_the_check_reads_them() -> None:
    """ui/live.py takes the page's values from the session store and passes them on: every name it holds them in
    is annotated PageValues, so a misspelt field there is found (seen: a ``vals.tokns`` put into live_answer)."""
    source = (UI / "live.py").read_text()
    fns = {fn.name: fn for fn in ast.walk(ast.parse(source)) if isinstance(fn, ast.FunctionDef)}
    assert {"vals"} <= typed(fns["live_answer"]) and {"vals", "nv"} <= typed(fns["store"])
    assert {"vals"} <= typed(fns["taken_ahead"])
    typo = source.replace("        hit = not look", "        _ = vals.tokns\n        hit = not look", 1)
    assert typo != source and [m.split(": ")[1] for m in misreads(typo)] == ["vals.tokns"]


@pytest.mark.parametrize("path", sorted(UI.rglob("*.py")), ids=lambda p: str(p.relative_to(UI)))
def test_no_module_reads_the_page_values_by_a_name_that_is_no_field(path: Path) -> None:
    assert misreads(path.read_text()) == []


def test_the_handlers_take_page_values_not_dicts() -> None:
    """No parameter named as the page's values (``vals``, ``nv``, ``first``) is a dict or unannotated: each is
    annotated PageValues, so the check above reads it (a dict annotation would hide it)."""
    loose = []
    for path in sorted(UI.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for a in fn.args.args:
                    note = ast.unparse(a.annotation) if a.annotation is not None else ""
                    if a.arg in ("vals", "nv", "first") and (not note or "dict" in note):
                        loose.append(f"{path.name}:{fn.name}({a.arg}: {note})")
    assert loose == []
