"""Subcommands ``regions`` and ``complex``: the exact polyhedral complex from the command line.

``exactnet regions NET [--json] [-o FILE] [--box LO,HI] [--slice P0;P1;P2] [--certificate OUT]
[--max-cells K] [--timeout S] [--quiet]`` and ``exactnet complex NET [-o FILE] [--json] ...``.
Outputs are written atomically: a limit (``--max-cells``, ``--timeout``) stops with a clear
message and leaves no partial file. A progress bar goes to stderr only when stderr is a terminal
and ``--quiet`` is not given.
"""

from __future__ import annotations

import argparse
import sys

from .cli_common import (
    add_json_flag,
    add_network_argument,
    box_option,
    check_outputs,
    load_network_arg,
    positive_int,
    positive_seconds,
    print_json,
    shown,
    slice_option,
    write_text_output,
)
from .regions import compute_regions
from .regions_json import complex_to_json, dumps_document, dumps_regions, regions_to_json

__all__ = ["register"]


def _progress(args):
    if getattr(args, "quiet", False) or not sys.stderr.isatty():
        return None

    def bar(done, total, nodes):
        width = 30
        fill = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] neurons {done}/{total}  cells {nodes}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return bar


def _compute(args):
    check_outputs([args.output, getattr(args, "certificate", None)], [args.network])
    net = load_network_arg(args)
    box = box_option(args.box)
    sl = slice_option(args.slice, net.input_dim)
    return compute_regions(net, box=box, slice_=sl, max_cells=args.max_cells, timeout=args.timeout, progress=_progress(args))


def _cmd_regions(args: argparse.Namespace) -> int:
    rc = _compute(args)
    cert_text = None
    if args.certificate:
        from .cert_regions import regions_certificate

        cert_text = regions_certificate(rc)
    if args.output:
        write_text_output(args.output, dumps_regions(rc))
    if cert_text is not None:
        write_text_output(args.certificate, cert_text)
    s = rc.summary()
    if args.json:
        if getattr(args, "cells", False):
            print_json(regions_to_json(rc))
        else:
            print_json({"format": "exactnet-regions/1", "architecture": list(rc.original.architecture), "summary": s})
    else:
        where = "R^%d" % rc.network.input_dim if rc.box is None else f"[{rc.box[0]}, {rc.box[1]}]^{rc.network.input_dim}"
        if rc.slice is not None:
            where = "the 2-D slice " + ("(box " + where + ")" if rc.box is not None else "")
        print(f"regions of {shown(rc.original.name) if rc.original.name else 'the network'} over {where}")
        print(f"cells           {s['cells']}")
        print(f"bounded cells   {s['bounded_cells']}")
        print(f"vertices        {s['vertices']}")
        print(f"linear regions  {s['linear_regions']}")
        if args.output:
            print(f"written         {args.output}")
        if args.certificate:
            print(f"certificate     {args.certificate}")
    return 0


def _cmd_complex(args: argparse.Namespace) -> int:
    rc = _compute(args)
    doc = complex_to_json(rc)  # once: the file and stdout share it (balancing, linear regions)
    if args.output:
        write_text_output(args.output, dumps_document(doc))
    if args.json:
        print_json(doc if not args.output else {"format": doc["format"], "summary": doc["summary"], "balancing": doc["balancing"]})
    else:
        s = doc["summary"]
        bal = doc["balancing"]
        print(f"faces           {s['faces']} ({s['visible_faces']} visible, {s['faces'] - s['visible_faces']} invisible)")
        print(f"linear regions  {s['linear_regions']}")
        if bal["dimension_supported"]:
            print(f"balancing       {'holds' if not bal['failed'] else 'FAILS'} at {bal['checked']} codimension-2 cells")
        else:
            print("balancing       not checked for this input dimension (jumps checked face by face)")
        if args.output:
            print(f"written         {args.output}")
    return 0 if not bal_failed(doc) else 1


def bal_failed(doc) -> bool:
    return bool(doc["balancing"]["failed"])


def _common(p: argparse.ArgumentParser) -> None:
    add_network_argument(p)
    add_json_flag(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the full JSON document to FILE")
    p.add_argument("--box", metavar="LO,HI", help="restrict to the box [LO,HI]^n0")
    p.add_argument("--slice", metavar="P0;P1;P2", help="the 2-D affine slice x = P0 + s(P1-P0) + t(P2-P0)")
    p.add_argument("--max-cells", type=positive_int, default=None, metavar="K", help="stop with an error beyond K cells")
    p.add_argument("--timeout", type=positive_seconds, default=None, metavar="S",
                   help="stop with an error after S seconds")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def register(subparsers) -> None:
    p = subparsers.add_parser("regions", help="exact activation regions (cells) over R^n0, a box or a 2-D slice")
    _common(p)
    p.add_argument("--cells", action="store_true", help="with --json: print every cell on stdout, not only the counts")
    p.add_argument("--certificate", metavar="OUT", help="write a REGIONS certificate to OUT")
    p.set_defaults(func=_cmd_regions)
    q = subparsers.add_parser("complex", help="weighted breakpoint complex of f (faces, jumps, balancing)")
    _common(q)
    q.set_defaults(func=_cmd_complex)
