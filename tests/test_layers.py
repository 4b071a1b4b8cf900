"""The package's layers as a contract: import-linter (pyproject.toml [tool.importlinter]) keeps attention_core's layers
(validation < ops < pipeline < contract < notebooks < export | teaching), keeps ui on attention_core's public names and
serving off ui; and no module of attention_core reaches itself again through its imports (no cycle)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports")
    assert exe is not None, "lint-imports is not installed (requirements-dev.txt: import-linter)"
    env = {"PATH": str(Path(exe).parent), "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [exe, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_import_contracts_are_kept() -> None:
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in r.stdout, r.stdout[-3000:]


def test_an_upward_import_breaks_the_layers_contract(tmp_path: Path) -> None:
    """The contract is not vacuous: a copy of the tree where ops imports teaching, and one where ui imports a
    subpackage, each fail."""
    for name in ("attention_core", "ui", "serving"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    sdpa = tmp_path / "attention_core" / "ops" / "sdpa.py"
    sdpa.write_text(sdpa.read_text() + "\nfrom ..teaching import quiz  # noqa: E402, F401\n")
    labs = tmp_path / "ui" / "labs.py"
    labs.write_text(labs.read_text() + "\nfrom attention_core.ops import sdpa  # noqa: E402, F401\n")
    r = lint_imports(tmp_path)
    assert r.returncode != 0, r.stdout[-3000:]
    assert "Contracts: 1 kept, 2 broken." in r.stdout, r.stdout[-3000:]
    assert "attention_core.ops.sdpa -> attention_core.teaching.quiz" in r.stdout, r.stdout[-3000:]
    assert "ui.labs -> attention_core.ops.sdpa" in r.stdout, r.stdout[-3000:]


def test_attention_core_has_no_import_cycle() -> None:
    graph = grimp.build_graph("attention_core")
    cycles = []
    for m in sorted(graph.modules):
        for dep in sorted(graph.find_modules_directly_imported_by(m)):
            if dep != "attention_core" and graph.chain_exists(importer=dep, imported=m):
                cycles.append((m, *graph.find_shortest_chain(importer=dep, imported=m)))
    assert not cycles, cycles
