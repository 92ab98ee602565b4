"""``exactnet check CERT [--network NET]``: run the independent checker ``proofs/check.py``.

The checker reads regular files by name. Anything else is read here first and handed to it as a
copy in a temporary folder: ``-`` (standard input, for one of the two files) and pipes such as
``<(command)`` or ``/dev/stdin``, read without an endless wait (:func:`exactnet.fileio.read_input_bytes`;
devices and sockets are refused). What cannot be read is reported in the checker's own format:
``s NOT VERIFIED`` and an ``E_IO`` line, exit code 3.
"""

from __future__ import annotations

import argparse
import os
import stat
import tempfile

from .certificate import load_checker
from .cli_common import STDIO, read_stdin_bytes
from .errors import FileAccessError
from .fileio import read_input_bytes

__all__ = ["register", "run_check"]


def _for_checker(path: str, folder: str, name: str) -> str:
    """A name the checker can read for ``path``: ``path`` itself when it is a regular file, a folder or
    missing (the checker reports those), else a copy of its bytes in ``folder``; FileAccessError
    when they cannot be read, or a pipe or standard input gives none."""
    if path == STDIO:
        data = read_stdin_bytes("a file", "give the file's name, or pipe the file")
        if not data:
            raise FileAccessError("standard input is empty")
    else:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return path
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return path
        data = read_input_bytes(path)
        if not data:
            raise FileAccessError(f"{path} is empty (a pipe without data)")
    copy = os.path.join(folder, name)
    with open(copy, "wb") as f:
        f.write(data)
    return copy


def _as_operand(path: str) -> str:
    """``path`` spelled so that the checker cannot take it for an option (a file named ``-x``)."""
    return os.path.join(".", path) if path.startswith("-") else path


def run_check(args: argparse.Namespace) -> int:
    """Print the checker's verdict line and diagnostics; return its exit code (0/1/2/3)."""
    with tempfile.TemporaryDirectory(prefix="exactnet-check-") as folder:
        try:
            if args.cert == args.network == STDIO:
                raise FileAccessError("'-' (standard input) can give only one of the two files")
            cert = _for_checker(args.cert, folder, "certificate")
            network = _for_checker(args.network, folder, "network.json") if args.network else None
        except FileAccessError as e:  # the checker's own format and exit code for an I/O error
            print(f"s NOT VERIFIED\nc line 0 E_IO: {e}")
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
