"""The size of one live edit's answer: the bytes the server sends the page for one cell typed into X.

    python benchmarks/answer_size.py

A size, not a time: it is measured in this process (ui/live.py's answer as its route sends it, JSON, no
compression), and tests/test_answer_size.py holds the large case to its goal. Cases as benchmarks/bench.py: the
default preset, and the large one (T=64, d=64, 8 heads).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi.responses import JSONResponse

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from bench import case_values  # noqa: E402

from ui import live  # noqa: E402
from ui.pipeline import VIEW_KEYS, compute_views  # noqa: E402
from ui.values import PageValues  # noqa: E402
from ui.wiring import STORE  # noqa: E402

GOALS_KB = {"default": 25, "large": 200}  # the large case's answer was 468 KB (issue 39 aims at 200 KB at most)


def shown_on_page(preset_id: str | None, vals: PageValues) -> dict[str, str]:
    """What a page that loaded these values shows (its views' HTML by elem_id), as the page tells the server."""
    got = compute_views(preset_id, vals, drawn=True)
    return live.shown_keys(live.live_views({k: got[k] for k in VIEW_KEYS if k in got}))


def answer_bytes(case: str) -> int:
    """The body of the answer to one edit of X[0, 1] on a page showing ``case``'s views."""
    preset_id, vals = case_values(case)
    key = f"answer-size-{case}"
    STORE.put(key, {"preset": preset_id, "vals": vals}, used=True)
    edit = {"kind": "cell", "table": "x", "row": 0, "col": 1, "value": "0.75"}
    data = {**edit, "skeletons": shown_on_page(preset_id, vals)}
    return len(JSONResponse(live.live_answer(key, data)).body)


def main() -> None:
    print("| case | answer of one edit | goal |\n|---|---|---|")
    for case, goal in GOALS_KB.items():
        print(f"| {case} | {answer_bytes(case) / 1000:.1f} KB | ≤ {goal} KB |")


if __name__ == "__main__":
    main()
