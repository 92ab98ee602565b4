"""Surveys: certify many seeded random networks and count the verdicts.

Sample ``i`` of a survey with seed ``s`` is ``random_network(arch, seed=s * 1_000_003 + i,
max_num, max_den)`` (the law of :mod:`exactnet.randnet`: every weight and bias ``p/q``
with ``|p| <= max_num``, ``1 <= q <= max_den``, uniform and independent). Each sample is
certified by :func:`exactnet.certify.certify` and gives one JSON line
``{"index", "seed", "verdict", "mechanism", "reason", "seconds"}`` (``reason``: why, as certify says).

* Results stream to a JSON-lines file as they finish; ``resume=True`` reads the file,
  keeps every complete line and computes only the missing indices (a truncated last line
  from an interrupted run is dropped and recomputed).
* Samples depend only on ``(arch, seed, index)``, so the same seed gives the same results
  whatever the number of workers; the summary is computed from the results sorted by index.
* Workers: a local process pool (``workers``), or an existing Dask cluster
  (``dask_address``, needs the ``dask`` extra).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .errors import DependencyError, ExactnetError, FileAccessError, FormatError
from .randnet import parse_architecture, random_network

__all__ = ["sample_seed", "survey_sample", "run_survey", "summarise"]


def sample_seed(seed: int, index: int) -> int:
    """The network seed of sample ``index`` of a survey with ``seed``."""
    return seed * 1_000_003 + index


def survey_sample(task: tuple[tuple[int, ...], int, int, int, int]) -> dict:
    """Certify one sample; ``task = (arch, seed, index, max_num, max_den)``. Runs in workers."""
    from .certify import certify

    arch, seed, index, max_num, max_den = task
    s = sample_seed(seed, index)
    net = random_network(arch, seed=s, max_num=max_num, max_den=max_den)
    t0 = time.perf_counter()
    try:
        res = certify(net)
        verdict, mechanism, reason = res.verdict, res.mechanism, res.reason
    except ExactnetError as e:  # a sample the tools cannot handle is counted, not hidden
        verdict, mechanism, reason = "UNDECIDED", f"error: {e}", str(e)
    return {"index": index, "seed": s, "verdict": verdict, "mechanism": mechanism, "reason": reason,
            "seconds": round(time.perf_counter() - t0, 6)}


def _read_done(path: Path) -> dict[int, dict]:
    done: dict[int, dict] = {}
    if not path.exists():
        return done
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not a survey results file (not UTF-8 text)") from None
    except OSError as e:
        raise FileAccessError(f"cannot read {path}: {e.strerror or e}") from None
    for line in io.StringIO(text):  # lines end at "\n" only
        if not line.endswith("\n"):
            break  # truncated by an interrupt: recompute
        try:
            rec = json.loads(line)
            done[int(rec["index"])] = rec
        except (ValueError, KeyError, TypeError):
            raise FormatError(f"{path}: not a survey results file (bad line {line[:40]!r})") from None
    return done


def _progress(done: int, total: int, quiet: bool) -> None:
    if quiet or not sys.stderr.isatty():
        return
    width = 30
    k = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * k}{'.' * (width - k)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _run_pool(tasks: list, workers: int) -> Iterable[dict]:
    if workers <= 1:
        for t in tasks:
            yield survey_sample(t)
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn" if sys.platform == "darwin" else "fork")
    with ctx.Pool(workers) as pool:
        yield from pool.imap_unordered(survey_sample, tasks, chunksize=max(1, min(64, len(tasks) // (8 * workers) or 1)))


def _run_dask(tasks: list, address: str) -> Iterable[dict]:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise DependencyError('--dask needs dask.distributed: pip install "exactnet[dask]"') from None
    try:
        client = Client(address, timeout=20)
    except (OSError, ValueError) as e:  # ValueError: an address dask cannot parse
        raise ExactnetError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        futures = client.map(survey_sample, tasks, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()


def run_survey(
    arch: str | Sequence[int],
    samples: int,
    seed: int = 0,
    workers: int = 1,
    output: str | os.PathLike | None = None,
    resume: bool = False,
    dask_address: str | None = None,
    max_num: int = 9,
    max_den: int = 5,
    quiet: bool = False,
    runner: Callable[[list], Iterable[dict]] | None = None,
) -> dict:
    """Run (or resume) a survey and return its summary (see :func:`summarise`)."""
    a = parse_architecture(arch)
    if samples < 1:
        raise ExactnetError("a survey needs at least one sample")
    path = Path(output) if output else None
    done: dict[int, dict] = {}
    if path is not None:
        if path.exists() and not resume:
            raise ExactnetError(f"{path} exists: pass --resume to continue it, or choose another file")
        done = _read_done(path) if resume else {}
        if resume and path.exists():
            # rewrite the complete lines only, dropping a truncated tail
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text("".join(json.dumps(done[i]) + "\n" for i in sorted(done)), encoding="utf-8")
            os.replace(tmp, path)
    tasks = [(a, seed, i, max_num, max_den) for i in range(samples) if i not in done]
    t0 = time.perf_counter()
    if runner is not None:
        stream = runner(tasks)
    elif dask_address:
        stream = _run_dask(tasks, dask_address)
    else:
        stream = _run_pool(tasks, workers)
    fh = path.open("a", encoding="utf-8") if path is not None else None
    try:
        n = len(done)
        _progress(n, samples, quiet)
        for rec in stream:
            done[rec["index"]] = rec
            if fh is not None:
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            n += 1
            _progress(n, samples, quiet)
    finally:
        if fh is not None:
            fh.close()
    summary = summarise(a, seed, [done[i] for i in sorted(done) if i < samples], max_num, max_den)
    summary["wall_seconds"] = round(time.perf_counter() - t0, 3)
    summary["workers"] = 1 if runner else (0 if dask_address else workers)
    return summary


def summarise(arch: Sequence[int], seed: int, records: list[dict], max_num: int, max_den: int) -> dict:
    """Fractions per verdict and per mechanism, with the sampling law."""
    n = len(records)
    verdicts = Counter(r["verdict"] for r in records)
    mechanisms = Counter(r["mechanism"] for r in records if r["verdict"] == "HIDDEN-SYMMETRY")
    return {
        "architecture": list(arch),
        "samples": n,
        "seed": seed,
        "distribution": f"weights and biases p/q uniform, |p| <= {max_num}, 1 <= q <= {max_den} (exactnet.randnet)",
        "verdicts": {k: {"count": v, "fraction": round(v / n, 4)} for k, v in sorted(verdicts.items())},
        "mechanisms": {k: {"count": v, "fraction": round(v / n, 4)} for k, v in sorted(mechanisms.items())},
        "seconds_per_sample": round(sum(r["seconds"] for r in records) / max(n, 1), 6),
    }
