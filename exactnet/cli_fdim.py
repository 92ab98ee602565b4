"""``exactnet fdim NET [--json] [--certificate OUT]``: exact functional dimension and the bound D - N.

Prints the rank of the parameter Jacobian over every activation region
(:mod:`exactnet.fdim`), the bound ``D - N``, whether the value is exact or a proved lower
bound, and the dead / stably active neurons; for a proved interval, the LP facts left open
within ``--lp-budget`` (``undecided_facts``: the reason for the gap). With ``--certificate OUT`` and rank
``D - N`` it writes a ``LOCALLY-IDENTIFIABLE`` certificate (checked by the independent
checker before it is written). Exit code 0 on success (whatever the rank), 2 on a user error.
On a terminal a progress line on stderr names the stage (rank so far, proved upper bound, LP
phase and its budget); ``--quiet`` turns it off.
"""

from __future__ import annotations

import argparse
import sys

from .cli_common import (
    add_json_flag,
    add_network_argument,
    check_outputs,
    load_network_arg,
    positive_int,
    positive_seconds,
    print_json,
    stage_line,
    write_text_output,
)
from .errors import CertificateError

__all__ = ["register", "run_fdim"]


def run_fdim(args: argparse.Namespace) -> int:
    """Handler of ``exactnet fdim``."""
    from .fdim import functional_dimension

    check_outputs([getattr(args, "certificate", None)], [args.network])
    net = load_network_arg(args)
    with stage_line("fdim", args.quiet) as progress:
        res = functional_dimension(
            net,
            use_regions=not args.no_regions,
            max_cells=args.max_cells,
            timeout=args.timeout,
            sign_budget=args.lp_budget,
            progress=progress,
            max_seconds=args.max_seconds,
        )
    out = res.to_json()
    cert_path = getattr(args, "certificate", None)
    if cert_path and not res.locally_identifiable:  # the result first, then why there is no certificate
        _print_result(args, res, out, None)
        raise CertificateError(
            f"no LOCALLY-IDENTIFIABLE certificate: rank {res.functional_dimension} is below D - N = {res.bound}"
        )
    if cert_path:
        from .fdim import certify_local

        cr = certify_local(net, use_regions=not args.no_regions, max_cells=args.max_cells, timeout=args.timeout)
        if cr.certificate is None:
            raise CertificateError(f"certificate not produced: {cr.reason}")
        try:
            from .certificate import check_certificate_text

            chk = check_certificate_text(cr.certificate, network=net)
            ok = getattr(chk, "verified", None)
            if ok is None:
                ok = chk[0]
        except ImportError:  # pragma: no cover - the checker ships with exactnet
            ok = False
        if not ok:
            raise CertificateError("the LOCALLY-IDENTIFIABLE certificate did not pass the independent checker")
        write_text_output(cert_path, cr.certificate)
        out["certificate"] = cert_path
    _print_result(args, res, out, cert_path)
    return 0


def _print_result(args, res, out: dict, cert_path: str | None) -> None:
    if args.json:
        print_json(out)
    else:
        print(f"functional dimension  {res.functional_dimension if res.functional_dimension is not None else 'undefined'} ({res.status})")
        print(f"bound                 D - N = {res.bound}  (D = {res.parameters}, N = {res.hidden_neurons})")
        if res.upper_bound < res.bound:
            print(f"proved upper bound    {res.upper_bound} (D minus the rank of the proved kernel; see the note)")
        print(f"points                {len(res.points)} from {res.point_source}"
              f"{' (every region)' if res.complete else ''}")
        print(f"locally identifiable  {'yes' if res.locally_identifiable else 'not shown'}")
        for d in res.deficient:
            print(f"deficient neuron      {d['name']} {d['reason']} ({d['scope']})")
        if res.note:
            print(f"note                  {res.note}")
        for u in res.undecided[:10]:
            print(f"undecided fact        {u}")
        if len(res.undecided) > 10:
            print(f"undecided fact        ... and {len(res.undecided) - 10} more (all of them in --json)")
        if cert_path:
            print(f"wrote the certificate to {cert_path}", file=sys.stderr)


def _positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds > 0 (argparse turns the error into a one-line message)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"the budget must be a positive number of seconds, got {text!r}")
    return v


def register(subparsers) -> None:
    """Add the ``fdim`` subcommand."""
    p = subparsers.add_parser("fdim", help="exact functional dimension (Jacobian rank) and the bound D - N")
    add_network_argument(p)
    add_json_flag(p)
    p.add_argument("--certificate", metavar="OUT", default=None,
                   help="write a LOCALLY-IDENTIFIABLE certificate here (only when the rank is D - N)")
    p.add_argument("--max-cells", type=positive_int, default=20000,
                   help="region budget; above it a documented random scheme gives a lower bound (default 20000)")
    p.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds for the region enumeration (default 60)")
    p.add_argument("--lp-budget", type=_positive_seconds, default=30.0, metavar="SECONDS",
                   help="CPU seconds for each phase of exact LP facts (dead, stably active, never both "
                        "active, relations) that can close the gap to the upper bound; a phase also gets "
                        "the seconds the phases before it left unused (default 30)")
    p.add_argument("--max-seconds", type=positive_seconds, default=None, metavar="S",
                   help="wall-clock bound for the whole run, checked between stages: after S seconds no new "
                        "stage starts and the answer is the interval proved so far (default: none)")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr (shown only on a terminal)")
    p.add_argument("--no-regions", action="store_true",
                   help="skip the region complex; use random generic points (lower bound unless it reaches D - N)")
    p.set_defaults(func=run_fdim)
