"""The scenario's keys are written once (attention_core/contract/keys.py); the parser, the API's and MCP's description,
the page's controls and docs/contract.md are checked against that list here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import attention_core as ac
from attention_core.contract.keys import ABSENT, KEYS, NAMES, VARIANT_KEYS, markdown
from attention_core.contract.scenario import KNOWN_KEYS
from serving.api import compute_api
from ui import values

ROOT = Path(__file__).resolve().parent.parent
BASE = {"x": [[1.0, 0.5, -1.0, 2.0], [0.0, 1.0, 1.0, -0.5], [2.0, -1.0, 0.5, 0.0]], "heads": 2, "head_mode": "split",
        "mask": {"kind": "causal"}}  # fmt: skip
BY_NAME = {k.name: k for k in KEYS}


def test_the_parser_knows_exactly_the_listed_keys() -> None:
    assert set(KNOWN_KEYS) == NAMES
    assert tuple(ac.VARIANT_KEYS) == VARIANT_KEYS
    with pytest.raises(ac.ScenarioError, match=r"^wieghts: unknown key"):
        ac.compute({**BASE, "wieghts": {}})


@pytest.mark.parametrize("key", [k.name for k in KEYS if k.default is not ABSENT])
def test_writing_a_keys_default_is_leaving_it_out(key: str) -> None:
    base = {k: v for k, v in BASE.items() if k != key}
    assert ac.compute({**base, key: BY_NAME[key].default}) == ac.compute(base)


@pytest.mark.parametrize("key", [k.name for k in KEYS if k.choices])
def test_a_keys_choices_are_the_parsers(key: str) -> None:
    for word in BY_NAME[key].choices:
        ac.parse({**BASE, key: word})  # each listed word is taken
    with pytest.raises(ac.ScenarioError, match=rf"^{key}: 'bogus' is not one of {', '.join(BY_NAME[key].choices)}$"):
        ac.parse({**BASE, key: "bogus"})


def test_the_api_and_mcp_description_names_every_key() -> None:
    doc = compute_api.__doc__ or ""
    missing = [k.name for k in KEYS if k.group != "view" and f'"{k.name}"' not in doc]
    assert not missing, missing


def test_the_pages_controls_write_only_listed_keys_and_every_variant_key() -> None:
    sc = {**BASE, "positions": "rope", "rope_base": 500000.0, "alibi": True, "kv_heads": 1, "window": 2,
          "block_rows": 2, "block_cols": 2, "decode": True}  # fmt: skip
    written: dict[str, Any] = values.scenario_from(values.values_from_scenario(ac.parse(sc)))
    assert set(written) <= NAMES, set(written) - NAMES
    assert set(VARIANT_KEYS) <= set(written), set(VARIANT_KEYS) - set(written)
    assert ac.compute(written)["output"] == ac.compute(sc)["output"]


def test_docs_contract_is_the_generated_table() -> None:
    assert (ROOT / "docs" / "contract.md").read_text(encoding="utf-8") == markdown()
    assert markdown().count("\n| `") == len(KEYS)
