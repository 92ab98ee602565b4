"""Shared pieces of the command line: loading networks, printing JSON, writing outputs,
validating option values and output paths, and bounding a command's wall-clock time.

Every subcommand module (``exactnet/cli_*.py``) exposes ``register(subparsers)``
and uses these helpers so that all commands read networks, print ``--json`` and
write files the same way (outputs checked before any work, written atomically, never a
partial file), and bad option values are refused when the arguments are read.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import math
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Iterable

from .errors import ExactnetError, FileAccessError, FormatError, LimitError, ShapeError, ValueRangeError
from .fileio import atomic_write_text, make_folder, output_target
from .netio import load_network
from .netjson import loads_network
from .network import Network
from .qq import parse_box, parse_vector

__all__ = [
    "STDIO",
    "read_stdin_bytes",
    "refuse_stdio",
    "shown",
    "stdout_write",
    "add_network_argument",
    "box_option",
    "slice_option",
    "load_network_arg",
    "print_json",
    "write_text_output",
    "add_json_flag",
    "check_outputs",
    "report_unwritten_outputs",
    "check_output_folder",
    "stage_line",
    "positive_seconds",
    "positive_int",
    "add_timeout_option",
    "time_limit",
    "Deadline",
]


#: The file name that means standard input for a network argument (an exactnet JSON network piped
#: in, as in ``exactnet random --arch 2,3,1 | exactnet certify -``) and standard output for the
#: outputs that are printed by default (``canon -o -``, ``random -o -``). Other outputs refuse it
#: rather than create a file named ``-``.
STDIO = "-"


def add_network_argument(parser: argparse.ArgumentParser, dest: str = "network", help: str | None = None) -> None:
    """Add a positional network file argument and the ``--float-mode`` option."""
    parser.add_argument(dest, metavar=dest.upper(),
                        help=help or "network file (.json, .npz, .pt, .onnx; - reads JSON from standard input)")
    if not any(a.dest == "float_mode" for a in parser._actions):
        parser.add_argument(
            "--float-mode",
            choices=("exact", "decimal"),
            default=None,
            help="how to turn floats of .npz/.pt/.onnx files into rationals: 'exact' (binary value) "
            "or 'decimal' (shortest repr)",
        )


def load_network_arg(args: argparse.Namespace, dest: str = "network") -> Network:
    """Load the network named by ``args.<dest>`` (:data:`STDIO`: an exactnet JSON network read
    from standard input, for one network argument of the command at most)."""
    name = getattr(args, dest)
    if name != STDIO:
        return load_network(name, float_mode=getattr(args, "float_mode", None))
    taken = getattr(args, "_stdin_taken_by", None)
    if taken is not None and taken != dest:
        raise FileAccessError("standard input ('-') can give only one of the networks")
    args._stdin_taken_by = dest
    return _network_from_stdin()


def read_stdin_bytes(what: str, hint: str) -> bytes:
    """Standard input's bytes for a ``-`` argument (``what`` it gives, e.g. "a network"); one
    error line when it is closed or a terminal (``hint``: what to do instead: never a wait for
    typing) or cannot be read."""
    stream = sys.stdin
    if stream is None or stream.closed:
        raise FileAccessError(f"'-' reads {what} from standard input, which is closed")
    try:
        if stream.isatty():
            raise FileAccessError(f"'-' reads {what} from standard input, but nothing is piped in ({hint})")
        raw = getattr(stream, "buffer", None)  # (a text stream without one: an embedding program's)
        return raw.read() if raw is not None else stream.read().encode("utf-8")
    except OSError as e:
        raise FileAccessError(f"cannot read standard input: {e.strerror or e}") from None


def _network_from_stdin() -> Network:
    data = read_stdin_bytes("a network", "give a file name, or pipe an exactnet JSON network")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("standard input is not UTF-8 text (only JSON networks can be piped in)") from None
    if not text.strip():
        raise FormatError("standard input is empty ('-' reads an exactnet JSON network from it)")
    try:
        return loads_network(text)
    except ExactnetError as e:
        raise type(e)(f"<stdin>: {e}") from None


def box_option(text: str | None):
    """``--box LO,HI`` as :func:`exactnet.qq.parse_box`'s pair ``(lo, hi)``, or None when not given
    (every command with ``--box`` reads it here)."""
    if text is None:
        return None
    v = parse_vector(text)
    if len(v) != 2:
        raise FormatError(f"--box expects LO,HI (two numbers), got {text!r}")
    try:
        return parse_box(v)
    except ValueRangeError:
        raise ValueRangeError(f"--box needs lo < hi, got {text!r}") from None


def slice_option(text: str | None, n0: int):
    """``--slice``: three points of ``n0`` coordinates, ``P0;P1;P2`` or flat (``3 n0`` numbers), or
    None when not given."""
    if text is None:
        return None
    if ";" in text:
        parts = text.split(";")
        if len(parts) != 3:
            raise FormatError(f"--slice expects three points P0;P1;P2, got {len(parts)}")
        return tuple(parse_vector(p, n0) for p in parts)
    v = parse_vector(text)
    if len(v) != 3 * n0:
        raise ShapeError(f"--slice expects three points of {n0} coordinates ({3 * n0} numbers) or P0;P1;P2, "
                         f"got {len(v)} numbers")
    return tuple(v[k * n0:(k + 1) * n0] for k in range(3))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def print_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    stdout_write(json.dumps(obj, indent=2, sort_keys=False) + "\n")


def refuse_stdio(path: str | None, what: str) -> None:
    """One error line when ``path`` is :data:`STDIO` where a real file or folder is needed (``what``
    names the option), instead of a file or folder named ``-``."""
    if path == STDIO:
        raise FileAccessError(f"'-' (standard input or output) is not available for {what}: give a path")


def shown(text: str) -> str:
    """``text`` from a network file, safe to print on a terminal: control characters (a newline, an
    escape sequence that would move the cursor or retitle the window) as backslash escapes."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def stdout_write(text: str) -> None:
    """Write to standard output; one error line when it is closed (``>&-``), not a traceback."""
    if sys.stdout is None:
        raise FileAccessError("standard output is closed")
    sys.stdout.write(text)


def write_text_output(path: str, text: str) -> None:
    """Write an output file atomically (:data:`STDIO`: print ``text`` on standard output, for
    the outputs :func:`check_outputs` allowed it)."""
    if path == STDIO:
        stdout_write(text)
        return
    atomic_write_text(path, text)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _identity(path: str | Path) -> tuple | None:
    """What tells a rewritten file from the one that was there: a new inode (atomic writes replace
    the file) or a new size or modification time (an append); None when nothing is there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


#: Outputs of the running command that already existed when they were checked:
#: ``(pid, [(name as given, real path, identity then)])``; see :func:`report_unwritten_outputs`.
_pending: tuple[int, list[tuple[str, Path, tuple]]] = (0, [])
_registered = False  # report_unwritten_outputs is registered with atexit


def report_unwritten_outputs() -> None:
    """One warning line on stderr for each output path that the command was asked to write, that
    held a file when the command started, and that still holds that same file: the command ended
    without writing it (UNDECIDED, an error, a timeout), and an old file is not this run's answer.
    Files are never deleted. Reports once: the list is emptied."""
    global _pending
    pid, outs = _pending
    _pending = (0, [])
    if pid != os.getpid():  # a forked worker inherits the list but is not the command
        return
    for name, real, before in outs:
        if _identity(real) == before:
            sys.stderr.write(f"exactnet: warning: {name} was not written; the file there is from an earlier run\n")
            sys.stderr.flush()


def check_outputs(outputs: Iterable[str | None], inputs: Iterable[str | None] = (), stdout_ok: bool = False) -> None:
    """Refuse, before any work, output paths that cannot be written or would clobber an input.

    Each output must be writable by :func:`exactnet.fileio.atomic_write_text` (its folder
    exists, it is not a folder or a device), two outputs must differ, and no output may be
    one of the input files. Checking first means that a command with two outputs never leaves
    the first behind when the second cannot be written.

    Every command checks its outputs here, so this is also where an output that already exists
    is remembered: when the process ends, :func:`report_unwritten_outputs` warns about those the
    command did not write (an old certificate left there silently could pass for this run's).
    It runs from :mod:`atexit`, the one place reached after every command without a hook in
    ``cli.main``; a caller that runs several commands in one process can call it after each
    (it reports once).

    :data:`STDIO` (``-``) is standard output when ``stdout_ok`` (a command with one output that
    it prints by default); otherwise it is refused, not taken as a file named ``-``.
    """
    global _pending, _registered
    _pending = (os.getpid(), [])  # the command now running is the one that checks its outputs
    seen: list[tuple[str, Path]] = []
    ins = [Path(p) for p in inputs if p]
    for out in outputs:
        if out is None:  # not asked for ("" is a name, refused by output_target)
            continue
        if out == STDIO:
            if not stdout_ok:
                refuse_stdio(out, "this output")
            continue
        real = output_target(out)
        for name, other in seen:
            if real == other:
                raise FileAccessError(f"{out} is given for two outputs ({name} and {out})")
        for src in ins:
            if real == Path(os.path.realpath(src)) or _same_file(real, src):
                raise FileAccessError(f"refusing to overwrite the input {src} with an output")
        seen.append((out, real))
    for out, real in seen:
        before = _identity(real)
        if before is not None:
            _pending[1].append((out, real, before))
    if _pending[1] and not _registered:
        _registered = True
        atexit.register(report_unwritten_outputs)


def check_output_folder(path: str | None) -> None:
    """An output folder must not be an existing file; it is created now when missing (before any
    work, so that a folder that cannot exist is reported at once: :func:`exactnet.fileio.make_folder`)."""
    refuse_stdio(path, "an output folder")
    if path == "":  # an empty name is not "no folder given"
        raise FileAccessError("cannot use an empty folder name")
    if path and Path(path).exists() and not Path(path).is_dir():
        raise FileAccessError(f"{path} is a file, not a folder")
    if path:
        make_folder(path)


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return v


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return v


# The longest interval ``signal.setitimer`` accepts everywhere (a C ``time_t`` of 32 bits); a longer
# ``--timeout`` (e.g. 1e10 s) is the same as no limit in practice and is armed as this.
MAX_TIMER = 2.0**31 - 1


class Deadline(BaseException):
    """Raised by the alarm of :func:`time_limit`; a BaseException, so that no ``except
    ExactnetError`` fallback inside the library (e.g. "regions failed, sample instead") can
    swallow it."""


def add_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--timeout S`` for a command whose library call has no time bound of its own."""
    parser.add_argument("--timeout", type=positive_seconds, default=None, metavar="S",
                        help="stop with an error after S seconds of wall-clock time (no output is written)")


@contextlib.contextmanager
def stage_line(name: str, quiet: bool):
    """A progress callback ``progress(stage)`` that shows ``name: stage ...`` on one line of a
    terminal's stderr, or None when ``quiet`` or stderr is not a terminal; the line is cleared when
    the block ends (also on an error)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return

    def progress(stage: str) -> None:
        sys.stderr.write(f"\r\033[K{name}: {stage} ...")
        sys.stderr.flush()

    try:
        yield progress
    finally:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str):
    """Run the block with a wall-clock limit: after ``seconds`` it stops with
    ``LimitError("timeout of S s reached (<what>)")``. Uses ``SIGALRM`` (Unix, main thread);
    elsewhere, or when ``seconds`` is None, the block runs unbounded. Outputs are written
    atomically (:mod:`exactnet.fileio`), so a stop leaves no partial file."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _alarm(signum, frame):
        raise Deadline

    old_hook = sys.unraisablehook

    def _unraisable(info):  # the alarm inside a finalizer or gc callback: no "Exception ignored" report
        if not isinstance(info.exc_value, Deadline):
            old_hook(info)

    old = signal.signal(signal.SIGALRM, _alarm)
    # After the first alarm it fires again every 0.05 s: an exception raised where Python ignores
    # it (a finalizer, a weakref callback) must not let the run go on; the next alarm stops it.
    sys.unraisablehook = _unraisable
    timed_out = False
    try:  # armed inside the try: a tiny limit may fire before the block starts
        signal.setitimer(signal.ITIMER_REAL, min(seconds, MAX_TIMER), 0.05)
        yield
    except Deadline:
        timed_out = True
    finally:
        while True:  # an alarm already pending may still arrive here: finish the clean-up anyway
            try:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
                sys.unraisablehook = old_hook
                break
            except Deadline:  # the block has ended: its outcome stands
                pass
    if timed_out:
        raise LimitError(f"timeout of {seconds:g} s reached ({what})")
