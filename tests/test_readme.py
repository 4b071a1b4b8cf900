"""Every command and snippet in README.md runs, in its smallest form, and its claims hold.

Commands are found by parsing the README's fenced ``bash`` and ``python`` blocks; each shell command must be one this
file knows how to run quickly, so a new command in the README cannot go untested, and a command that drifts from
the code fails here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import ROOT, serve

import attention_core as ac

README = (ROOT / "README.md").read_text()
# what seed 000 printed, as attention_core/data/000.json holds it (tests/test_data_files.py holds that to its text)
PRINTED_000 = [[v for row in pr.values for v in row] for p in ac.all_presets() if p.source.startswith("000")
               for pr in p.printed]  # fmt: skip


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, flags=re.S | re.M)


def commands() -> list[str]:
    """Every shell command of the README's bash blocks (comments dropped)."""
    lines = [ln.split("  #")[0].strip() for b in blocks("bash") for ln in b.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def run(args: list[str], timeout: float, **kw: object) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False, **kw)
    assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r


def run_app(_: Path) -> None:
    assert "gradio" in (ROOT / "requirements.txt").read_text()  # what the first half installs
    with serve("playground.py") as url, urllib.request.urlopen(url, timeout=10) as page:
        assert page.status == 200 and "Attention Playground" in page.read().decode()


def run_tests(_: Path) -> None:
    """The README's test command is exactly what CI runs (running it here would recurse)."""
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln.strip() and ln[0] != "#"]
    assert ci[-2:] == ["bash .ci/install", "python3 -m pytest -q"]


def run_bench(tmp: Path) -> None:
    out = tmp / "bench.md"
    r = run([sys.executable, "benchmarks/bench.py", "--quick", "--out", str(out)], 900)
    rows = (
        "P1 browser | default",
        "P1 rAF-polled clock | large",
        "P1 frame budget | bare page, server waits 8 ms",
        "P1 frame budget | bare page showing its Enter, server waits 8 ms",
        "P1 learner's pause | large",
        "P1 no look ahead | default, value set without typing",
        "Scrub rate | large",
        "P3 sent per edit | large",
        "P4 cold start | playground",
    )
    for row in (*rows, "P5 core"):
        assert row in out.read_text(), row
    assert "| P1 browser | bare page |" in r.stdout and "| P1 browser | gradio floor app |" in r.stdout


def run_load(_: Path) -> None:
    small = ["--sessions", "2", "--edits", "2", "--rss-requests", "10", "--rounds", "1", "--trainers", "2"]
    r = run([sys.executable, "benchmarks/load.py", *small, "--train-calls", "1"], 300)
    out = json.loads(r.stdout)
    assert out["requests"] == 4 and out["train_requests"] == 2 and out["wrong"] == 0, out
    assert len(out["ratio_rounds"]) == len(out["anonymous_ratio_rounds"]) == 1 and out["ratio_to_floor"] > 0, out


def run_classroom(tmp: Path) -> None:
    out = tmp / "classroom.md"
    r = run([sys.executable, "benchmarks/classroom.py", "--sizes", "3", "--seconds", "2", "--extras", "1",
             "--out", str(out)], 300)  # fmt: skip
    rounds = json.loads(r.stdout.strip().splitlines()[-1])["rounds"]
    assert rounds[0]["learners"] == 3 and rounds[0]["edits"] > 0 and rounds[0]["wrong"] == 0, rounds
    assert "| 3 |" in out.read_text() and "p95 ÷ idle p95" in out.read_text()


def run_hostile(_: Path) -> None:
    args = ["benchmarks/hostile.py", "--anonymous", "8", "--largest", "0", "--over", "2"]  # test_hostile: all three
    r = run([sys.executable, *args], 300)
    for row in ("| anonymous | 8 |", "| over | 2 |"):
        assert row in r.stdout, r.stdout[-2000:]


def run_screens(tmp: Path) -> None:
    run([sys.executable, "benchmarks/screens.py", "--out", str(tmp)], 300)
    for name in ("screenshot", "phone", "change", "explain", "multi-head", "export"):
        assert (tmp / f"{name}.png").stat().st_size > 5_000, name


def run_fuzz(_: Path) -> None:
    args = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider"]
    args += ["tests/test_fuzz.py", "-k", "links", "--hypothesis-show-statistics"]
    r = run(args, 300, env={**os.environ, "FUZZ_EXAMPLES": "3"})
    assert " passed" in r.stdout and "Hypothesis Statistics" in r.stdout


QUICK: dict[str, Callable[[Path], None]] = {
    "python3 -m pip install -r requirements.txt && python3 playground.py": run_app,
    "bash .ci/install && python3 -m pytest -q": run_tests,
    "python3 benchmarks/bench.py": run_bench,  # the full run's smallest form is --quick
    "python3 benchmarks/bench.py --quick": run_bench,
    "python3 benchmarks/load.py": run_load,
    "python3 benchmarks/classroom.py": run_classroom,
    "python3 benchmarks/hostile.py": run_hostile,
    "python3 benchmarks/screens.py": run_screens,
    "FUZZ_EXAMPLES=2500 python3 -m pytest -n 0 tests/test_fuzz.py --hypothesis-show-statistics": run_fuzz,
}


def test_every_readme_command_is_known_here() -> None:
    unknown = [c for c in commands() if c not in QUICK]
    assert unknown == [], f"README commands this test cannot run: {unknown}"
    assert set(commands()) == set(QUICK), set(QUICK) - set(commands())  # and none of these left the README
    inline = re.findall(r"`(python3? [^`]*)`", re.sub(r"^```.*?^```", "", README, flags=re.S | re.M))
    assert [c for c in inline if c not in QUICK and c != "python playground.py"] == []


@pytest.mark.parametrize("command", sorted({c for c in QUICK if QUICK[c] is not run_bench} | {"bench"}))
def test_readme_command_runs(command: str, tmp_path: Path) -> None:
    (run_bench if command == "bench" else QUICK[command])(tmp_path)


def printed_runs(text: str) -> list[list[float]]:
    """Every run of numbers torch printed in ``text`` (one per tensor([[...]]))."""
    return [[float(x) for x in re.findall(r"-?\d+\.\d+", m)] for m in re.findall(r"tensor\(\[\[(.*?)\]\]", text, re.S)]


def test_the_compute_example_prints_what_seed_000_printed() -> None:
    code = next(b for b in blocks("python") if "ac.compute(" in b)
    r = run([sys.executable, "-c", code], 120)
    got = printed_runs(r.stdout)
    assert len(got) == 1 and len(got[0]) == 6
    assert got[0] in PRINTED_000  # the same six numbers, to the 4 decimals 000 printed
    claim = re.search(r"It prints `(tensor\(.*?\))`", README, re.S)
    assert claim and printed_runs(claim.group(1)) == got  # and the README says so


def test_the_gradio_client_example_against_a_running_app() -> None:
    code = next(b for b in blocks("python") if "gradio_client" in b)
    assert "http://127.0.0.1:7860/" in code
    with serve("playground.py") as url:
        r = run([sys.executable, "-c", code.replace("http://127.0.0.1:7860/", url)], 120)
    promised = re.search(r"print\(.*\)\s+# (.*)", code)
    assert promised and r.stdout.strip().splitlines()[-1] == promised.group(1).strip()  # after "Loaded as API"
