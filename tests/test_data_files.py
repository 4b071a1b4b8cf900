"""The preset data files (attention_core/data/*.json) checked mechanically against the seed notebooks' text.

Every ``Printed`` tensor must appear in the seed text it names as a run of consecutive numbers, each one the
printed token at the token's own precision (the number the token prints, no digit more). So must the
inputs copied from a notebook (000's encodings, 003's embeddings, 004's q, k, v).

The notebooks' text is no part of the repository: the tests that read it take the ``seeds`` fixture
(tests/conftest.py), which skips them, saying why, where it is not beside the repository, and fails them in CI.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import pytest
from browser import ROOT
from seed_text import SEEDS

import attention_core as ac
from attention_core import presets

NUMBER = re.compile(r"(?<![\w.])-?(?:inf|nan|\d+\.?\d*(?:e[-+]?\d+)?)(?![\w])")


@cache
def tokens(source: str) -> tuple[str, ...]:
    """Every number in a seed's text, in order, as printed ('1.0100', '3.4023e-04', '-inf', '1.')."""
    return tuple(NUMBER.findall((SEEDS / source).read_text(encoding="utf-8")))


def agrees(value: float, token: str) -> bool:
    """``value`` is the number ``token`` prints, at the token's precision: rounded to the token's last digit it
    is the token, and it carries no digit beyond it (a copy of the print, not a nearby number; so 0.5406 is not
    the '1.' of a mask print, though it rounds to it)."""
    if token.lstrip("-") in ("inf", "nan"):
        return value == float(token)
    mantissa, _, exp = token.partition("e")
    decimals = len(mantissa.partition(".")[2]) - int(exp or 0)  # the token's last digit is 10^-decimals
    return (
        math.isfinite(value)
        and round(value, decimals) == round(float(token), decimals)
        and math.isclose(value, float(token), rel_tol=1e-12, abs_tol=1e-300)
    )


def flat(x: object) -> list[float]:
    return [v for item in x for v in flat(item)] if isinstance(x, list) else [float(x)]


def find_run(values: list[float], source: str) -> int | None:
    """Where ``values`` occur as consecutive numbers in the seed text, or None."""
    toks = tokens(source)
    for start in range(len(toks) - len(values) + 1):
        if all(agrees(v, t) for v, t in zip(values, toks[start : start + len(values)], strict=False)):
            return start
    return None


PRINTED = [(p.id, pr) for p in ac.all_presets() for pr in p.printed]


@pytest.mark.parametrize(("preset", "printed"), PRINTED, ids=[f"{i}:{pr.label[:40]}" for i, pr in PRINTED])
def test_every_printed_tensor_is_a_run_of_numbers_in_its_seed_text(
    preset: str, printed: ac.Printed, seeds: Path
) -> None:
    values = flat(printed.values)
    assert find_run(values, printed.source) is not None, f"{preset}: {printed.label} not found in {printed.source}"


INPUTS = [(p.id, key) for p in ac.all_presets() for key in ("x", "x_q", "x_k", "x_v") if key in p.scenario
          and p.source[:3] != "001"]  # fmt: skip


@pytest.mark.parametrize(("preset", "key"), INPUTS)
def test_inputs_copied_from_a_notebook_are_in_its_seed_text(preset: str, key: str, seeds: Path) -> None:
    p = ac.get_preset(preset)
    assert find_run(flat(p.scenario[key]), p.source) is not None, f"{preset}: {key}"


def test_the_seed_text_finder_fails_on_a_changed_digit_and_a_shifted_run(seeds: Path) -> None:
    """The check can fail: one digit off, or the right numbers in another order, is not found."""
    w = ac.get_preset("statquest-self").printed[1]  # 000 In [32]: [[0.5406, -0.1657], [0.5869, 0.6496]]
    good = flat(w.values)
    assert find_run(good, w.source) is not None
    assert find_run([good[0] + 1e-4, *good[1:]], w.source) is None
    assert find_run([good[1], good[0], *good[2:]], w.source) is None
    assert agrees(0.00034023, "3.4023e-04") and not agrees(0.00034033, "3.4023e-04") and agrees(1.0, "1.")
    assert not agrees(0.5406, "1.") and agrees(1.01, "1.0100") and not agrees(1.0101, "1.0100")


@pytest.mark.parametrize("nb", presets.NOTEBOOKS)
def test_each_data_file_is_one_notebook_and_follows_the_schema(nb: str) -> None:
    path = presets.DATA / f"{nb}.json"
    assert path.parent.parent == ROOT / "attention_core"  # package data: found relative to the module
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["source"].startswith(nb)
    loaded = presets.load_notebook(nb)
    assert [p.id for p in loaded] == [p["id"] for p in data["presets"]] and loaded
    for p in loaded:
        ac.parse(p.scenario)  # every scenario is valid


@pytest.mark.parametrize("nb", presets.NOTEBOOKS)
def test_each_data_file_names_its_seed_text(nb: str, seeds: Path) -> None:
    source = json.loads((presets.DATA / f"{nb}.json").read_text(encoding="utf-8"))["source"]
    assert (seeds / source).is_file(), source


def test_a_data_file_with_an_unknown_key_is_refused(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads((presets.DATA / "000.json").read_text(encoding="utf-8"))
    data["presets"][0]["printed"][0]["tolerance"] = 1
    (tmp_path / "000.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(presets, "DATA", tmp_path)
    with pytest.raises(ValueError, match=r"statquest-self.* printed 1"):
        presets.load_notebook("000")


def test_003_tokens_are_what_simple_tokenizer_makes_of_its_sentence() -> None:
    expected = ["␣" if t.isspace() else t for t in ac.SimpleTokenizer.tokenize(presets.SENTENCE)]
    for p in ac.all_presets():
        if p.source.startswith("003"):
            assert p.scenario["tokens"] == expected, p.id


def test_003_sentence_is_the_one_in_its_seed_text(seeds: Path) -> None:
    assert presets.SENTENCE in (seeds / presets.SEED_003).read_text(encoding="utf-8")
