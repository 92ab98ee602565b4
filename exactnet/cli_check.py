"""``exactnet check CERT [--network NET]``: run the independent checker ``proofs/check.py``.

Either file (not both) may be ``-``: it is read from standard input into a temporary file that the
checker reads like any other (the checker itself takes file names only).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile

from .certificate import load_checker

__all__ = ["register", "run_check"]


def _unreadable(path: str) -> str | None:
    """Why the checker cannot read ``path`` without waiting or reading forever, or None.

    The checker reads whole files: a named pipe without a writer would block it forever and a
    device such as ``/dev/zero`` would never end, so only regular files (or missing ones and
    folders, which the checker reports itself) are handed to it. ``-`` is no file name here.
    """
    if path == "-":
        return "'-' (standard input) is not supported: give the file's name"
    try:
        st = os.stat(path)
    except OSError:
        return None  # missing or not accessible: the checker says so (E_IO)
    if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
        return None
    return f"{path} is not a regular file (a pipe, a device or a socket)"


def _as_operand(path: str) -> str:
    """``path`` spelled so that the checker cannot take it for an option (a file named ``-x``)."""
    return os.path.join(".", path) if path.startswith("-") else path


def _stdin_copy(folder: str) -> tuple[str | None, str | None]:
    """``(path of a copy of standard input in folder, None)``, or ``(None, why it cannot be read)``."""
    stream = sys.stdin
    if stream is None or stream.closed:
        return None, "'-' reads standard input, which is closed"
    try:
        if stream.isatty():
            return None, "'-' reads standard input, but nothing is piped in: give a file name or pipe the file"
        data = stream.buffer.read()
    except OSError as e:
        return None, f"cannot read standard input: {e.strerror or e}"
    path = os.path.join(folder, "stdin")
    with open(path, "wb") as f:
        f.write(data)
    return path, None


def run_check(args: argparse.Namespace) -> int:
    """Print the checker's verdict line and diagnostics; return its exit code (0/1/2/3)."""
    cert, network = args.cert, args.network
    with tempfile.TemporaryDirectory(prefix="exactnet-check-") as folder:
        why = "'-' (standard input) can give only one of the two files" if cert == network == "-" else None
        if why is None and "-" in (cert, network):
            copy, why = _stdin_copy(folder)
            cert, network = (copy if cert == "-" else cert), (copy if network == "-" else network)
        for path in [cert] + ([network] if network else []):
            why = why or _unreadable(path)
        if why:  # the checker's own format and exit code for an I/O error
            print(f"s NOT VERIFIED\nc line 0 E_IO: {why}")
            return 3
        argv = [_as_operand(cert)] + (["--network", _as_operand(network)] if network else [])
        return int(load_checker().main(argv))


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="verify a certificate with the independent checker in proofs/",
                              description="Exit codes: 0 verified, 1 rejected, 2 malformed, 3 usage or I/O error.")
    p.add_argument("cert", help="certificate file (- reads it from standard input)")
    p.add_argument("--network", help="exactnet-network/1 file the certificate must be about (- reads it from "
                   "standard input)")
    p.set_defaults(func=run_check)
