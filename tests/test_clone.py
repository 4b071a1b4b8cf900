"""A clone tests anywhere: a copy of the repository's files with no notebooks' text beside it collects every test
without an error, skips the checks against that text (saying why), and fails them when AP_REQUIRE_SEEDS=1, as in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import ROOT
from seed_text import REQUIRE_SEEDS

# what .gitignore leaves out (and git's own folder), for a copy of the repository that is no git checkout
SKIP = {".git", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", ".venv", "artifacts",
        ".whl", ".gl"}  # fmt: skip


def repository_files() -> list[str]:
    """The repository's files: git's (tracked, and new ones not ignored), or, in a copy without git, every file
    outside what .gitignore leaves out."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.split("\0")  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if not SKIP & set(p.relative_to(ROOT).parts)]
    return [name for name in listed if name]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files copied to a folder with nothing beside it."""
    copy = tmp_path_factory.mktemp("clone") / "attention-playground"
    for name in repository_files():
        if (ROOT / name).is_file():  # (a file deleted but not yet committed is listed too)
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    assert (
        not (copy.parent / "shared").exists()
        and (copy / "attention_core" / "notebooks" / "data" / "000.json").is_file()
    )
    return copy


def pytest_in(copy: Path, *args: str, require: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != REQUIRE_SEEDS} | ({REQUIRE_SEEDS: "1"} if require else {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *args],
        cwd=copy, capture_output=True, text=True, timeout=600, env=env, check=False,
    )  # fmt: skip


def test_the_files_without_git_are_the_files_git_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    listed = set(repository_files())
    monkeypatch.setenv("PATH", "")  # no git: the walk of the tree
    walked = {name for name in repository_files() if (ROOT / name).is_file()}
    assert {name for name in listed if (ROOT / name).is_file()} <= walked and "tests/test_clone.py" in walked


def test_a_copy_without_the_notebooks_text_collects_every_test(clone: Path) -> None:
    r = pytest_in(clone, "--co")
    tail = r.stdout.strip().splitlines()[-1]
    assert r.returncode == 0 and "error" not in tail, r.stdout[-3000:] + r.stderr[-3000:]
    # e.g. "1215 tests collected in 21.04s", or with the long forms left out "1985/1992 tests collected (7 deselected)"
    assert int(tail.split()[0].split("/")[0]) > 1000, tail


def test_a_copy_skips_the_checks_against_the_notebooks_text_saying_why(clone: Path) -> None:
    r = pytest_in(clone, "-rs", "tests/test_data_files.py", "-k", "seed_text")
    assert r.returncode == 0, r.stdout[-3000:]
    assert " skipped" in r.stdout and " failed" not in r.stdout and " passed" not in r.stdout, r.stdout[-3000:]
    assert "the notebooks' own text is not beside this copy of the repository" in r.stdout, r.stdout[-3000:]


def test_a_copy_fails_the_checks_against_the_notebooks_text_when_ci_requires_them(clone: Path) -> None:
    r = pytest_in(clone, "tests/test_data_files.py", "-k", "names_its_seed_text", require=True)
    assert r.returncode == 1 and "5 errors" in r.stdout, r.stdout[-3000:]  # the seeds fixture fails at setup
    assert f"{REQUIRE_SEEDS}=1 (as .ci/run sets it) requires it" in r.stdout, r.stdout[-3000:]
