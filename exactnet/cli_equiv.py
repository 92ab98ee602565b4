"""Command ``exactnet equiv A B``: exact functional equivalence of two networks.

Exit 0 equivalent, 1 not equivalent, 2 error (raised as :class:`ExactnetError`).
``--json`` prints the verdict, the witness (canonical rational strings), both exact
outputs and the largest difference seen; ``-o CERT`` writes the EQUIVALENT or
NOT-EQUIVALENT certificate (not with ``--scale``). A NOT-EQUIVALENT certificate states the
witness, which lies in the box when ``--box`` is given. This supersedes the shallow-only ``equiv`` command.
"""

from __future__ import annotations

import argparse

from .cli_common import (
    add_json_flag,
    add_network_argument,
    box_option,
    check_outputs,
    load_network_arg,
    positive_int,
    positive_seconds,
    print_json,
    write_text_output,
)
from .equivalence import equivalent
from .errors import CertificateError
from .qq import q_str

__all__ = ["register", "result_to_json"]


def result_to_json(res) -> dict:
    """The JSON object printed by ``equiv --json``."""
    vec = lambda v: None if v is None else [q_str(x) for x in v]  # noqa: E731
    out = {
        "equivalent": res.equivalent,
        "verdict": "EQUIVALENT" if res.equivalent else "NOT-EQUIVALENT",
        "witness": vec(res.witness),
        "outputs": vec(res.outputs),
        "other_outputs": vec(res.other_outputs),
        "max_difference": q_str(res.max_difference),
        "cells": res.cells,
    }
    if res.scale is not None:
        out["scale"] = q_str(res.scale)
        out["scale_point"] = vec(res.scale_point)
    return out


def _cmd_equiv(args: argparse.Namespace) -> int:
    check_outputs([args.output], [args.a, args.b])
    a = load_network_arg(args, "a")
    b = load_network_arg(args, "b")
    box = box_option(args.box)
    if args.scale and args.output is not None:
        raise CertificateError("--scale answers carry no certificate (the kinds certify a = b only)")
    res = equivalent(a, b, box=box, scale=args.scale, timeout=args.timeout, max_cells=args.max_cells,
                     certificate=args.output is not None)
    if args.output is not None:
        if res.certificate_text is None:
            raise CertificateError("no certificate could be produced for this answer (certificate kinds missing)")
        write_text_output(args.output, res.certificate_text)
    if args.json:
        print_json(result_to_json(res))
    else:
        if res.equivalent:
            sc = f" (scale {q_str(res.scale)})" if res.scale is not None else ""
            print(f"EQUIVALENT{sc}")
        else:
            print("NOT-EQUIVALENT")
            print("witness " + " ".join(q_str(x) for x in res.witness))
            print("value " + " ".join(q_str(x) for x in res.outputs))
            print("other-value " + " ".join(q_str(x) for x in res.other_outputs))
    return 0 if res.equivalent else 1


def register(subparsers) -> None:
    """Add the ``equiv`` subcommand."""
    p = subparsers.add_parser("equiv", help="decide exactly whether two networks compute the same function")
    add_network_argument(p, "a", "first network file")
    add_network_argument(p, "b", "second network file")
    p.add_argument("--box", metavar="LO,HI", default=None, help="decide on the box [LO,HI]^n0 only")
    p.add_argument("--scale", action="store_true", help="equivalent up to a positive output scale c: A = c B")
    p.add_argument("--timeout", type=positive_seconds, default=None, help="seconds before giving up (exit 2)")
    p.add_argument("--max-cells", type=positive_int, default=None, help="most region cells before giving up (exit 2)")
    p.add_argument("-o", "--output", metavar="CERT", default=None, help="write the certificate here")
    add_json_flag(p)
    p.set_defaults(func=_cmd_equiv)
