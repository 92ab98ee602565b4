"""Subcommands ``graph``, ``plot``, ``depth`` and ``report``.

* ``exactnet graph NET -o FILE``: the breakpoint dependency graph (.json node-link,
  .graphml, .dot, .png by extension; without ``-o`` a summary, ``--json`` as JSON).
* ``exactnet plot NET -o FILE.png [--slice P0,P1,P2] [--graph] [--box LO,HI]``.
* ``exactnet depth NET [--json] [--certificate OUT]``: proven and generic bounds on
  the number of hidden layers; ``--certificate`` writes a NOT-SHALLOW certificate.
* ``exactnet report NET -o FILE.html``: one self-contained page.

Each takes ``--timeout S`` (wall clock, :func:`exactnet.cli_common.time_limit`): the analyses
behind them have no time bound of their own, so the whole command is stopped, with a one-line
error and no output file.
"""

from __future__ import annotations

import argparse
import sys

from .cli_common import (
    add_json_flag,
    add_network_argument,
    add_timeout_option,
    box_option,
    check_outputs,
    load_network_arg,
    print_json,
    slice_option,
    time_limit,
    write_text_output,
)
from .errors import FormatError

__all__ = ["register"]


def _graph_summary(G) -> dict:
    from .depgraph import apparent_layers, longest_bending_chain

    lab = lambda n: f"{n[0]}.{n[1] + 1}"  # noqa: E731
    return {
        "nodes": [{"neuron": lab(n), "layer": d["layer"], "visible": d["visible"], "visible_cells": d["visible_cells"]}
                  for n, d in G.nodes(data=True)],
        "edges": [{"from": lab(a), "to": lab(b), "bend": d["bend"], "witness": d["witness"]} for a, b, d in G.edges(data=True)],
        "longest_bending_chain": [lab(n) for n in longest_bending_chain(G)],
        "apparent_layers": {lab(n): v for n, v in apparent_layers(G).items()},
        "source": G.graph.get("source"),
        "box": G.graph.get("box"),
    }


def _cmd_graph(args: argparse.Namespace) -> int:
    with time_limit(args.timeout, "graph"):
        return _run_graph(args)


def _run_graph(args: argparse.Namespace) -> int:
    from .depgraph import dependency_graph, write_graph

    check_outputs([args.output], [args.network])
    net = load_network_arg(args)
    if args.faces:
        from .depgraph import face_graph

        F = face_graph(net, box=box_option(args.box))
        if args.output:
            if args.output.lower().endswith(".png"):
                raise FormatError("the face graph is exported as .json, .graphml or .dot")
            write_graph(F, args.output)
        summ_f = {"faces": F.number_of_nodes(), "edges": F.number_of_edges(), "output": args.output}
        if args.json:
            print_json(summ_f)
        else:
            print(f"face graph: {summ_f['faces']} faces, {summ_f['edges']} bend edges"
                  + (f"; wrote {args.output}" if args.output else ""))
        return 0
    G = dependency_graph(net, box=box_option(args.box))
    if args.output:
        write_graph(G, args.output)
    summ = _graph_summary(G)
    if args.json:
        print_json({"output": args.output, **summ})
    else:
        for e in summ["edges"]:
            print(f"B_{e['to']} bends along B_{e['from']}: bend {e['bend']} at ({e['witness']})")
        print(f"{len(summ['edges'])} edges; longest bending chain {' -> '.join(summ['longest_bending_chain']) or '(none)'}"
              + (f"; wrote {args.output}" if args.output else ""))
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    with time_limit(args.timeout, "plot"):
        return _run_plot(args)


def _run_plot(args: argparse.Namespace) -> int:
    from .plotting import plot_network

    check_outputs([args.output], [args.network])
    net = load_network_arg(args)
    if not args.output.lower().endswith(".png"):
        raise FormatError("plot writes PNG files: give -o FILE.png")
    plot_network(net, args.output, graph=args.graph, box=box_option(args.box),
                 slice_=slice_option(args.slice, net.input_dim))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _cmd_depth(args: argparse.Namespace) -> int:
    with time_limit(args.timeout, "depth"):
        return _run_depth(args)


def _run_depth(args: argparse.Namespace) -> int:
    from .depth import depth_report

    check_outputs([args.certificate], [args.network])
    net = load_network_arg(args)
    rep = depth_report(net, box=box_option(args.box))
    out = rep.to_json()
    if args.certificate:
        from .cert_depth import not_shallow_certificate

        write_text_output(args.certificate, not_shallow_certificate(net, rep.witness, box_option(args.box)))
        out["certificate"] = args.certificate
    if args.json:
        print_json(out)
    else:
        print(f"proven: at least {rep.proven_lower} hidden layer(s) ({rep.proven_reason})")
        print(f"generic: at least {rep.generic_lower} hidden layer(s) from the bending chain "
              f"{' -> '.join(out['longest_bending_chain']) or '(none)'} (only for representations whose bends are all visible)")
        print(f"upper: {rep.upper} hidden layer(s) suffice")
        if args.certificate:
            print(f"wrote the NOT-SHALLOW certificate to {args.certificate}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    with time_limit(args.timeout, "report"):
        return _run_report(args)


def _run_report(args: argparse.Namespace) -> int:
    from .report import write_report

    check_outputs([args.output], [args.network])
    net = load_network_arg(args)
    write_report(net, args.output, box=box_option(args.box))
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add the graph, plot, depth and report subcommands."""
    p = subparsers.add_parser("graph", help="breakpoint dependency graph (.json, .graphml, .dot, .png)")
    add_network_argument(p)
    p.add_argument("-o", "--output", help="output file; the format follows the extension")
    p.add_argument("--box", help="restrict to the box [LO,HI]^n0 (default: all of R^n0)")
    p.add_argument("--faces", action="store_true", help="the finer graph on the faces of the breakpoint complex")
    add_json_flag(p)
    add_timeout_option(p)
    p.set_defaults(func=_cmd_graph)

    p = subparsers.add_parser("plot", help="picture of the bent hyperplane arrangement (or --graph)")
    add_network_argument(p)
    p.add_argument("-o", "--output", required=True, help="PNG file")
    p.add_argument("--slice", help="n0 > 2: three points P0,P1,P2 (3*n0 comma-separated numbers) of a 2-D slice")
    p.add_argument("--graph", action="store_true", help="draw the dependency graph instead")
    p.add_argument("--box", help="draw the square [LO,HI]^2 (default: every vertex with a margin)")
    add_timeout_option(p)
    p.set_defaults(func=_cmd_plot)

    p = subparsers.add_parser("depth", help="proven (NOT-SHALLOW) and generic lower bounds on depth")
    add_network_argument(p)
    p.add_argument("--certificate", metavar="OUT", help="write a NOT-SHALLOW certificate (fails if none is found)")
    p.add_argument("--box", help="search box LO,HI (default: from the first layer)")
    add_json_flag(p)
    add_timeout_option(p)
    p.set_defaults(func=_cmd_depth)

    p = subparsers.add_parser("report", help="one self-contained HTML page on the network")
    add_network_argument(p)
    p.add_argument("-o", "--output", required=True, help="HTML file")
    p.add_argument("--box", help="box LO,HI for the analyses (default: automatic)")
    add_timeout_option(p)
    p.set_defaults(func=_cmd_report)
