"""Argument checks shared by the modern variants; each failure is a ScenarioError that names the argument.

``ScenarioError`` is imported when an error is raised, not at import time: ``scenario.py`` is meant to import
the variant modules, and a top-level import back into ``scenario.py`` would be a circular import.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scenario import ScenarioError


def field_error(field: str, problem: str) -> ScenarioError:
    """``ScenarioError(field, problem)``: its message reads ``"field: problem"``."""
    from .scenario import ScenarioError

    return ScenarioError(field, problem)


def check_count(value: int, field: str, lo: int = 1, hi: int | None = None) -> int:
    """A whole number in lo..hi (no upper bound when ``hi`` is None), or ScenarioError naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise field_error(field, f"{field}={value!r} is not a whole number")
    if value < lo:
        raise field_error(field, f"{field}={value} must be at least {lo}")
    if hi is not None and value > hi:
        raise field_error(field, f"{field}={value} must be at most {hi}")
    return value


def check_base(base: float, field: str) -> float:
    """A finite number above 0, or ScenarioError naming ``field``."""
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base) or base <= 0:
        raise field_error(field, f"{field}={base!r} must be a finite number above 0")
    return float(base)
