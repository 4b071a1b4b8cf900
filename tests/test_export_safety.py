"""Export files: a private folder per export, pruned only by its maker; a hostile title stays a comment."""

from __future__ import annotations

import ast
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

import attention_core as ac
from attention_core.export.notebook import to_notebook, to_script
from serving.export_folders import ExportFolders
from ui import pipeline, share

HOSTILE_TITLES = [
    'x"""\nimport os; os.system("touch pwned")\n"""',
    "ends in a backslash \\",
    "\\\"\"\" '''\r\nprint('escaped')",
    "nul \x00 and line\u2028separator",
]


def test_each_export_gets_its_own_private_unpredictable_folder() -> None:
    v = pipeline.load_values("statquest-self")[1]
    a = Path(share.export_files("statquest-self", v)[0]).parent
    b = Path(share.export_files("statquest-self", v)[0]).parent
    assert a != b and a.parent == b.parent == Path(tempfile.gettempdir())
    for folder in (a, b):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, oct(folder.stat().st_mode)
        assert folder in share.EXPORTS.made()
        shutil.rmtree(folder)  # this test's own


def test_pruning_removes_only_the_folders_this_object_made(tmp_path: Path) -> None:
    folders = ExportFolders(ttl_s=0.05, prefix="i12-test-")
    mine = folders.new()
    (mine / "attention.py").write_text("print(1)")
    foreign = Path(tempfile.mkdtemp(prefix="i12-test-"))  # same prefix, same place, not made by `folders`
    old = time.time() - 3600
    os.utime(foreign, (old, old))
    try:
        time.sleep(0.1)
        fresh = folders.new()
        assert not mine.exists() and fresh.is_dir() and foreign.is_dir()
        assert folders.made() == [fresh]
    finally:
        foreign.rmdir()
        folders.prune()
    assert folders.made() == [fresh] and fresh.is_dir()  # younger than the ttl: kept
    fresh.rmdir()


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_a_hostile_title_is_one_comment_line_in_the_script(title: str) -> None:
    s = ac.parse(ac.get_preset("statquest-self").scenario)
    script = to_script(s, title)
    tree = ast.parse(script)  # still valid Python
    assert ast.get_docstring(tree) is not None and title not in ast.get_docstring(tree)
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
    assert not any(isinstance(f.value, ast.Name) and f.value.id == "os" for f in calls)
    imports = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert imports == ["torch", "torch.nn.functional"], imports
    nb = nbformat.reads(to_notebook(s, title), as_version=4)
    for first in (script.splitlines()[0], nb.cells[0].source.splitlines()[0]):
        assert first.startswith("# ")
        assert unescape(first[2:]) == title  # the whole title, on one line, recoverable


def unescape(shown: str) -> str:
    """A title line back to the title: printable ones are as they are, the rest are a repr."""
    return ast.literal_eval(shown) if shown.startswith(("'", '"')) else shown


def test_a_printable_title_is_written_as_it_is() -> None:
    s = ac.parse(ac.get_preset("statquest-self").scenario)
    title = ac.get_preset("statquest-self").title
    assert to_script(s, title).splitlines()[0] == f"# {title}"
    assert nbformat.reads(to_notebook(s, title), as_version=4).cells[0].source.startswith(f"# {title}\n")
