"""``exactnet certify NET [-o CERT] [--json] [--timeout S]``: the identifiability verdict with its certificate.

Exit codes: 0 a verdict was proved (``IDENTIFIABLE``, ``LOCALLY-IDENTIFIABLE`` or
``HIDDEN-SYMMETRY``) and its certificate passed the independent checker; 1 ``UNDECIDED``
(the reason is printed; this says nothing about the network), also when ``--timeout S``
(wall clock) stopped the attempts: no certificate is written then; 2 bad input. On a
terminal, stderr shows which attempt is running (``--quiet``: nothing).
"""

from __future__ import annotations

import argparse
import sys

from .cli_common import (STDIO, add_json_flag, add_network_argument, check_outputs, load_network_arg,
                         positive_seconds, print_json, stage_line, time_limit, write_text_output)
from .errors import LimitError

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from .certify import CertifyResult, certify

    check_outputs([args.output, args.theta_prime], [args.network])
    net = load_network_arg(args)
    with stage_line("certify", args.quiet) as progress:
        try:
            with time_limit(args.timeout, "certify"):
                res = certify(net, progress=progress)
        except LimitError as e:
            res = CertifyResult("UNDECIDED", None, str(e))
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
                # (a network read from stdin has no file to name: the certificate holds it anyway)
                net_arg = "" if args.network == STDIO else f" --network {args.network}"
                print(f"certificate written to {args.output} (check it with: exactnet check {args.output}{net_arg})")
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
    p.add_argument("--timeout", type=positive_seconds, default=None, metavar="S",
                   help="answer UNDECIDED (exit 1, no certificate) after S seconds of wall-clock time")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr (shown only on a terminal)")
    add_json_flag(p)
    p.set_defaults(func=_run)
