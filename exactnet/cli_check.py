"""``exactnet check CERT [--network NET]``: run the independent checker ``proofs/check.py``."""

from __future__ import annotations

import argparse

from .certificate import load_checker

__all__ = ["register", "run_check"]


def run_check(args: argparse.Namespace) -> int:
    """Print the checker's verdict line and diagnostics; return its exit code (0/1/2/3)."""
    argv = [args.cert] + (["--network", args.network] if args.network else [])
    return int(load_checker().main(argv))


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="verify a certificate with the independent checker in proofs/",
                              description="Exit codes: 0 verified, 1 rejected, 2 malformed, 3 usage or I/O error.")
    p.add_argument("cert", help="certificate file")
    p.add_argument("--network", help="exactnet-network/1 file the certificate must be about")
    p.set_defaults(func=run_check)
