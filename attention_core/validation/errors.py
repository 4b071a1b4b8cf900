"""The one error type of the package, and the argument checks every layer above shares.

Every bad input raises :class:`ScenarioError` (a ValueError) whose message starts with the field it names,
e.g. ``x_k row 2, column 1: 'abc' is not a number``.
"""

from __future__ import annotations

import math


class ScenarioError(ValueError):
    """A scenario that cannot be computed; the message names the field."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        """Pickled with its field and problem (a worker process raises it back to the server whole)."""
        return type(self), (self.field, self.problem)


def field_error(field: str, problem: str) -> ScenarioError:
    """``ScenarioError(field, problem)``: its message reads ``"field: problem"``."""
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
