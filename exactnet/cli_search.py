"""``exactnet search --arch A --property P --seed S -o FOLDER``: certified counterexamples, shrunk."""

from __future__ import annotations

import argparse

from .cli_common import add_json_flag, check_output_folder, positive_int, print_json

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from .search import search

    check_output_folder(args.output)
    found = search(args.arch, args.property, seed=args.seed, tries=args.tries, hits=args.hits,
                   output=args.output, max_num=args.max_num, max_den=args.max_den)
    used = found[-1]["try"] + 1 if len(found) >= args.hits else args.tries  # the search stops at the last hit
    if args.json:
        print_json({"property": args.property, "tries": used, "hits": found})
    else:
        print(f"{len(found)} hit(s) for {args.property} in {used} tries")
        for rec in found:
            print(f"  try {rec['try']}: {rec['mechanism']}" + (f"  files: {', '.join(rec['files'])}" if "files" in rec else ""))
    return 0 if found else 1


def register(sub: argparse._SubParsersAction) -> None:
    from .search import PROPERTIES

    p = sub.add_parser("search", help="seeded search for certified counterexamples, shrunk to small numbers")
    p.add_argument("--arch", required=True)
    p.add_argument("--property", required=True, choices=PROPERTIES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tries", type=positive_int, default=200)
    p.add_argument("--hits", type=positive_int, default=1)
    p.add_argument("--max-num", type=int, default=4)
    p.add_argument("--max-den", type=int, default=3)
    p.add_argument("-o", "--output", help="folder for the hits and their certificates")
    add_json_flag(p)
    p.set_defaults(func=_run)
