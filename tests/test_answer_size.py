"""The size of one live edit's answer (benchmarks/answer_size.py): a size, not a time, so it is a test. A page that
shows the views' skeletons is sent their cells as data (ui/render/slots.py), not their HTML: at T=64, d=64, 8 heads that
answer was 468 KB of HTML and must stay at most 200 KB."""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi.responses import JSONResponse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from answer_size import GOALS_KB, answer_bytes, case_values

from ui import live
from ui.wiring import STORE


def test_the_large_answer_stays_within_its_goal_and_a_page_without_skeletons_gets_the_html() -> None:
    large = answer_bytes("large")
    assert large <= GOALS_KB["large"] * 1000, f"{large / 1000:.1f} KB"
    preset, vals = case_values("large")  # the same edit for a page that shows no skeleton: every view's HTML
    STORE.put("answer-size-html", {"preset": preset, "vals": vals}, used=True)
    edit = {"kind": "cell", "table": "x", "row": 0, "col": 1, "value": "0.75"}
    html = len(JSONResponse(live.live_answer("answer-size-html", edit)).body)
    assert html > 2 * large and html > 400_000, (html, large)


def test_the_default_answer_stays_within_its_goal() -> None:
    assert answer_bytes("default") <= GOALS_KB["default"] * 1000
