"""``exactnet certify NET [-o CERT] [--json]``: the identifiability verdict with its certificate.

Exit codes: 0 a verdict was proved (``IDENTIFIABLE``, ``LOCALLY-IDENTIFIABLE`` or
``HIDDEN-SYMMETRY``) and its certificate passed the independent checker; 1 ``UNDECIDED``
(the reason is printed; this says nothing about the network); 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from .cli_common import add_json_flag, add_network_argument, check_outputs, load_network_arg, print_json, write_text_output

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from .certify import certify

    check_outputs([args.output, args.theta_prime], [args.network])
    net = load_network_arg(args)
    res = certify(net)
    if args.output and res.certificate is not None:
        write_text_output(args.output, res.certificate)
    if args.theta_prime and res.other is not None:
        from .netjson import dumps_network

        write_text_output(args.theta_prime, dumps_network(res.other))
    if args.json:
        out = res.to_json()
        out["certificate_file"] = args.output if (args.output and res.certificate) else None
        print_json(out)
    else:
        print(f"verdict: {res.verdict}")
        if res.mechanism:
            print(f"mechanism: {res.mechanism}")
        print(f"reason: {res.reason}")
        if args.output:
            if res.certificate is not None:
                print(f"certificate written to {args.output} (check it with: exactnet check {args.output} --network {args.network})")
            else:
                print("no certificate: nothing was proved", file=sys.stderr)
    return 0 if res.verdict != "UNDECIDED" else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "certify",
        help="identifiability verdict (IDENTIFIABLE, LOCALLY-IDENTIFIABLE, HIDDEN-SYMMETRY or UNDECIDED) with a certificate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_network_argument(p)
    p.add_argument("-o", "--output", help="write the certificate here")
    p.add_argument("--theta-prime", help="write the hidden-symmetry witness network here (when there is one)")
    add_json_flag(p)
    p.set_defaults(func=_run)
