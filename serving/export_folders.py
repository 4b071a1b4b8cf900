"""Private folders for exported files: one ``tempfile.mkdtemp`` per export, pruned only by the process that made it.

Each export gets a fresh folder with an unpredictable name, created with mode 0700 (``mkdtemp``), so no other user
of a shared ``/tmp`` can guess, pre-create or read it. Folders are remembered as they are made; pruning removes only
those, once older than the time to live, never a path found by listing a shared directory.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path


class ExportFolders:
    """Makes one private folder per export and removes the ones it made after ``ttl_s`` seconds."""

    def __init__(self, ttl_s: float, prefix: str = "attention-export-") -> None:
        self.ttl_s = ttl_s
        self.prefix = prefix
        self._made: dict[Path, float] = {}  # folder -> time.monotonic() when made
        self._lock = threading.Lock()  # handlers run on several worker threads

    def new(self) -> Path:
        """Prune this process's expired folders, then make a fresh private one."""
        self.prune()
        folder = Path(tempfile.mkdtemp(prefix=self.prefix))
        with self._lock:
            self._made[folder] = time.monotonic()
        return folder

    def prune(self) -> list[Path]:
        """Remove the folders this object made that are older than ``ttl_s``; returns them."""
        now = time.monotonic()
        with self._lock:
            old = [p for p, made in self._made.items() if now - made >= self.ttl_s]
            for p in old:
                del self._made[p]
        for p in old:
            shutil.rmtree(p, ignore_errors=True)
        return old

    def made(self) -> list[Path]:
        """The folders made and not yet pruned, oldest first."""
        with self._lock:
            return list(self._made)
