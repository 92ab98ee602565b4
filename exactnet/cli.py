"""The ``exactnet`` command line.

``exactnet <command> [options]``; ``exactnet <command> --help`` explains each.
Every command that prints a result takes ``--json``. A user mistake prints
``exactnet: error: <one line>`` on stderr and exits 2; outputs are written
atomically. Option values may start with a minus sign (``--point -1/2,3``).

The core commands live here; the analyses register their own subcommands from
``exactnet/cli_<area>.py`` modules (each exposes ``register(subparsers)``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import Sequence

from . import __version__
from .cli_common import (
    STDIO,
    Deadline,
    add_json_flag,
    add_network_argument,
    check_output_folder,
    check_outputs,
    load_network_arg,
    print_json,
    shown,
    stdout_write,
    write_text_output,
)
from .errors import ExactnetError
from .netjson import dumps_network
from .qq import parse_vector, q_str

__all__ = ["main", "build_parser"]

#: Subcommand modules, in the order their commands appear in ``--help``.
COMMAND_MODULES = (
    "cli_convert",
    "cli_regions",
    "cli_graph",
    "cli_fdim",
    "cli_certify",
    "cli_check",
    "cli_shallow",
    "cli_extract",
    "cli_equiv",
    "cli_reduce",
    "cli_survey",
    "cli_search",
)

_NEG_VALUE = re.compile(r"-[0-9./]")


def _cmd_info(args: argparse.Namespace) -> int:
    net = load_network_arg(args)
    info = {
        "name": net.name,
        "architecture": list(net.architecture),
        "depth": net.depth,
        "hidden_layers": net.depth - 1,
        "parameters": net.num_parameters,
        "hidden_neurons": net.num_hidden,
        "bound_functional_dimension": net.num_parameters - net.num_hidden,
        "description": net.metadata.get("description"),
    }
    if args.json:
        print_json(info)
    else:
        print(f"network       {shown(net.name) if net.name else '(unnamed)'}")
        print(f"architecture  {','.join(map(str, net.architecture))}")
        print(f"parameters    D = {net.num_parameters}")
        print(f"hidden        N = {net.num_hidden} neurons in {net.depth - 1} hidden layers")
        print(f"bound         D - N = {net.num_parameters - net.num_hidden} (functional dimension at most this)")
        if info["description"]:
            print(f"about         {shown(str(info['description']))}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    net = load_network_arg(args)
    pts = [parse_vector(p, net.input_dim) for p in args.point]
    outs = net.evaluate_batch(pts)
    if args.json:
        if len(outs) == 1:
            print_json({"point": [q_str(v) for v in pts[0]], "output": [q_str(v) for v in outs[0]]})
        else:
            print_json(
                {"points": [[q_str(v) for v in p] for p in pts], "outputs": [[q_str(v) for v in o] for o in outs]}
            )
    else:
        for p, o in zip(pts, outs):
            print(f"f({','.join(q_str(v) for v in p)}) = {','.join(q_str(v) for v in o)}")
    return 0


def _cmd_canon(args: argparse.Namespace) -> int:
    from .symmetry import canonical_form

    check_outputs([args.output], [args.network], stdout_ok=True)
    net = load_network_arg(args)
    text = dumps_network(canonical_form(net))
    if args.output and args.output != STDIO:
        write_text_output(args.output, text)
        print(f"wrote the canonical form to {args.output}", file=sys.stderr)
    else:
        stdout_write(text)
    return 0


def _cmd_random(args: argparse.Namespace) -> int:
    from .randnet import random_network

    check_outputs([args.output], stdout_ok=True)
    net = random_network(args.arch, seed=args.seed, max_num=args.max_num, max_den=args.max_den)
    text = dumps_network(net)
    if args.output and args.output != STDIO:
        write_text_output(args.output, text)
        if args.json:
            print_json({"output": args.output, "architecture": list(net.architecture), "seed": args.seed})
    else:
        stdout_write(text)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    check_output_folder(args.output_dir)
    return run_demo(args)


class _Parser(argparse.ArgumentParser):
    """argparse with the project's error line: ``exactnet: error: <one line>``, exit 2.

    argparse's own format (the usage, then ``exactnet regions: error: ...``) takes several
    lines; subparsers are built with this class too (argparse passes the parser class on).
    """

    def error(self, message: str):  # type: ignore[override]
        msg = " ".join(message.split())
        self.exit(2, f"exactnet: error: {msg} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand."""
    parser = _Parser(
        prog="exactnet",
        description="Exact, certified answers about ReLU networks. Networks are JSON files "
        "(format exactnet-network/1) with rational weights; start with 'exactnet demo'.",
    )
    parser.add_argument("--version", action="version", version=f"exactnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("info", help="architecture, parameter and neuron counts")
    add_network_argument(p)
    add_json_flag(p)
    p.set_defaults(func=_cmd_info)

    p = sub.add_parser("eval", help="evaluate the network exactly at rational points")
    add_network_argument(p)
    p.add_argument("--point", action="append", required=True, metavar="X1,X2,...",
                   help="a point as comma-separated rationals (1/2, -3, 0.25); repeat for more points")
    add_json_flag(p)
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("canon", help="canonical form under permutation and positive scaling of neurons")
    add_network_argument(p)
    p.add_argument("-o", "--output", help="write the canonical network here (default, or -: stdout)")
    p.set_defaults(func=_cmd_canon)

    p = sub.add_parser("random", help="a seeded random network with small rational weights")
    p.add_argument("--arch", required=True, help="architecture, e.g. 2,3,3,1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-num", type=int, default=9, help="numerators in [-max-num, max-num] (default 9)")
    p.add_argument("--max-den", type=int, default=5, help="denominators in [1, max-den] (default 5; 1: integers)")
    p.add_argument("-o", "--output", help="output file (default, or -: stdout)")
    add_json_flag(p)
    p.set_defaults(func=_cmd_random)

    p = sub.add_parser("demo", help="run the main job on the built-in examples (takes seconds)")
    p.add_argument("--output-dir", default=None, help="where to write the demo's files (default: a temporary folder)")
    p.set_defaults(func=_cmd_demo)

    have = {n for n in COMMAND_MODULES if importlib.util.find_spec(f"exactnet.{n}") is not None}
    for name in COMMAND_MODULES:
        if name not in have:
            continue
        if name == "cli_shallow" and "cli_equiv" in have:
            continue  # the general 'equiv' dispatches to the shallow test itself
        mod = importlib.import_module(f"exactnet.{name}")
        mod.register(sub)
    return parser


def _fix_negative_values(argv: list[str]) -> list[str]:
    """Join ``--opt -1/2,3`` into ``--opt=-1/2,3`` so argparse accepts negative values."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if (
            tok.startswith("--")
            and "=" not in tok
            and i + 1 < len(argv)
            and _NEG_VALUE.match(argv[i + 1])
        ):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:  # parsing imports every command's module: an early Ctrl-C is an interrupt like any other
        args_list = _fix_negative_values(list(sys.argv[1:] if argv is None else argv))
        parser = build_parser()
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        if sys.stdout is not None:  # None: started with stdout closed (>&-)
            sys.stdout.flush()  # a full disk or closed pipe on stdout is reported here, not at exit
        return code
    except ExactnetError as e:
        msg = " ".join(str(e).split())
        print(f"exactnet: error: {msg}", file=sys.stderr)
        return 2
    except Deadline:  # a repeated alarm of cli_common.time_limit while its block was ending
        print("exactnet: error: timeout reached", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("exactnet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``exactnet ... | head``): not an error
        _discard_stdout()
        return 0
    except OSError as e:  # writing the standard output failed (a full disk, an I/O error)
        _discard_stdout()
        print(f"exactnet: error: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 2


def _discard_stdout() -> None:
    """Point the standard output at the null device, so that the interpreter's final flush of
    what could not be written fails no more (no "Exception ignored" report at exit)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no real file behind sys.stdout (tests capture it)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
