"""``exactnet survey``: verdict fractions over seeded random networks of an architecture.

The work is done by :func:`exactnet.survey.run_survey` (resume checks, worker cap, Dask errors).
"""

from __future__ import annotations

import argparse

from .cli_common import add_json_flag, positive_int, print_json, refuse_stdio
from .errors import FileAccessError, FormatError
from .fileio import output_target

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    from .survey import run_survey

    if args.output == "":  # an empty name is not "no results file"
        raise FileAccessError("cannot write to an empty file name (survey -o)")
    if args.dask == "":  # an empty address is not "no cluster": it ran locally without a word
        raise FormatError("--dask needs a scheduler address, e.g. tcp://127.0.0.1:8786")
    if args.resume and not args.output:
        raise FileAccessError("--resume continues the survey in --output FILE: give -o FILE")
    refuse_stdio(args.output, "survey -o (its records are appended to a file, for --resume)")
    if args.output:
        # the results file is appended to, so its folder must exist and it must be a regular file; it is
        # not registered with check_outputs: a survey that stops (an error, Ctrl-C) keeps it on purpose
        # for --resume, and a warning that it "was not written" would be a second, misleading line
        output_target(args.output)
    summary = run_survey(
        args.arch, args.samples, seed=args.seed, workers=args.workers, output=args.output,
        resume=args.resume, dask_address=args.dask, max_num=args.max_num, max_den=args.max_den,
        quiet=args.quiet,
    )
    if args.json:
        print_json(summary)
    else:
        print(f"architecture {','.join(map(str, summary['architecture']))}, {summary['samples']} samples, seed {summary['seed']}")
        print(f"law: {summary['distribution']}")
        for k, v in summary["verdicts"].items():
            print(f"  {k:22s} {v['count']:7d}  {100 * v['fraction']:6.2f}%")
        for k, v in summary["mechanisms"].items():
            print(f"    mechanism {k:20s} {v['count']:7d}  {100 * v['fraction']:6.2f}%")
        print(f"{summary['seconds_per_sample']:.4f} s per sample")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("survey", help="certify many seeded random networks and count the verdicts")
    p.add_argument("--arch", required=True, help="architecture, e.g. 2,3,3,1")
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=positive_int, default=1,
                   help="local worker processes (default 1; a value above the samples left to do "
                        "or 4 per CPU is lowered to that)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on an existing Dask cluster, e.g. tcp://127.0.0.1:8786")
    p.add_argument("--output", "-o", help="stream results to this JSON-lines file")
    p.add_argument("--resume", action="store_true",
                   help="continue the survey in --output (refused if that file is from a survey "
                        "with another --arch, --seed, --max-num or --max-den)")
    p.add_argument("--max-num", type=int, default=9)
    p.add_argument("--max-den", type=int, default=5)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_json_flag(p)
    p.set_defaults(func=_run)
