"""Black-box oracles: evaluation only, counted, batched and cached.

An :class:`Oracle` answers "what is ``f(x)``?" for exact rational points ``x``
and nothing else. The extractor (:mod:`exactnet.extract`) talks to a function
only through this interface, so it works the same on a network file, a Python
callable or an external program. Every oracle

* counts the points it was asked (:attr:`Oracle.queries`; a point answered from
  the cache is not counted again), refuses to go beyond ``max_queries``
  (:class:`~exactnet.errors.LimitError`), and times itself (:attr:`Oracle.seconds`);
* answers batches (:meth:`Oracle.query_batch`), which is how the extractor asks;
* checks every reply: the right number of outputs, exact rationals
  (:class:`~exactnet.errors.OracleError` otherwise).

Kinds:

* :class:`NetworkOracle` ``(net)``: a :class:`~exactnet.network.Network` seen only
  through :meth:`~exactnet.network.Network.evaluate_batch`. The network is held in a
  closure, not in an attribute, so code holding the oracle has no weights to read.
* :class:`CallableOracle` ``(fn, n_in, n_out)``: any Python callable taking a list of
  ``fmpq`` and returning a sequence of exact rationals (``int``, ``Fraction``, ``fmpq``,
  canonical strings); ``batch=True`` when ``fn`` takes a list of points instead.
* :class:`CommandOracle` ``(cmd)``: a subprocess speaking the line protocol below.
* :class:`FloatOracle` ``(fn, n_in, n_out)``: a float64 function (``fn`` takes and
  returns floats); its replies are turned into rationals with
  :func:`~exactnet.qq.from_float` ``"exact"`` (the float's own binary value). Points
  are rounded to the nearest float before the call. Its answers are exact rationals
  but not of a piecewise *affine* function any more (rounding), so the exact
  extractor will usually find the replies inconsistent and say so.

Line protocol of :class:`CommandOracle` (version 1)
---------------------------------------------------
The oracle program reads its standard input and writes its standard output, in
ASCII, one line per point, ``\\n`` line ends, flushing after each answer line:

* request: one point per line, its ``n_in`` coordinates as canonical rationals
  (``-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?``) separated by commas, e.g. ``1/2,-3,0``;
* reply: one line per request, in the same order: the ``n_out`` outputs as
  rationals separated by commas (integers, ``p/q`` or plain decimals such as ``0.25``
  are accepted; decimals mean their exact value); with ``float_mode`` replies may be
  any Python float literal (``1e-3``, ``0.1``) and are read as that float's exact value;
* the program should answer each line before reading the next batch; exactnet
  writes a whole batch, then reads as many lines as it wrote;
* a reply line starting with ``error`` (or a line that is not numbers, or the
  program exiting) makes the query fail with :class:`OracleError`;
* when exactnet is done it closes the program's standard input; the program should exit.

``n_in`` and ``n_out`` are taken from the architecture given by the caller
(``--arch``): the protocol has no handshake. A reply that does not have ``n_out``
numbers is an error. ``timeout`` seconds (default 60) bound the wait for each batch.

>>> from exactnet.network import Network
>>> o = NetworkOracle(Network.from_lists([([[1, -1]], [0]), ([[2]], [1])]))
>>> [str(v) for v in o.query([fmpq(3), fmpq(1)])], o.queries
(['5'], 1)
"""

from __future__ import annotations

import os
import selectors
import shlex
import subprocess
import time
from typing import Callable, Iterable, Sequence

from flint import fmpq, fmpq_mat

from .errors import FormatError, LimitError, OracleError, ShapeError, ValueRangeError
from .network import Network
from .qq import Q0, from_float, parse_q, q_str, q_to_float, to_q

__all__ = [
    "Oracle",
    "NetworkOracle",
    "CallableOracle",
    "CommandOracle",
    "FloatOracle",
    "NumpyNetworkOracle",
    "PROTOCOL_VERSION",
]

PROTOCOL_VERSION = 1

Point = Sequence[fmpq]


def _key(x: Sequence[fmpq]) -> tuple:
    return tuple((int(v.p), int(v.q)) for v in x)


class Oracle:
    """Base class: counting, budget, cache and reply checks around :meth:`_evaluate`.

    Subclasses implement ``_evaluate(points) -> list of output lists`` (exact ``fmpq``).
    """

    def __init__(self, n_in: int, n_out: int, max_queries: int | None = None, cache_size: int = 200_000) -> None:
        if n_in < 1 or n_out < 1:
            raise ShapeError(f"an oracle needs positive input and output widths, got {n_in} and {n_out}")
        self.n_in = int(n_in)
        self.n_out = int(n_out)
        self.max_queries = max_queries
        self.queries = 0
        self.batches = 0
        self.cache_hits = 0
        self.seconds = 0.0
        self._cache: dict[tuple, list[fmpq]] = {}
        self._cache_size = cache_size

    # -------------------------------------------------------------- subclass hook
    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ public
    def remaining(self) -> int | None:
        """Queries left in the budget (None: unlimited)."""
        return None if self.max_queries is None else self.max_queries - self.queries

    def query(self, x: Point) -> list[fmpq]:
        """``f(x)`` for one point."""
        return self.query_batch([x])[0]

    def query_batch(self, xs: Iterable[Point], cache: bool = True) -> list[list[fmpq]]:
        """``f`` at many points (one call to the underlying oracle for the new ones).

        ``cache=False`` skips the cache (for large batches of points that will never
        be asked again, where hashing would cost more than it saves); the points are
        still counted.
        """
        pts = []
        for x in xs:
            p = [to_q(v) for v in x]
            if len(p) != self.n_in:
                raise ShapeError(f"query point has {len(p)} coordinates, the oracle takes {self.n_in}")
            pts.append(p)
        if not pts:
            return []
        out: list[list[fmpq] | None] = [None] * len(pts)
        todo: list[int] = []
        keys: list[tuple | None] = [None] * len(pts)
        if cache:
            seen: dict[tuple, int] = {}
            for i, p in enumerate(pts):
                k = _key(p)
                keys[i] = k
                hit = self._cache.get(k)
                if hit is not None:
                    out[i] = hit
                    self.cache_hits += 1
                elif k in seen:
                    self.cache_hits += 1
                else:
                    seen[k] = i
                    todo.append(i)
        else:
            todo = list(range(len(pts)))
        if todo:
            if self.max_queries is not None and self.queries + len(todo) > self.max_queries:
                raise LimitError(
                    f"query budget exhausted: {self.queries} queries used, {len(todo)} more needed, "
                    f"limit {self.max_queries}"
                )
            t0 = time.perf_counter()
            res = self._evaluate([pts[i] for i in todo])
            self.seconds += time.perf_counter() - t0
            self.queries += len(todo)
            self.batches += 1
            if len(res) != len(todo):
                raise OracleError(f"oracle answered {len(res)} points, {len(todo)} were asked")
            for i, r in zip(todo, res):
                r = list(r)
                if len(r) != self.n_out:
                    raise OracleError(f"oracle returned {len(r)} outputs, expected {self.n_out}")
                for v in r:
                    if not isinstance(v, fmpq):
                        raise OracleError(f"oracle returned a non-rational value {v!r}")
                out[i] = r
                if cache and len(self._cache) < self._cache_size:
                    self._cache[keys[i]] = r  # type: ignore[index]
            if cache:
                for i, p in enumerate(pts):
                    if out[i] is None:
                        out[i] = self._cache.get(keys[i]) or self.query_batch([p], cache=False)[0]  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    def query_axis_steps(self, x: Point, delta: fmpq) -> list[list[fmpq]]:
        """``f(x + delta e_i)`` for ``i = 0..n_in-1``: ``n_in`` counted queries, never cached.

        A batch in compact form (the points are implied by ``x`` and ``delta``). The default
        builds the points and calls :meth:`query_batch`; :class:`NetworkOracle` evaluates
        them faster with the same exact result.
        """
        x = [to_q(v) for v in x]
        delta = to_q(delta)
        if len(x) != self.n_in:
            raise ShapeError(f"query point has {len(x)} coordinates, the oracle takes {self.n_in}")
        fast = self._axis_steps_fast(x, delta)
        if fast is None:
            pts = []
            for i in range(self.n_in):
                y = list(x)
                y[i] = y[i] + delta
                pts.append(y)
            return self.query_batch(pts, cache=False)
        if self.max_queries is not None and self.queries + self.n_in > self.max_queries:
            raise LimitError(
                f"query budget exhausted: {self.queries} queries used, {self.n_in} more needed, "
                f"limit {self.max_queries}"
            )
        t0 = time.perf_counter()
        res = fast()
        self.seconds += time.perf_counter() - t0
        self.queries += self.n_in
        self.batches += 1
        return res

    def _axis_steps_fast(self, x: list[fmpq], delta: fmpq):
        """Hook: a zero-argument callable computing the axis-step batch, or None."""
        return None

    def query_floats(self, X):
        """``f`` at the rows of a float array ``X`` (k x n_in), as a float64 array (k x n_out).

        For the float pipeline (:mod:`exactnet.extract_float`): every row is one counted query.
        The default turns each float into its exact rational and rounds the exact replies to
        float64; :class:`FloatOracle` calls its function directly.
        """
        import numpy as np

        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_in:
            raise ShapeError(f"query array must be k x {self.n_in}, got shape {X.shape}")
        pts = [[from_float(float(v), "exact") for v in row] for row in X]
        outs = self.query_batch(pts, cache=False)
        return np.array([[q_to_float(v) for v in r] for r in outs], dtype=np.float64).reshape(len(pts), self.n_out)

    def close(self) -> None:
        """Release resources (subprocesses); idempotent."""

    def __enter__(self) -> "Oracle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stats(self) -> dict:
        """Counters for reports: queries, batches, cache hits, seconds spent in the oracle."""
        return {
            "queries": self.queries,
            "batches": self.batches,
            "cache_hits": self.cache_hits,
            "oracle_seconds": round(self.seconds, 3),
        }


class NetworkOracle(Oracle):
    """A network used only through exact batch evaluation (weights not reachable)."""

    def __init__(self, net: Network, max_queries: int | None = None) -> None:
        super().__init__(net.input_dim, net.output_dim, max_queries)
        evaluate = net.evaluate_batch

        def _ev(points: list[list[fmpq]]) -> list[list[fmpq]]:
            return evaluate(points)

        depth = net.depth
        mats = [(layer.matrix(), list(layer.biases)) for layer in net.layers]

        def _steps(x: list[fmpq], delta: fmpq) -> list[list[fmpq]]:
            # f(x + delta e_i) for all i: layer 1 is z0 + delta * W1[:, i]; then exact matrix products.
            W1, b1 = mats[0]
            n_out1, n_in = W1.nrows(), W1.ncols()
            z0 = (W1 * fmpq_mat(n_in, 1, x)).tolist()
            cs = [z0[i][0] + b1[i] for i in range(n_out1)]
            C = fmpq_mat(n_out1, n_in, [c for c in cs for _ in range(n_in)])
            Zm = W1 * delta + C  # exact, in C
            if depth > 1:
                H = fmpq_mat([[v if v > 0 else Q0 for v in r] for r in Zm.tolist()])
            else:
                H = Zm
            for k in range(1, depth):
                W, b = mats[k]
                Zk = (W * H).tolist()
                rows = []
                for i, r in enumerate(Zk):
                    if b[i]:
                        r = [v + b[i] for v in r]
                    if k < depth - 1:
                        r = [v if v > 0 else Q0 for v in r]
                    rows.append(r)
                H = fmpq_mat(rows)
            return [list(col) for col in zip(*H.tolist())]

        self._ev = _ev
        self._steps = _steps
        # no reference to ``net`` is kept on the object itself
        del net

    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:
        return self._ev(points)

    def _axis_steps_fast(self, x: list[fmpq], delta: fmpq):
        return lambda: self._steps(x, delta)


def _coerce_outputs(values: object, n_out: int) -> list[fmpq]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        values = [values]
    out = []
    for v in values:  # type: ignore[union-attr]
        try:
            out.append(to_q(v))
        except (FormatError, ValueRangeError) as e:
            raise OracleError(f"oracle output {v!r} is not an exact rational: {e}") from None
    return out


class CallableOracle(Oracle):
    """Any Python callable of exact rationals (``fn(x) -> outputs``, or batched)."""

    def __init__(
        self,
        fn: Callable,
        n_in: int,
        n_out: int,
        batch: bool = False,
        max_queries: int | None = None,
    ) -> None:
        super().__init__(n_in, n_out, max_queries)
        self._fn = fn
        self._batch = batch

    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:
        try:
            if self._batch:
                res = list(self._fn(points))
            else:
                res = [self._fn(p) for p in points]
        except (OracleError, LimitError):
            raise
        except Exception as e:  # the callable is foreign code
            raise OracleError(f"oracle callable failed: {type(e).__name__}: {e}") from e
        return [_coerce_outputs(r, self.n_out) for r in res]


class FloatOracle(Oracle):
    """A float64 oracle: points rounded to floats, replies read as exact binary values."""

    def query_floats(self, X):
        import numpy as np

        X = _float_rows(X, self.n_in)
        if self.max_queries is not None and self.queries + len(X) > self.max_queries:
            raise LimitError(
                f"query budget exhausted: {self.queries} queries used, {len(X)} more needed, limit {self.max_queries}"
            )
        t0 = time.perf_counter()
        try:
            res = self._fn(X) if self._batch else [self._fn([float(v) for v in row]) for row in X]
            Y = np.asarray(res, dtype=np.float64).reshape(len(X), self.n_out)
        except Exception as e:
            raise OracleError(f"float oracle failed: {type(e).__name__}: {e}") from e
        self.seconds += time.perf_counter() - t0
        self.queries += len(X)
        self.batches += 1
        return Y

    def __init__(self, fn: Callable, n_in: int, n_out: int, batch: bool = False, max_queries: int | None = None) -> None:
        super().__init__(n_in, n_out, max_queries)
        self._fn = fn
        self._batch = batch
        self.float_mode = True

    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:
        fl = [[q_to_float(v) for v in p] for p in points]
        try:
            res = list(self._fn(fl)) if self._batch else [self._fn(p) for p in fl]
        except Exception as e:
            raise OracleError(f"float oracle failed: {type(e).__name__}: {e}") from e
        out = []
        for r in res:
            if not hasattr(r, "__iter__"):
                r = [r]
            row = []
            for v in r:
                try:
                    row.append(from_float(float(v), "exact"))
                except (ValueRangeError, TypeError, ValueError) as e:
                    raise OracleError(f"float oracle returned {v!r}: {e}") from None
            out.append(row)
        return out


def _float_rows(X, n_in: int):
    import numpy as np

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != n_in:
        raise ShapeError(f"query array must be k x {n_in}, got shape {X.shape}")
    return X


class NumpyNetworkOracle(Oracle):
    """A network evaluated in NumPy float64 (a float black box, like the published attacks' victims).

    The weights are rounded to float64 once and held in a closure; :meth:`query_floats`
    is the fast path. Exact rational queries are rounded to floats first and the float
    replies read as their exact binary values (``float_mode``).
    """

    def __init__(self, net: Network, max_queries: int | None = None) -> None:
        super().__init__(net.input_dim, net.output_dim, max_queries)
        import numpy as np

        mats = [(np.array([[q_to_float(v) for v in r] for r in layer.weights], dtype=np.float64),
                 np.array([q_to_float(v) for v in layer.biases], dtype=np.float64)) for layer in net.layers]

        def _ev(X):
            H = X
            for k, (W, b) in enumerate(mats):
                H = H @ W.T + b
                if k < len(mats) - 1:
                    H = np.maximum(H, 0.0)
            return H

        self._evf = _ev
        self.float_mode = True
        del net

    def query_floats(self, X):
        X = _float_rows(X, self.n_in)
        if self.max_queries is not None and self.queries + len(X) > self.max_queries:
            raise LimitError(
                f"query budget exhausted: {self.queries} queries used, {len(X)} more needed, limit {self.max_queries}"
            )
        t0 = time.perf_counter()
        Y = self._evf(X)
        self.seconds += time.perf_counter() - t0
        self.queries += len(X)
        self.batches += 1
        return Y

    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:
        import numpy as np

        X = np.array([[q_to_float(v) for v in p] for p in points], dtype=np.float64)
        return [[from_float(float(v), "exact") for v in row] for row in self._evf(X)]


class CommandOracle(Oracle):
    """A subprocess speaking the line protocol of the module docstring."""

    def __init__(
        self,
        cmd: str | Sequence[str],
        n_in: int,
        n_out: int,
        timeout: float = 60.0,
        float_mode: bool = False,
        max_queries: int | None = None,
        batch_size: int = 1024,
    ) -> None:
        super().__init__(n_in, n_out, max_queries)
        try:
            argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        except ValueError as e:  # e.g. an unterminated quote
            raise OracleError(f"cannot parse the oracle command {cmd!r}: {e}") from None
        if not argv:
            raise OracleError("empty oracle command")
        self.cmd = argv
        self.timeout = float(timeout)
        self.float_mode = float_mode
        self.batch_size = batch_size
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
            )
        except OSError as e:
            raise OracleError(f"cannot start oracle command {argv[0]!r}: {e}") from None
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._sel.register(self._proc.stdout, selectors.EVENT_READ)

    def _readline(self, deadline: float) -> bytes:
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OracleError(f"oracle command timed out after {self.timeout} s")
            if not self._sel.select(timeout=left):
                continue
            chunk = os.read(self._proc.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not chunk:
                raise OracleError(f"oracle command exited (code {self._proc.poll()}) before answering")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _parse_reply(self, line: bytes) -> list[fmpq]:
        try:
            text = line.decode("ascii").strip()
        except UnicodeDecodeError:
            raise OracleError("oracle reply is not ASCII") from None
        if text.lower().startswith("error"):
            raise OracleError(f"oracle reported: {text[:200]}")
        parts = [s.strip() for s in text.split(",")]
        if len(parts) != self.n_out or any(not s for s in parts):
            raise OracleError(f"oracle reply {text[:80]!r} does not hold {self.n_out} numbers")
        out = []
        for s in parts:
            try:
                if self.float_mode:
                    out.append(from_float(float(s), "exact"))
                else:
                    out.append(parse_q(s))
            except (FormatError, ValueRangeError, ValueError) as e:
                raise OracleError(f"oracle reply {s[:40]!r} is not a number: {e}") from None
        return out

    def _evaluate(self, points: list[list[fmpq]]) -> list[list[fmpq]]:
        if self._proc.poll() is not None:
            raise OracleError(f"oracle command has exited (code {self._proc.returncode})")
        out: list[list[fmpq]] = []
        for s in range(0, len(points), self.batch_size):
            chunk = points[s : s + self.batch_size]
            data = "".join(",".join(q_str(v) for v in p) + "\n" for p in chunk).encode("ascii")
            try:
                self._proc.stdin.write(data)  # type: ignore[union-attr]
                self._proc.stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, OSError) as e:
                raise OracleError(f"cannot write to the oracle command: {e}") from None
            deadline = time.monotonic() + self.timeout
            for _ in chunk:
                out.append(self._parse_reply(self._readline(deadline)))
        return out

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is None:
            return
        try:
            if proc.stdin and not proc.stdin.closed:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        try:
            self._sel.close()
        except Exception:
            pass
        self._proc = None  # type: ignore[assignment]

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
