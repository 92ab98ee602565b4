"""Command ``exactnet equiv A B`` for one-hidden-layer pairs (exact, from the invariants).

Exit 0 equivalent, 1 not equivalent (with a rational witness where the outputs differ).
Deep pairs raise :class:`UndecidedError` (deep equivalence is not available in this module;
the general ``equiv`` of :mod:`exactnet.cli_equiv` supersedes this command when present).
"""

from __future__ import annotations

import argparse

from .cli_common import add_json_flag, add_network_argument, load_network_arg, print_json
from .errors import ShapeError, UndecidedError
from .qq import q_str
from .shallow import shallow_equivalent

__all__ = ["register", "equiv_result"]


def equiv_result(a, b) -> dict:
    """The JSON object of ``equiv --json`` for a one-hidden-layer pair."""
    if a.depth != 2 or b.depth != 2:
        raise UndecidedError("deep equivalence is not available yet: this command handles one hidden layer only")
    if a.input_dim != b.input_dim or a.output_dim != b.output_dim:
        raise ShapeError("the two networks have different input or output widths")
    res = shallow_equivalent(a, b)
    if res.equivalent:
        return {"equivalent": True}
    x = list(res.witness)
    return {"equivalent": False, "witness": [q_str(v) for v in x],
            "outputs": [q_str(v) for v in a.evaluate(x)], "other_outputs": [q_str(v) for v in b.evaluate(x)]}


def _cmd(args: argparse.Namespace) -> int:
    out = equiv_result(load_network_arg(args, "a"), load_network_arg(args, "b"))
    if args.json:
        print_json(out)
    elif out["equivalent"]:
        print("EQUIVALENT")
    else:
        print("NOT-EQUIVALENT")
        print("witness " + " ".join(out["witness"]))
        print("value " + " ".join(out["outputs"]))
        print("other-value " + " ".join(out["other_outputs"]))
    return 0 if out["equivalent"] else 1


def register(subparsers) -> None:
    """Add the ``equiv`` subcommand (one hidden layer)."""
    p = subparsers.add_parser("equiv", help="exact equivalence of two one-hidden-layer networks")
    add_network_argument(p, "a", "first network file")
    add_network_argument(p, "b", "second network file")
    add_json_flag(p)
    p.set_defaults(func=_cmd)
