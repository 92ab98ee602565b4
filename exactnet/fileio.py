"""Writing files safely: never a half-written output.

:func:`atomic_write_text` and :func:`atomic_write_bytes` write to a temporary
file in the destination folder and rename it over the target only when the
whole content is there, so an error or an interrupt leaves no partial file. The file gets the
mode a plain ``open(path, "w")`` would give it (``0o666`` minus the umask; an existing file's mode).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

from .errors import FileAccessError

__all__ = ["atomic_write_text", "atomic_write_bytes", "existing_file", "read_input_bytes", "make_folder",
           "output_target"]


def make_folder(path: str | os.PathLike) -> Path:
    """Create the output folder ``path`` (and its parents) unless it exists; an error naming it when
    it cannot be one (a file in the way, no permission, a read-only or virtual file system)."""
    folder = Path(path)
    if not str(path):
        raise FileAccessError("cannot use an empty folder name")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FileAccessError(f"cannot create folder {folder}: a file of that name is in the way") from None
    except OSError as e:
        raise FileAccessError(f"cannot create folder {folder}: {e.strerror or e}") from None
    return folder


def output_target(path: str | os.PathLike) -> Path:
    """The file an output to ``path`` replaces, or an error naming ``path`` when it cannot be one.

    Symbolic links are followed (the file they point to is replaced, the link stays). The
    folder must exist, and an existing target must be a regular file: a folder, a device or
    a pipe cannot be replaced atomically (and replacing ``/dev/null`` would break it).
    """
    target = Path(path)
    if not str(path):
        raise FileAccessError("cannot write to an empty file name")
    if str(path).endswith(("/", os.sep)) and not target.is_dir():  # Path() drops the slash: "out.json/" wrote out.json
        raise FileAccessError(f"cannot write {path}: a name ending in '/' is a folder, not a file")
    real = Path(os.path.realpath(target))
    folder = real.parent
    if not folder.is_dir():
        raise FileAccessError(f"cannot write {target}: folder {target.parent} does not exist")
    if real.is_dir():
        raise FileAccessError(f"cannot write {target}: it is a folder")
    if real.exists() and not real.is_file():
        raise FileAccessError(f"cannot write {target}: not a regular file (outputs are written atomically)")
    return real


_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def _create_temp(target: Path) -> tuple[int, str]:
    """A new, exclusively created temporary file next to ``target``: ``(fd, name)``.

    Its mode is the one a plain ``open(target, "w")`` gives: ``0o666`` minus the umask, applied
    by the kernel when the file is created (``tempfile.mkstemp`` would fix ``0o600``, so every
    certificate came out unreadable to others), and the mode of ``target`` when it exists, whose
    bits ``open`` would keep. The umask is never read: ``os.umask`` can only be read by setting it,
    which is racy with threads, and ``/proc/self/status`` is Linux only; creating the file with
    the requested mode lets the kernel apply the umask in force. ``O_EXCL`` refuses an existing
    name (and a planted symbolic link), as ``mkstemp`` does.
    """
    try:
        mode = os.stat(target).st_mode & 0o777
    except OSError:
        mode = None
    for _ in range(100):
        name = os.path.join(target.parent, f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(name, _FLAGS, 0o666)
        except FileExistsError:
            continue
        if mode is not None and hasattr(os, "fchmod"):
            with contextlib.suppress(OSError):  # best effort, as the mode is no part of the content
                os.fchmod(fd, mode)
        return fd, name
    raise FileExistsError(errno.EEXIST, "no free temporary file name")


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file + rename), with the mode a plain ``open``
    would give (see :func:`_create_temp`)."""
    target = output_target(path)
    try:
        fd, tmp = _create_temp(target)
    except OSError as e:
        raise FileAccessError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise FileAccessError(f"cannot write {path}: {e.strerror or e}") from None
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def existing_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or an error naming it when it is missing, a folder or not a regular file.

    Binary network formats are read with seeks (zip archives, ``torch.load``), so a named pipe,
    a device or a socket is refused here: opening a pipe without a writer would wait forever, and
    ``/dev/zero`` would be read without end.
    """
    p = Path(path)
    if not p.exists():
        raise FileAccessError(f"file not found: {p}")
    if p.is_dir():
        raise FileAccessError(f"{p} is a folder, not a file")
    if not p.is_file():
        raise FileAccessError(f"{p} is not a regular file (a pipe, a device or a socket)")
    return p


#: Seconds a named pipe may stay without a writer before it is read as empty (never an endless wait).
PIPE_WRITER_WAIT = 10.0


def read_input_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of the input file ``path``, with one-line errors naming it.

    A regular file is read; so is a pipe: one with a writer (``<(command)``, ``/dev/stdin`` with
    something piped in) at once, a named pipe whose writer comes later once it does. The pipe is
    opened without blocking, so a named pipe that no writer opens within :data:`PIPE_WRITER_WAIT`
    seconds reads as empty instead of waiting forever. Devices (``/dev/zero``, a terminal) and
    sockets are refused, as they could be read without end.
    """
    import stat
    import time

    p = Path(path)
    nonblock = getattr(os, "O_NONBLOCK", 0)  # (not on Windows, which has no named pipes in its file system)
    try:
        fd = os.open(p, os.O_RDONLY | nonblock | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise FileAccessError(f"file not found: {p}") from None
    except IsADirectoryError:
        raise FileAccessError(f"{p} is a folder, not a file") from None
    except OSError as e:
        raise FileAccessError(f"cannot read {p}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise FileAccessError(f"{p} is a folder, not a file")
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise FileAccessError(f"{p} is not a regular file (a device or a socket)")
        if stat.S_ISFIFO(st.st_mode) and nonblock:
            # without a writer a non-blocking read returns b"" at once: wait for one to open the pipe;
            # with a writer it raises BlockingIOError until data comes: then block like any reader
            deadline = time.monotonic() + PIPE_WRITER_WAIT
            while True:
                try:
                    first = os.read(fd, 1 << 20)
                except BlockingIOError:  # a writer, no data yet
                    os.set_blocking(fd, True)
                    first = os.read(fd, 1 << 20)  # its data, or b"": it closed without writing
                    break
                if first or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            if not first:
                return b""
            os.set_blocking(fd, True)
            chunks = [first]
        else:
            chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise FileAccessError(f"cannot read {p}: {e.strerror or e}") from None
    finally:
        os.close(fd)
