"""``exactnet extract``: steal a network's parameters exactly from a black-box oracle.

``exactnet extract --oracle NET.json | --oracle-cmd "CMD" [--oracle-float] --arch 784,128,1
-o stolen.json [--json] [--max-queries N] [--seed S] [--timeout T] [--certificate CERT]``

With ``--oracle NET`` the network is used only through evaluation (a
:class:`~exactnet.oracle.NetworkOracle`); afterwards, and separately, the result is
compared with the file exactly (:func:`~exactnet.extract.compare_with_victim`: the exact
equivalence decision of :mod:`exactnet.equivalence`, and the orbit test by canonical forms);
this comparison reads the victim's weights and is reported as such. ``--certificate CERT``
also writes an EQUIVALENT certificate of the pair, re-checked by the independent checker
(region enumeration: small input widths only; otherwise a one-line error). With
``--oracle-cmd`` the program speaks the line protocol of :mod:`exactnet.oracle`; only query
checks are possible and they are reported as evidence, not proof. ``--oracle-float``: the
oracle answers in float64 (``--oracle NET`` is then evaluated in NumPy float64); the float
pipeline of :mod:`exactnet.extract_float` (one hidden layer) or :mod:`exactnet.extract_deep_float`
(two or more) runs and the precision reached is reported (no exact claim). Lemma: ``proofs/lemmas/extraction.md``.

Exit codes: 0 extracted (and, for a network file, equivalent; for a float oracle, an
approximation), 1 extracted but the exact comparison with the network file failed or was
undecided, 2 user errors and undecided extractions (``exactnet: error: <reason>``).
"""

from __future__ import annotations

import argparse

from .cli_common import (add_json_flag, check_outputs, positive_int, positive_seconds, print_json, refuse_stdio,
                         write_text_output)
from .errors import ExactnetError
from .extract import compare_with_victim, extract
from .netio import load_network
from .netjson import dumps_network
from .oracle import CommandOracle, NetworkOracle, NumpyNetworkOracle
from .randnet import parse_architecture

__all__ = ["register", "run_extract"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "extract",
        help="recover a network's parameters exactly from a black-box oracle",
        description=__doc__.split("\n\n")[0],
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--oracle", metavar="NET", help="network file used only through evaluation")
    src.add_argument("--oracle-cmd", metavar="CMD", help="program speaking the exactnet oracle line protocol")
    p.add_argument("--oracle-float", action="store_true", help="the oracle program answers in float64")
    p.add_argument("--arch", required=True, help="architecture, e.g. 784,128,1")
    p.add_argument("-o", "--output", help="write the extracted network here (exactnet-network/1 JSON)")
    p.add_argument("--max-queries", type=positive_int, default=None, help="query budget (LimitError when exhausted)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random lines and check points")
    p.add_argument("--timeout", type=positive_seconds, default=60.0, help="seconds to wait for each batch of a command oracle")
    p.add_argument("--certificate", metavar="CERT", default=None,
                   help="with --oracle NET: write an EQUIVALENT certificate of the extracted network and the file "
                        "(regions of the difference network; feasible for small input widths only)")
    p.add_argument("--equiv-timeout", type=positive_seconds, default=120.0,
                   help="seconds for the exact equivalence decision and the certificate (default 120)")
    add_json_flag(p)
    p.set_defaults(func=run_extract)


def run_extract(args: argparse.Namespace) -> int:
    arch = parse_architecture(args.arch)
    refuse_stdio(args.oracle, "--oracle (a network file)")
    if args.certificate is not None and not args.oracle:  # it was silently not written (exit 0)
        raise ExactnetError("--certificate needs --oracle NET: an EQUIVALENT certificate compares the extracted "
                            "network with a network file, which --oracle-cmd does not give")
    if args.certificate is not None and args.oracle_float:
        raise ExactnetError("--certificate needs an exact oracle: a float oracle yields an approximation only")
    check_outputs([args.output, args.certificate], [args.oracle])
    victim = None
    if args.oracle:
        victim = load_network(args.oracle)
        if victim.input_dim != arch[0] or victim.output_dim != arch[-1]:
            raise ExactnetError(
                f"--arch {args.arch} does not fit the oracle network ({victim.input_dim} inputs, "
                f"{victim.output_dim} outputs)"
            )
        if args.oracle_float:
            oracle = NumpyNetworkOracle(victim, max_queries=args.max_queries)
        else:
            oracle = NetworkOracle(victim, max_queries=args.max_queries)
    else:
        oracle = CommandOracle(
            args.oracle_cmd, arch[0], arch[-1], timeout=args.timeout, float_mode=args.oracle_float,
            max_queries=args.max_queries,
        )
    if args.oracle_float:
        return _run_float(args, arch, oracle, victim)
    try:
        res = extract(oracle, arch, seed=args.seed)
    finally:
        oracle.close()
    report = res.to_json()
    code = 0
    if victim is not None:
        cmp = compare_with_victim(res.network, victim, timeout=args.equiv_timeout,
                                  certificate=args.certificate is not None)
        cmp["note"] = "exact comparison with the network file (reads its weights; not used by the extractor)"
        text = cmp.pop("certificate_text", None)
        if args.certificate is not None:
            if text is None:
                raise ExactnetError(cmp.get("certificate_note", "no certificate could be produced"))
            write_text_output(args.certificate, text)
            cmp["certificate"] = args.certificate
        report["victim_comparison"] = cmp
        report["verification"] = (
            "exact: the extracted network is functionally equivalent to the oracle network"
            if cmp.get("equivalent") is True else
            "FAILED or undecided: the exact comparison with the oracle network did not establish equivalence"
        )
        if cmp.get("equivalent") is not True:
            code = 1
    else:
        report["victim_comparison"] = None
        report["verification"] = (
            f"query checks only: the extracted network agrees with the command's answers at {res.checks['points']} "
            "points (every kink found was confirmed by exact values on both sides, and every gradient by an extra "
            "query); this is evidence, not a proof that the program computes this network everywhere"
        )
    if args.output:
        write_text_output(args.output, dumps_network(res.network))
        report["output"] = args.output
    if args.json:
        print_json(report)
    else:
        print(f"status        {res.status}")
        print(f"queries       {res.queries} (2^{report['log2_queries']})")
        print(f"time          {report['seconds']} s ({report['oracle_seconds']} s in the oracle)")
        print(f"hyperplanes   {res.hyperplanes} on {res.lines} line(s), sign solutions {res.sign_solutions}")
        print(f"query checks  {res.checks['points']} points agree (evidence, not a proof)")
        if victim is not None:
            c = report["victim_comparison"]
            print(f"victim        equivalent={c.get('equivalent')} ({c.get('equivalence_method')}), "
                  f"same orbit={c.get('same_orbit')}")
            if args.certificate:
                print(f"certificate   {args.certificate} (checker: {'VERIFIED' if c.get('certificate_verified') else 'NOT VERIFIED'})")
        print(f"verification  {report['verification']}")
        for n in res.notes:
            print(f"note          {n}")
        if args.output:
            print(f"wrote         {args.output}")
    return code


def _run_float(args: argparse.Namespace, arch, oracle, victim) -> int:
    """``--oracle-float``: the float pipeline; a precision report, never an exact claim."""
    from .extract_float import extract_float, parameter_error

    if args.certificate:
        raise ExactnetError("--certificate needs an exact oracle: a float oracle yields an approximation only")
    try:
        res = extract_float(oracle, arch, seed=args.seed)
    finally:
        oracle.close()
    report = res.to_json()
    if victim is not None:
        pe = parameter_error(res.network, victim)
        pe["note"] = ("after canonical alignment with the network file (reads its weights; not used by the "
                      "extractor); the oracle evaluated it in NumPy float64")
        report["victim_comparison"] = pe
    else:
        report["victim_comparison"] = None
    report["verification"] = ("none exact: a float64 oracle; the figures are the precision reached on sampled "
                              "points, not a proof")
    if args.output:
        write_text_output(args.output, dumps_network(res.network))
        report["output"] = args.output
    if args.json:
        print_json(report)
    else:
        pr = report["precision"]
        print(f"status        {res.status} (float64 oracle: no exact claim)")
        print(f"queries       {res.queries} (2^{report['log2_queries']})")
        print(f"time          {report['seconds']} s")
        if res.layers:
            print(f"neurons       {res.hyperplanes} found layer by layer "
                  f"({' + '.join(str(d['accepted']) for d in res.layers)}) from {res.lines} line(s)")
        else:
            print(f"hyperplanes   {res.hyperplanes} on {res.lines} line(s)")
        print(f"output error  {pr['max_output_error_on_samples']:.3g} (2^{pr['log2_max_output_error']}) max over "
              f"{pr['sample_points']} sampled points")
        if victim is not None:
            pe = report["victim_comparison"]
            print(f"param error   {pe.get('max_parameter_error')} (2^{pe.get('log2_max_parameter_error')}) after "
                  "canonical alignment with the network file")
        for n in res.notes:
            print(f"note          {n}")
        if args.output:
            print(f"wrote         {args.output}")
    return 0
