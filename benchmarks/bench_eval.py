"""Benchmark: exact evaluation of a [784,128,1] network with dyadic weights at 1,000 points.

Compares, in the same run and on the same network and points,

* ``Network.evaluate`` (one point at a time, pure Python ``fmpq`` arithmetic),
* ``Network.evaluate_batch`` (``fmpq_mat`` products),
* ``exactnet.fasteval.ClearedNetwork.evaluate_batch`` (denominators cleared once,
  ``fmpz_mat`` products),
* the same, one point per call (what a point-by-point algorithm pays),
* NumPy float64 (``relu(X @ W1.T + b1) @ W2.T + b2``), the baseline of the ratios.

Weights are ``p / 2^k`` with ``|p| <= 127``, ``0 <= k <= 8``; inputs are pixel-like
``j / 256``, ``0 <= j <= 255``, seeded. The script checks that every exact method
gives identical outputs and reports how far float64 is from the exact answer.

Usage: ``python benchmarks/bench_eval.py [--points 1000] [--single-points 1000] [--seed 0]``
(``--single-points`` limits the slow one-point-at-a-time method; its time is then
scaled to ``--points`` and marked ``(scaled)``).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from flint import fmpq

from exactnet.fasteval import ClearedNetwork
from exactnet.network import Network

__all__ = ["main"]


def dyadic_network(arch: tuple[int, ...], rng: random.Random) -> Network:
    def q() -> fmpq:
        return fmpq(rng.randint(-127, 127), 2 ** rng.randint(0, 8))

    return Network.from_lists(
        [([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])])
         for l in range(1, len(arch))]
    )


def best_of(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--single-points", type=int, default=None,
                    help="points for Network.evaluate (default: all of --points)")
    ap.add_argument("--arch", default="784,128,1")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="repetitions of each exact method (best time)")
    args = ap.parse_args(argv)
    arch = tuple(int(a) for a in args.arch.split(","))
    rng = random.Random(args.seed)
    net = dyadic_network(arch, rng)
    pts = [[fmpq(rng.randint(0, 255), 256) for _ in range(arch[0])] for _ in range(args.points)]
    n_single = min(args.single_points or args.points, args.points)

    # float64 baseline (arrays prepared outside the timing; the preparation is reported too)
    t = time.perf_counter()
    Ws = [np.array([[int(v.p) / int(v.q) for v in r] for r in layer.weights]) for layer in net.layers]
    bs = [np.array([int(v.p) / int(v.q) for v in layer.biases]) for layer in net.layers]
    X = np.array([[int(v.p) / int(v.q) for v in x] for x in pts])
    t_prep = time.perf_counter() - t

    def numpy_forward():
        H = X
        for k, (W, b) in enumerate(zip(Ws, bs)):
            H = H @ W.T + b
            if k < len(Ws) - 1:
                H = np.maximum(H, 0.0)
        return H

    t_np, Y = best_of(numpy_forward, 20)
    rows: list[tuple[str, float, str]] = []
    rows.append(("numpy float64 forward", t_np, ""))
    t_batch, out_batch = best_of(lambda: net.evaluate_batch(pts), args.repeat)
    rows.append(("Network.evaluate_batch (exact)", t_batch, ""))
    t_prepc, cn = best_of(lambda: ClearedNetwork(net), 1)
    t_fast, out_fast = best_of(lambda: cn.evaluate_batch(pts), args.repeat)
    rows.append(("fasteval.ClearedNetwork (exact)", t_fast, f"+ {t_prepc:.3f}s once to clear denominators"))
    t_single, out_single = best_of(lambda: [net.evaluate(x) for x in pts[:n_single]], 1)
    scaled = n_single < args.points
    t_single_all = t_single * args.points / n_single
    rows.append(("Network.evaluate per point (exact)", t_single_all,
                 f"(scaled from {n_single} points)" if scaled else ""))

    t_fast1, out_fast1 = best_of(lambda: [cn.evaluate_batch([x])[0] for x in pts], 1)
    rows.append(("fasteval per point (exact)", t_fast1, "same ClearedNetwork, one point per call"))

    assert out_fast1 == out_batch, "fasteval per point disagrees with Network.evaluate_batch"
    assert out_fast == out_batch, "fasteval disagrees with Network.evaluate_batch"
    assert out_single == out_batch[:n_single], "Network.evaluate disagrees with evaluate_batch"
    err = max(abs(float(Y[i, j]) - int(v.p) / int(v.q)) for i, o in enumerate(out_batch) for j, v in enumerate(o))
    same = sum(
        fmpq(*float(Y[i, j]).as_integer_ratio()) == v for i, o in enumerate(out_batch) for j, v in enumerate(o)
    )
    total = sum(len(o) for o in out_batch)

    print(f"exact evaluation of a {list(arch)} network, dyadic weights p/2^k (|p|<=127, k<=8), "
          f"{args.points} points j/256, seed {args.seed}")
    print(f"{'method':38s} {'seconds':>10s} {'x numpy':>10s}  note")
    for name, sec, note in rows:
        print(f"{name:38s} {sec:10.4f} {sec / t_np:10.1f}  {note}")
    print(f"float64 arrays prepared in {t_prep:.3f}s (not in the numpy time)")
    print(f"all exact methods agree: yes; float64 equals the exact output at {same}/{total} outputs, "
          f"max |float64 - exact| = {err:.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
