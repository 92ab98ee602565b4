"""Writing files safely: never a half-written output.

:func:`atomic_write_text` and :func:`atomic_write_bytes` write to a temporary
file in the destination folder and rename it over the target only when the
whole content is there, so an error or an interrupt leaves no partial file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import ExactnetError

__all__ = ["atomic_write_text", "atomic_write_bytes", "existing_file"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file + rename)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ExactnetError(f"cannot write {target}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def existing_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or an error naming it when it is missing or a folder."""
    p = Path(path)
    if not p.exists():
        raise ExactnetError(f"file not found: {p}")
    if p.is_dir():
        raise ExactnetError(f"{p} is a folder, not a file")
    return p
