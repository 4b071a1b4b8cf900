"""ruff and ESLint are part of the suite, so the README's one test command also lints the Python and the JS."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from browser import ROOT


def test_ruff_check_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr


# ESLint reads the page's JavaScript (ui/static/) as ruff reads the Python: eslint.config.js, pinned by package.json
# and package-lock.json, installed by .ci/install (npm ci).
ESLINT = ROOT / "node_modules" / ".bin" / "eslint"


def eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert ESLINT.is_file(), f"ESLint is not installed ({ESLINT} is missing): run `bash .ci/install` (it runs npm ci)"
    return subprocess.run(
        [str(ESLINT), "--max-warnings", "0", *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def test_eslint_is_clean() -> None:
    r = eslint()
    assert r.returncode == 0, r.stdout + r.stderr
    listed = eslint("--format", "json", "ui/static")
    names = {Path(f["filePath"]).name for f in json.loads(listed.stdout)}
    assert names >= {"grid.js", "scrub.js", "live.js", "room.js", "page.js", "morph.js"}


def test_eslint_refuses_a_global_on_window() -> None:
    """The page's modules share through page.js: a name put on window (or globalThis) is a lint error, however put."""
    probe = (
        "export function mount() {\n  window.apStray = 1;\n  window['apOther'] = 2;\n"
        "  Object.assign(window, { apThird: 3 });\n  globalThis.apFourth = 4;\n}\n"
    )
    r = eslint("--stdin", "--stdin-filename", "ui/static/probe.js", stdin=probe)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.count("No globals on window") == 4, r.stdout


def test_the_static_files_are_modules_that_put_nothing_on_window() -> None:
    """Read apart from ESLint: no file of ui/static/ assigns to window's properties, and each one is a module
    (it exports what the others or a component's hook use)."""
    assigned = re.compile(r"\b(window|globalThis)(\.\w+|\[[^\]]+\])\s*=(?!=)")
    for path in sorted((ROOT / "ui" / "static").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        assert not assigned.search(text), (path.name, assigned.search(text))
        assert re.search(r"^export ", text, re.M), f"{path.name} exports nothing"


def test_eslint_finds_an_undeclared_name_and_an_unused_one() -> None:
    """The config does not switch the rules off that catch names shared between files by accident."""
    probe = "const kept = 1;\nfunction shown() { return apStray + kept; }\n"
    r = eslint("--stdin", "--stdin-filename", "ui/static/probe.js", stdin=probe)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "'apStray' is not defined" in r.stdout and "'shown' is defined but never used" in r.stdout, r.stdout


def test_no_blanket_lint_disables() -> None:
    for path in sorted((ROOT / "ui" / "static").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        assert "eslint-disable" not in text and "eslint no-" not in text, path.name
    config = (ROOT / "eslint.config.js").read_text(encoding="utf-8")
    assert '"off"' not in config and "'off'" not in config and "ignores" not in config


# STYLE.md: no function over 80 lines, in the Python (read here) and in the JS (ESLint's max-lines-per-function).
MAX_LINES = 80


def long_functions(source: str) -> list[tuple[str, int]]:
    """The functions (and methods) of a Python source longer than MAX_LINES, from ``def`` to their last line."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_LINES:
                out.append((node.name, lines))
    return out


def test_no_python_function_is_over_80_lines() -> None:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0].startswith(".") or "node_modules" in rel.parts:
            continue
        if long := long_functions(path.read_text(encoding="utf-8")):
            found[str(rel)] = long
    assert not found, found
    probe = "def f() -> None:\n" + "    x = 1\n" * MAX_LINES
    assert long_functions(probe) == [("f", MAX_LINES + 1)]  # the check sees one


def test_eslint_refuses_a_js_function_over_80_lines() -> None:
    def probe(lines: int) -> str:  # a function of ``lines`` lines, from its header to its closing brace
        body = "  total += 1;\n" * (lines - 4)
        return f"export function probe() {{\n  let total = 0;\n{body}  return total;\n}}\n"

    fits = eslint("--stdin", "--stdin-filename", "ui/static/probe.js", stdin=probe(MAX_LINES))
    assert fits.returncode == 0, fits.stdout
    over = eslint("--stdin", "--stdin-filename", "ui/static/probe.js", stdin=probe(MAX_LINES + 1))
    assert over.returncode == 1 and "max-lines-per-function" in over.stdout, over.stdout


# a page-wide :has() (body:has(#x.y) or html:has(...), whose argument looks below the body's children) makes
# Chromium restyle the whole page at every DOM change: two such rules took a T=64, d=64, 8-head edit from 74 to
# 136 ms (style 3.9 -> 77.6 ms a frame, benchmarks/bench.py and a Chrome trace). A state of the page the CSS needs
# is mirrored on <body> as a class instead (explain.js ex-shut). Only body's own children may
# be asked about (body:has(> #lesson-bar)).
PAGE_WIDE_HAS = re.compile(r"\b(?:html|body)(?:[.#\w-]*):has\(\s*(?!>)")


def test_no_page_wide_has_selector_in_the_css() -> None:
    found = [
        f"{css.name}:{n}: {line.strip()[:80]}"
        for css in sorted((ROOT / "ui" / "static").glob("*.css"))
        for n, line in enumerate(css.read_text().splitlines(), 1)
        if PAGE_WIDE_HAS.search(line)
    ]
    assert found == [], found
    assert PAGE_WIDE_HAS.search("body:has(#explain.closed) td {}") and not PAGE_WIDE_HAS.search("body:has(> #x) a {}")
