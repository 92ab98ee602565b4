"""Command ``exactnet reduce NET -o SMALL.json``: an exactly equivalent smaller network.

Prints the steps taken (``--json``: architectures and steps); ``--certificate R.cert``
writes an EQUIVALENT certificate of input and output when the certificate kinds exist.
"""

from __future__ import annotations

import argparse

from .cli_common import add_json_flag, add_network_argument, check_outputs, load_network_arg, print_json, write_text_output
from .errors import CertificateError
from .netjson import dumps_network
from .reduce import reduce_network

__all__ = ["register"]


def _cmd_reduce(args: argparse.Namespace) -> int:
    check_outputs([args.output, args.certificate], [args.network])
    net = load_network_arg(args)
    res = reduce_network(net, certificate=args.certificate is not None)
    if args.certificate is not None and res.certificate_text is None:
        raise CertificateError("no certificate could be produced (certificate kinds missing)")
    write_text_output(args.output, dumps_network(res.network))
    if args.certificate is not None:
        write_text_output(args.certificate, res.certificate_text)
    if args.json:
        print_json({
            "architecture": list(net.architecture),
            "reduced_architecture": list(res.network.architecture),
            "steps": [{"kind": k, "layer": l, "neurons": idx} for k, l, idx in res.steps],
        })
    else:
        print(f"{','.join(map(str, net.architecture))} -> {','.join(map(str, res.network.architecture))}")
        for k, l, idx in res.steps:
            print(f"{k} layer {l} neurons {' '.join(map(str, idx))}")
    return 0


def register(subparsers) -> None:
    """Add the ``reduce`` subcommand."""
    p = subparsers.add_parser("reduce", help="an exactly equivalent network without removable neurons")
    add_network_argument(p)
    p.add_argument("-o", "--output", required=True, metavar="SMALL.json", help="write the reduced network here")
    p.add_argument("--certificate", metavar="CERT", default=None, help="write an EQUIVALENT certificate here")
    add_json_flag(p)
    p.set_defaults(func=_cmd_reduce)
