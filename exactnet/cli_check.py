"""``exactnet check CERT [--network NET]``: run the independent checker ``proofs/check.py``."""

from __future__ import annotations

import argparse
import os
import stat

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


def run_check(args: argparse.Namespace) -> int:
    """Print the checker's verdict line and diagnostics; return its exit code (0/1/2/3)."""
    for path in [args.cert] + ([args.network] if args.network else []):
        why = _unreadable(path)
        if why:  # the checker's own format and exit code for an I/O error
            print(f"s NOT VERIFIED\nc line 0 E_IO: {why}")
            return 3
    argv = [_as_operand(args.cert)] + (["--network", _as_operand(args.network)] if args.network else [])
    return int(load_checker().main(argv))


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="verify a certificate with the independent checker in proofs/",
                              description="Exit codes: 0 verified, 1 rejected, 2 malformed, 3 usage or I/O error.")
    p.add_argument("cert", help="certificate file")
    p.add_argument("--network", help="exactnet-network/1 file the certificate must be about")
    p.set_defaults(func=run_check)
