"""Surveys: certify many seeded random networks and count the verdicts.

Sample ``i`` of a survey with seed ``s`` is ``random_network(arch, seed=s * 1_000_003 + i,
max_num, max_den)`` (the law of :mod:`exactnet.randnet`: every weight and bias ``p/q``
with ``|p| <= max_num``, ``1 <= q <= max_den``, uniform and independent). Each sample is
certified by :func:`exactnet.certify.certify` and gives one JSON line
``{"index", "seed", "verdict", "mechanism", "reason", "seconds", "architecture", "survey_seed",
"max_num", "max_den"}`` (``seed``: the network's seed; ``reason``: why, as certify says; the last
four: the survey parameters that determine the sample, see :data:`SURVEY_PARAMETERS`).

* Results stream to a JSON-lines file as they finish (one worker task at a time, so the
  progress bar and the file advance with every sample); ``resume=True`` reads the file,
  keeps every complete line and computes only the missing indices (a truncated last line
  from an interrupted run is dropped and recomputed). It refuses, with one line naming the
  parameter that differs, a file whose records belong to another survey (other ``arch``,
  ``seed``, ``max_num`` or ``max_den``), and a file whose records do not carry these
  parameters (written by exactnet before they were recorded: its samples cannot be checked).
* Samples depend only on ``(arch, seed, max_num, max_den, index)``, so the same parameters give
  the same results whatever the number of workers; the summary is computed from the results
  sorted by index.
* Workers: a local process pool (``workers``), or an existing Dask cluster
  (``dask_address``, needs the ``dask`` extra). The pool never has more processes than
  samples still to compute, nor more than ``4 * os.cpu_count()`` (:func:`pool_size`): a larger
  ``workers`` is lowered to that, and the summary's ``workers`` is the number actually used.
  Pool workers ignore SIGINT: on Ctrl-C the parent stops the pool, and every record finished
  before stays in the file for ``resume``. A Dask scheduler that cannot be reached, or an
  address where something else answers, is one :class:`~exactnet.errors.ExactnetError`.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .errors import DependencyError, ExactnetError, FileAccessError, FormatError, ValueRangeError
from .randnet import parse_architecture, random_network

__all__ = ["SURVEY_PARAMETERS", "MAX_WORKERS_PER_CPU", "sample_seed", "survey_sample", "pool_size", "run_survey",
           "summarise"]

#: Record keys of the survey parameters that determine a sample, with the option that sets each.
SURVEY_PARAMETERS = {"architecture": "arch", "survey_seed": "seed", "max_num": "max-num", "max_den": "max-den"}

#: A local pool has at most this many processes per CPU (and never more than samples to compute).
MAX_WORKERS_PER_CPU = 4

_DASK_TIMEOUT = 20  # seconds to connect to a Dask scheduler


def sample_seed(seed: int, index: int) -> int:
    """The network seed of sample ``index`` of a survey with ``seed``."""
    return seed * 1_000_003 + index


def _parameters(arch: Sequence[int], seed: int, max_num: int, max_den: int) -> dict:
    """The record fields (:data:`SURVEY_PARAMETERS`) of a survey: what determines its samples."""
    return {"architecture": list(arch), "survey_seed": seed, "max_num": max_num, "max_den": max_den}


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
            "seconds": round(time.perf_counter() - t0, 6), **_parameters(arch, seed, max_num, max_den)}


def _show(key: str, value: object) -> str:
    if key == "architecture" and isinstance(value, list):
        return ",".join(map(str, value))
    return json.dumps(value)


def _read_done(path: Path, params: dict) -> dict[int, dict]:
    """The complete records of ``path``, checked to belong to the survey with ``params``."""
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
            index = int(rec["index"])
            if not isinstance(rec, dict) or not isinstance(rec["seed"], int) or "verdict" not in rec:
                raise TypeError
        except (ValueError, KeyError, TypeError, IndexError):
            raise FormatError(f"{path}: not a survey results file (bad line {line[:40]!r})") from None
        if any(k not in rec for k in params):
            raise FormatError(f"{path}: its records do not say which survey they belong to (architecture, seed, "
                              "max-num, max-den: written by an older exactnet), so --resume cannot check them; "
                              "start a new output file")
        differ = [f"{SURVEY_PARAMETERS[k]} {_show(k, rec[k])} in the file, {_show(k, v)} asked"
                  for k, v in params.items() if rec[k] != v]
        if differ:
            raise FormatError(f"{path} holds another survey ({'; '.join(differ)}): --resume continues a survey "
                              "only with the same --arch, --seed, --max-num and --max-den")
        if index < 0 or rec["seed"] != sample_seed(params["survey_seed"], index):
            raise FormatError(f"{path}: not a survey results file (line {line[:40]!r}: index and seed disagree)")
        done[index] = rec
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


def pool_size(workers: int, tasks: int) -> int:
    """Processes of a local pool asked for ``workers`` with ``tasks`` samples to compute (1: no pool).

    At most ``tasks`` and at most ``MAX_WORKERS_PER_CPU * os.cpu_count()``: more would only
    start idle processes (``--workers 100000`` used to fork without end).
    """
    return max(1, min(workers, tasks, MAX_WORKERS_PER_CPU * (os.cpu_count() or 1)))


def _worker_init() -> None:
    """Pool workers ignore Ctrl-C: the parent alone handles it (and stops the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _run_pool(tasks: list, workers: int, fn: Callable[[tuple], dict] = survey_sample) -> Iterable[dict]:
    n = pool_size(workers, len(tasks))
    if n <= 1:
        for t in tasks:
            yield fn(t)
        return
    import multiprocessing as mp

    ctx = mp.get_context("spawn" if sys.platform == "darwin" else "fork")
    pool = None
    try:
        # SIGINT is blocked while the workers start (they inherit the mask, then ignore it and
        # unblock it): a Ctrl-C then reaches the parent only, once the pool exists.
        masked = hasattr(signal, "pthread_sigmask")
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masked else None
        try:
            pool = ctx.Pool(n, initializer=_worker_init)
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
        # chunksize 1: each result comes back (and is written) as soon as it is done
        yield from pool.imap_unordered(fn, tasks, chunksize=1)
        pool.close()
    finally:
        if pool is not None:
            pool.terminate()  # Ctrl-C or an error: stop the workers now
            pool.join()


def _run_dask(tasks: list, address: str) -> Iterable[dict]:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise DependencyError('--dask needs dask.distributed: pip install "exactnet[dask]"') from None
    try:
        client = Client(address, timeout=_DASK_TIMEOUT)
    except Exception as e:  # noqa: BLE001 - unparsable address, refused, timeout, or not a Dask server at all
        msg = " ".join(str(e).split()) or type(e).__name__
        raise ExactnetError(f"cannot reach the Dask scheduler at {address}: {msg[:200]}") from None
    try:
        futures = client.map(survey_sample, tasks, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    except ExactnetError:
        raise
    except Exception as e:  # noqa: BLE001 - a lost connection or worker during the run
        msg = " ".join(str(e).split()) or type(e).__name__
        raise ExactnetError(f"the Dask cluster at {address} failed: {msg[:200]}") from None
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
    """Run (or resume) a survey and return its summary (see :func:`summarise`).

    ``resume`` refuses (:class:`~exactnet.errors.FormatError`) an ``output`` written by a survey
    with another ``arch``, ``seed``, ``max_num`` or ``max_den``. ``workers`` is capped by
    :func:`pool_size`; the summary's ``workers`` is the number of processes used.
    """
    a = parse_architecture(arch)
    if samples < 1:
        raise ExactnetError("a survey needs at least one sample")
    if max_num < 1 or max_den < 1:
        raise ValueRangeError("max_num and max_den must be at least 1")
    params = _parameters(a, seed, max_num, max_den)
    path = Path(output) if output else None
    done: dict[int, dict] = {}
    if path is not None:
        if path.exists() and not resume:
            raise ExactnetError(f"{path} exists: pass --resume to continue it, or choose another file")
        done = _read_done(path, params) if resume else {}
        if resume and path.exists():
            # rewrite the complete lines only, dropping a truncated tail
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text("".join(json.dumps(done[i]) + "\n" for i in sorted(done)), encoding="utf-8")
            os.replace(tmp, path)
    tasks = [(a, seed, i, max_num, max_den) for i in range(samples) if i not in done]
    t0 = time.perf_counter()
    if runner is not None:
        stream = runner(tasks)
        used = 1
    elif dask_address:
        stream = _run_dask(tasks, dask_address) if tasks else iter(())
        used = 0
    else:
        stream = _run_pool(tasks, workers)
        used = pool_size(workers, len(tasks))
    fh = path.open("a", encoding="utf-8") if path is not None else None
    try:
        n = len(done)
        _progress(n, samples, quiet)
        for rec in stream:
            rec = {**rec, **{k: v for k, v in params.items() if k not in rec}}  # a runner may leave them out
            done[rec["index"]] = rec
            if fh is not None:
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            n += 1
            _progress(n, samples, quiet)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # stops a pool now (Ctrl-C, error) instead of when the generator is collected
        if fh is not None:
            fh.close()
    summary = summarise(a, seed, [done[i] for i in sorted(done) if i < samples], max_num, max_den)
    summary["wall_seconds"] = round(time.perf_counter() - t0, 3)
    summary["workers"] = used
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
