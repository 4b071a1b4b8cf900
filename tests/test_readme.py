"""Every command and snippet in README.md and docs/*.md runs, in its smallest form, and their claims hold (the
load benchmarks' and the screenshots' smoke runs are long forms: ``LONG``, run by ``pytest -m long``).

Commands are found by parsing the pages' fenced ``bash`` and ``python`` blocks; each shell command must be one this
file knows how to run quickly, so a new command in any page cannot go untested, and a command that drifts from
the code fails here. Every link to a file resolves (and its #anchor names a heading of that page), and the README
stays a front page of at most 120 lines. The pages are globbed: a page added to docs/ is covered as it lands.
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

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = {page: page.read_text(encoding="utf-8") for page in PAGES}
README = TEXT[ROOT / "README.md"]
# what seed 000 printed, as attention_core/notebooks/data/000.json holds it (test_data_files.py holds it to its text)
PRINTED_000 = [[v for row in pr.values for v in row] for p in ac.all_presets() if p.source.startswith("000")
               for pr in p.printed]  # fmt: skip
# Pages other branches create, linked before they land: a link to one may be missing, never wrong once it is there.
PENDING = {ROOT / "docs" / "contract.md"}  # the scenario's keys, generated from the code


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(lang: str, pages: list[Path] = PAGES) -> list[str]:
    """Every fenced ``lang`` block of ``pages`` (all of them unless told)."""
    return [b for page in pages for b in re.findall(rf"^```{lang}\n(.*?)^```", TEXT[page], flags=re.S | re.M)]


def commands() -> list[str]:
    """Every shell command of the pages' bash blocks (comments dropped)."""
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
        "Scrub rate | bare page",
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
             "--idle-edits", "10", "--out", str(out)], 300)  # fmt: skip
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


def run_room(tmp: Path) -> None:
    out = tmp / "room.md"
    small = ["--followers", "3", "--edits", "2", "--learners", "2", "--seconds", "2", "--idle", "5", "--browsers", "1",
             "--idle-edits", "10"]  # fmt: skip
    r = run([sys.executable, "benchmarks/room.py", *small, "--out", str(out)], 600)
    assert "| teacher edit → follower has it, 3 followers |" in out.read_text(), out.read_text()
    assert "painted on 1 real Chromium followers' screens" in out.read_text(), out.read_text()
    assert json.loads(r.stdout.strip().splitlines()[-1]), r.stdout[-2000:]


def run_room_replicas(tmp: Path) -> None:
    out = tmp / "room-redis.md"
    small = ["--followers", "3", "--edits", "2", "--browsers", "1", "--out", str(out)]
    run([sys.executable, "benchmarks/room.py", "--replicas", "2", *small], 600)
    assert "| teacher edit → follower has it, 3 followers |" in out.read_text(), out.read_text()
    assert "Redis, 2 replicas" in out.read_text()


def run_answer_size(_: Path) -> None:
    r = run([sys.executable, "benchmarks/answer_size.py"], 300)
    assert "| default |" in r.stdout and "| large |" in r.stdout, r.stdout[-2000:]


def run_contract(_: Path) -> None:
    """The contract page's own command: its output is the page, as committed (nothing to regenerate)."""
    r = run([sys.executable, "-m", "attention_core.contract.keys"], 120)
    assert r.stdout == (ROOT / "docs" / "contract.md").read_text(encoding="utf-8"), r.stdout[:2000]


def run_long(_: Path) -> None:
    """The long forms' command collects them, and only them: every load benchmark's and the screenshots' smoke run
    (LONG), and present mode's walk at 1920×1080 of every preset (running them is that command itself)."""
    args = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--collect-only", "-m", "long"]
    r = run([*args, "tests/test_readme.py", "tests/test_journey_projector.py"], 120)
    got = sorted(ln for ln in r.stdout.splitlines() if "::" in ln)
    want = [f"tests/test_readme.py::test_readme_command_runs[{c}]" for c in one_command_a_check() if QUICK[c] in LONG]
    want.append("tests/test_journey_projector.py::test_every_stage_of_every_preset_shows_its_cards_and_their_inputs_"
                "whole[1080p-every]")  # fmt: skip
    assert got == sorted(want), r.stdout[-2000:]


def by_test(path: str, k: str) -> Callable[[Path], None]:
    """A command a test of its own runs as the page shows it (the classroom command, two replicas on Redis)."""

    def check(_: Path) -> None:
        r = run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", path, "-k", k], 600)
        assert " passed" in r.stdout and " skipped" not in r.stdout, r.stdout[-2000:]

    return check


REPLICAS = by_test("tests/test_room_redis.py", "two_replicas_stores_share")

QUICK: dict[str, Callable[[Path], None]] = {
    "python3 -m pip install -r requirements.txt && python3 playground.py": run_app,
    "bash .ci/install && python3 -m pytest -q": run_tests,
    "python3 benchmarks/bench.py": run_bench,  # the full run's smallest form is --quick
    "python3 benchmarks/bench.py --quick": run_bench,
    "python3 benchmarks/load.py": run_load,
    "python3 benchmarks/classroom.py": run_classroom,
    "python3 benchmarks/hostile.py": run_hostile,
    "python3 benchmarks/screens.py": run_screens,
    "python3 benchmarks/room.py": run_room,
    "python3 benchmarks/room.py --replicas 2": run_room_replicas,
    "python3 benchmarks/answer_size.py": run_answer_size,
    "python3 -m attention_core.contract.keys > docs/contract.md": run_contract,
    "python3 playground.py --classroom": by_test("tests/test_room_server.py", "classroom_command"),
    'redis-server --port 6379 --save "" --appendonly no': REPLICAS,
    "AP_ROOMS_REDIS=redis://127.0.0.1:6379/0 GRADIO_SERVER_PORT=7861 python3 playground.py": REPLICAS,
    "AP_ROOMS_REDIS=redis://127.0.0.1:6379/0 GRADIO_SERVER_PORT=7862 python3 playground.py": REPLICAS,
    "FUZZ_EXAMPLES=2500 python3 -m pytest -n 0 tests/test_fuzz.py --hypothesis-show-statistics": run_fuzz,
    "python3 -m pytest -m long": run_long,
}


def test_every_readme_command_is_known_here() -> None:
    unknown = [c for c in commands() if c not in QUICK]
    assert unknown == [], f"commands in README.md or docs/ this test cannot run: {unknown}"
    prose = "".join(re.sub(r"^```.*?^```", "", TEXT[page], flags=re.S | re.M) for page in PAGES)
    inline = re.findall(r"`(python3? [^`]*)`", prose)
    assert [c for c in inline if c not in QUICK and c != "python playground.py"] == []
    shown = set(commands()) | set(inline)
    assert shown >= set(QUICK), set(QUICK) - shown  # and none of these left the pages
    assert blocks("bash", [ROOT / "README.md"]) == [  # the front page's two commands, exactly
        "python3 -m pip install -r requirements.txt && python3 playground.py\n",
        "bash .ci/install && python3 -m pytest -q\n",
    ]


# Every fenced block of every page is run by a test: bash by the commands above, python and json by these.
RUN_BY = {
    "python": {"ac.compute(": "test_readme.py", "gradio_client": "test_readme.py", "/model_attention": "test_mcp.py"},
    "json": {"mcpServers": "test_mcp.py"},
}


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_code_block_is_one_a_test_runs(page: Path) -> None:
    fences = re.findall(r"^```(\w*)\n(.*?)^```", TEXT[page], flags=re.S | re.M)
    for lang, body in fences:
        assert lang in ("bash", *RUN_BY), f"{name(page)}: a ```{lang} block no test runs:\n{body}"
        if lang in RUN_BY:
            assert any(marker in body for marker in RUN_BY[lang]), f"{name(page)}: no test runs this block:\n{body}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#{1,6} (.*)$", TEXT.get(page) or page.read_text(encoding="utf-8"), re.M)}


def local_links(page: Path) -> list[str]:
    """Every link and image target of ``page`` that is no web address (code blocks and inline code left out)."""
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", TEXT[page], flags=re.S | re.M))
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [t for t in targets if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_link_to_a_file_resolves(page: Path) -> None:
    for link in local_links(page):  # (a page may link nowhere: a generated table, say)
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if target in PENDING and not target.exists():
            continue
        assert target.is_file(), f"{name(page)}: {link} names no file"
        if anchor:
            assert target.suffix == ".md" and anchor in anchors(target), f"{name(page)}: {link} names no heading"


def test_the_link_checker_fails_on_a_missing_file_and_a_wrong_anchor(tmp_path: Path) -> None:
    page = ROOT / "docs" / "api.md"
    assert "no-such-heading" not in anchors(page) and "the-compute-contract" in anchors(page)
    assert slug("A real model: all-MiniLM-L6-v2, step by step") == "a-real-model-all-minilm-l6-v2-step-by-step"
    assert slug("What `bench.py` measures") == "what-benchpy-measures"
    assert local_links_of("see [x](a.md#b), `[y](c.md)`, [z](https://x.org)") == ["a.md#b"]


def local_links_of(text: str) -> list[str]:
    page = ROOT / "docs" / "_probe.md"
    TEXT[page] = text
    try:
        return local_links(page)
    finally:
        del TEXT[page]


def test_the_readme_is_a_front_page() -> None:
    lines = README.splitlines()
    assert len(lines) <= 120, f"README.md is {len(lines)} lines: move the rest into docs/"
    front = README.split("---\n")[1]  # the Hugging Face Spaces configuration, first in the file
    assert README.startswith("---\ntitle: Attention Playground\n") and "sdk: gradio" in front
    assert "app_file: playground.py" in front and "sdk_version: 6.31.0" in front
    assert README.count("](docs/screenshot.png)") == 1  # one screenshot
    for page in ("workbench", "teaching", "api", "architecture", "operations", "benchmarks"):  # one per reader
        assert f"](docs/{page}.md)" in README, f"the README links no docs/{page}.md"


@pytest.mark.parametrize("page", PAGES[1:], ids=name)
def test_every_docs_page_is_linked_from_another_page(page: Path) -> None:
    linked = {(p.parent / link.partition("#")[0]).resolve() for p in PAGES if p != page for link in local_links(p)}
    assert page in linked, f"no page links {name(page)}: a reader cannot find it"
    for reader in ("**As a learner**", "**As a teacher**", "**As an engineer**"):
        assert reader in README
    assert "shared/seeds" not in README  # a folder a reader of the repository does not have
    for credit in ("Attention in Transformers: Concepts and Code in PyTorch", "lakhanrajpatlolla/aiml-learning",
                   "Self_Attention_for_Tfr", "Build a Large Language Model (From Scratch)"):  # fmt: skip
        assert credit in README, credit


def one_command_a_check() -> list[str]:
    """The first command (in sorted order) of each check: a check that several commands share (bench.py's two forms,
    the three commands of two replicas on Redis) runs once for them all."""
    first: dict[Callable[[Path], None], str] = {}
    for command in sorted(QUICK):
        first.setdefault(QUICK[command], command)
    return sorted(first.values())


# The load benchmarks' and the screenshots' smoke runs are long forms (pyproject.toml's marker ``long``: each starts
# servers and browsers of its own, 45-90 s, 7 minutes of the suite in all): run on their own, `pytest -m long`
LONG = {run_load, run_classroom, run_hostile, run_screens, run_room, run_room_replicas}


@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=pytest.mark.long) if QUICK[c] in LONG else c for c in one_command_a_check()]
)
def test_readme_command_runs(command: str, tmp_path: Path) -> None:
    QUICK[command](tmp_path)


def printed_runs(text: str) -> list[list[float]]:
    """Every run of numbers torch printed in ``text`` (one per tensor([[...]]))."""
    return [[float(x) for x in re.findall(r"-?\d+\.\d+", m)] for m in re.findall(r"tensor\(\[\[(.*?)\]\]", text, re.S)]


def test_the_compute_example_prints_what_seed_000_printed() -> None:
    code = next(b for b in blocks("python") if "ac.compute(" in b)
    r = run([sys.executable, "-c", code], 120)
    got = printed_runs(r.stdout)
    assert len(got) == 1 and len(got[0]) == 6
    assert got[0] in PRINTED_000  # the same six numbers, to the 4 decimals 000 printed
    claim = re.search(r"It prints `(tensor\(.*?\))`", "".join(TEXT.values()), re.S)
    assert claim and printed_runs(claim.group(1)) == got  # and the README says so


def test_the_gradio_client_example_against_a_running_app(app_url: str) -> None:
    code = next(b for b in blocks("python") if "gradio_client" in b)
    assert "http://127.0.0.1:7860/" in code
    r = run([sys.executable, "-c", code.replace("http://127.0.0.1:7860/", app_url)], 120)
    promised = re.search(r"print\(.*\)\s+# (.*)", code)
    assert promised and r.stdout.strip().splitlines()[-1] == promised.group(1).strip()  # after "Loaded as API"
