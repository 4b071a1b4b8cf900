"""The page's values as a frozen dataclass (ui/values.py's PageValues): a misspelt field fails loudly."""

from __future__ import annotations

import dataclasses

import pytest

from ui import pipeline, values


def test_the_fields_are_the_handlers_values_in_order_then_what_no_control_edits() -> None:
    assert values.NAMES == (*values.FIELDS, "biases", "pick")
    assert set(values.TABLE_FIELDS) <= set(values.FIELDS)


def test_a_misspelt_field_is_refused_when_built_replaced_read_or_set() -> None:
    _, d, _ = pipeline.load_values(values.DEFAULT_PRESET)
    v = values.PageValues(**d)  # the dict the handlers hold today, as values
    assert v.as_dict() == {**d, "pick": None}
    with pytest.raises(TypeError, match="tokns"):
        dataclasses.replace(v, tokns="a, b")
    with pytest.raises(TypeError, match="tokns"):
        values.PageValues(**{**d, "tokns": "a, b"})
    with pytest.raises(TypeError, match="tokens"):  # a field left out is refused too (no silent default)
        values.PageValues(**{k: x for k, x in d.items() if k != "tokens"})
    with pytest.raises(AttributeError):
        v.tokns  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.tokens = "a, b"  # type: ignore[misc]
    assert dataclasses.replace(v, tokens="a, b, c").tokens == "a, b, c" and v.tokens != "a, b, c"
