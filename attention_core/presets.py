"""Every example in the five seed notebooks as data.

A preset is a scenario for :func:`attention_core.compute` plus the tensors its notebook printed,
copied from the notebook text with the seed file and cell they came from. The data live in one JSON
file per notebook (``data/000.json`` ... ``data/004.json``, easy to diff against the seed); this module
keeps the schema (:class:`Preset`, :class:`Printed`), reads and checks the files, and compares results
with them. The comparison is always against that printed text, never against our own output.

Where a notebook's RNG is not portable the preset carries the printed tensors as inputs:
003's ``nn.Embedding(7, 3)`` draw (torch's normal_ fill differs across platforms) and 004's numpy
``randn`` q/k/v. 001 prints nothing, so its preset fixes a seed and is checked against torch.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

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


DATA = Path(__file__).resolve().parent / "data"  # one JSON file per notebook: 000.json ... 004.json
NOTEBOOKS = ("000", "002", "001", "003", "004")  # the picker's order
MODERN = "modern"  # data/modern.json: today's attention (RoPE, grouped-query, sliding window), from no notebook
SENTENCE = "The dog attacks the wild cat"  # 003 In [2]
SEED_OF_001 = 2024  # 001 prints nothing: its presets draw 001's tensors from this seed
PRESET_KEYS = {"id", "title", "cells", "conventions", "note", "scenario", "names", "printed", "inputs"}
PRINTED_KEYS = {"label", "source", "cell", "path", "atol", "atol_why", "rows", "transpose", "values"}


def seed_001(seed: int) -> tuple[list[list[float]], list[list[list[float]]]]:
    """001's draws, in its order, from a private generator: input (1, 3, 4) then W_q, W_k, W_v (4, 4).

    Returns x (3, 4) (the batch of one dropped) and the three in×out matrices.
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 3, 4, generator=g)[0]
    ws = [torch.randn(4, 4, generator=g) for _ in range(3)]
    return x.tolist(), [w.tolist() for w in ws]


def _inputs(sc: dict[str, Any], inputs: dict[str, Any] | None) -> dict[str, Any]:
    """A scenario from its data file; ``inputs`` names draws made here (001's seed) instead of written out."""
    if not inputs:
        return sc
    if set(inputs) != {"draw_001"}:
        raise ValueError(f"preset inputs {sorted(inputs)}: only 'draw_001' is known")
    x, (wq, wk, wv) = seed_001(inputs["draw_001"])
    return {**sc, "x": x, "weights": {"W_q": [wq], "W_k": [wk], "W_v": [wv], "W_o": None}}


def _printed(d: dict[str, Any], source: str, where: str) -> Printed:
    unknown = set(d) - PRINTED_KEYS
    if unknown or not {"label", "cell", "path", "atol", "values"} <= set(d):
        raise ValueError(f"{where}: printed entry keys {sorted(d)}")
    rows = tuple(d["rows"]) if "rows" in d else None
    if rows is not None and (len(rows) != 2 or not 0 <= rows[0] < rows[1]):
        raise ValueError(f"{where}: rows {d['rows']} is not a [start, stop) range")
    if not isinstance(d["atol"], (int, float)) or d["atol"] < 0:
        raise ValueError(f"{where}: atol {d['atol']!r} must be a number >= 0")
    return Printed(d["label"], d.get("source", source), d["cell"], d["path"], d["values"], float(d["atol"]), rows,
                   bool(d.get("transpose", False)))  # fmt: skip


def load_notebook(nb: str) -> list[Preset]:
    """The presets of one notebook's data file, checked against the schema (a ValueError names the entry)."""
    data = json.loads((DATA / f"{nb}.json").read_text(encoding="utf-8"))
    source = data["source"]
    if not source.startswith(nb):
        raise ValueError(f"{nb}.json: source {source!r} is another notebook")
    out = []
    for p in data["presets"]:
        where = f"{nb}.json preset {p.get('id')!r}"
        if set(p) - PRESET_KEYS or not PRESET_KEYS - {"inputs"} <= set(p):
            raise ValueError(f"{where}: keys {sorted(p)}")
        printed = tuple(_printed(d, source, f"{where} printed {i + 1}") for i, d in enumerate(p["printed"]))
        scenario = _inputs(p["scenario"], p.get("inputs"))
        out.append(Preset(p["id"], p["title"], source, p["cells"], p["conventions"], p["note"], scenario, printed,
                          dict(p["names"])))  # fmt: skip
    return out


@functools.cache
def _read_all() -> tuple[Preset, ...]:
    """Every preset, read and checked once: the data files are package data and do not change while running.
    The notebooks' presets first, then today's (``modern.json``, whose source names no notebook)."""
    return tuple(p for nb in (*NOTEBOOKS, MODERN) for p in load_notebook(nb))


def _all() -> list[Preset]:
    """Fresh copies of every notebook preset, so a caller that edits one never changes what others get."""
    return copy.deepcopy([p for p in _read_all() if p.source != MODERN])


def modern_presets() -> list[Preset]:
    """Today's attention on the same editable numbers (Llama-style, Mistral-style): no notebook printed them, so
    they carry no printed tensors; ``tests/test_variants_contract.py`` checks them against torch and transformers."""
    return copy.deepcopy([p for p in _read_all() if p.source == MODERN])


def _preset_scenario(preset_id: str) -> dict[str, Any]:
    return next(p.scenario for p in _all() if p.id == preset_id)


# The notebooks' inputs other modules and tests use, read from the data files.
STATQUEST_X: list[list[float]] = _preset_scenario("statquest-self")["x"]  # 000 In [27]
EMBEDDINGS_003: list[list[float]] = _preset_scenario("llm-simplified")["x"]  # 003 In [4]
Q_004: list[list[float]] = _preset_scenario("numpy-scaled")["x_q"]  # 004's printed q
K_004: list[list[float]] = _preset_scenario("numpy-scaled")["x_k"]  # 004's printed k
STATQUEST_OUT2: list[list[float]] = next(p for p in _all() if p.id == "statquest-mha2").printed[0].values


def preset_ids() -> list[str]:
    """Every preset id: the notebooks' and today's."""
    return [p.id for p in _read_all()]


def all_presets() -> list[Preset]:
    """Fresh objects of every notebook's presets (copies of what was read once); today's: :func:`modern_presets`."""
    return _all()


def get_preset(preset_id: str) -> Preset:
    """A copy of one preset, the caller's to change."""
    return copy.deepcopy(read_preset(preset_id))


def read_preset(preset_id: str) -> Preset:
    """One preset as read from its data file, shared by every caller: to be read, never changed (the badge reads
    it on every edit, where a deep copy took an eighth of the edit)."""
    for p in _read_all():
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
