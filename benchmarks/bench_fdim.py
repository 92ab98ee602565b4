"""Benchmark (issue 5): exact functional dimension of deep ``(w, w, ..., w, 1)`` networks vs a float estimate.

Architectures ``(w, w, ..., w, 1)``: input width ``w``, ``L - 1`` hidden layers of width ``w``,
one output; ``L = depth`` affine layers (``Network.depth``) in 4, 5, 6 and ``w`` in 5, 10, 15.
Networks: ``exactnet.randnet.random_network(arch, seed)`` (weights ``p/q``, ``|p| <= 9``,
``q <= 5``), seeds ``0..count-1``.

Exact column: :func:`exactnet.fdim.functional_dimension` with ``use_regions=False`` (the
complete region complex of these networks is far too large), i.e. the documented exact
point scheme of :func:`exactnet.fdim.generic_random_points` in batches (spreads 1, 4, 16,
64, up to ``4 D`` points) until the rank reaches the proved upper bound. The rank is
exact over Q (nonzero minor modulo a 63-bit prime); it is the exact functional dimension
when it reaches the proved upper bound (``D - N``, or lower when neurons are structurally
dead/stably active), and otherwise a proved lower bound (marked ``lb``).

Float column: ``numpy.linalg.matrix_rank`` (default tolerance) of the float64 Jacobian at
``2 D`` standard Gaussian points (seed = network seed), the usual numerical estimate.

Usage: ``python benchmarks/bench_fdim.py [--count 20] [--depths 4,5,6] [--widths 5,10,15]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from exactnet.fdim import functional_dimension
from exactnet.randnet import random_network

__all__ = ["float_rank", "main"]


def float_rank(net, n_points: int, seed: int) -> int:
    """NumPy rank (default tolerance) of the float Jacobian of f at Gaussian points."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_points, net.input_dim))
    Ws = [np.array([[float(v) for v in row] for row in net.weights(l)]) for l in range(1, net.depth + 1)]
    bs = [np.array([float(v) for v in net.biases(l)]) for l in range(1, net.depth + 1)]
    L = net.depth
    H = [X]
    Z = []
    for l in range(L):
        z = H[-1] @ Ws[l].T + bs[l]
        Z.append(z)
        H.append(np.maximum(z, 0.0) if l < L - 1 else z)
    S = [None] * L
    S[L - 1] = np.ones((n_points, 1))
    for l in range(L - 2, -1, -1):
        S[l] = (S[l + 1] @ Ws[l + 1]) * (Z[l] > 0)
    blocks = []
    for l in range(L):
        dW = (S[l][:, :, None] * H[l][:, None, :]).reshape(n_points, -1)
        blocks.append(dW)
        blocks.append(S[l])
    J = np.concatenate(blocks, axis=1)
    return int(np.linalg.matrix_rank(J))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--depths", default="4,5,6")
    ap.add_argument("--widths", default="5,10,15")
    ap.add_argument("--max-seconds-per-config", type=float, default=120.0,
                    help="stop a configuration early (fewer networks, reported) after this long")
    args = ap.parse_args(argv)
    depths = [int(t) for t in args.depths.split(",")]
    widths = [int(t) for t in args.widths.split(",")]
    print("| arch | D | D-N | nets | exact ranks (value x count) | exact = D-N | lower bounds | "
          "s/net (mean, max) | float ranks (2D pts) | float = exact | float < exact |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for L in depths:
        for w in widths:
            arch = (w,) * L + (1,)
            t_start = time.perf_counter()
            exact_ranks, times, floats, lbs, at_bound = [], [], [], 0, 0
            D = N = 0
            for seed in range(args.count):
                net = random_network(arch, seed=seed)
                D, N = net.num_parameters, net.num_hidden
                t0 = time.perf_counter()
                r = functional_dimension(net, use_regions=False, seed=seed)
                times.append(time.perf_counter() - t0)
                exact_ranks.append((r.functional_dimension, r.status))
                lbs += r.status != "exact"
                at_bound += r.functional_dimension == r.bound
                floats.append(float_rank(net, 2 * D, seed))
                if time.perf_counter() - t_start > args.max_seconds_per_config:
                    break
            n = len(times)
            vals: dict[str, int] = {}
            for v, st in exact_ranks:
                key = f"{v}{'' if st == 'exact' else ' lb'}"
                vals[key] = vals.get(key, 0) + 1
            fvals: dict[int, int] = {}
            for v in floats:
                fvals[v] = fvals.get(v, 0) + 1
            feq = sum(f == e for f, (e, _) in zip(floats, exact_ranks))
            flt = sum(f < e for f, (e, _) in zip(floats, exact_ranks))
            print(
                f"| {','.join(map(str, arch))} | {D} | {D - N} | {n} | "
                + ", ".join(f"{k} x{c}" for k, c in sorted(vals.items(), reverse=True))
                + f" | {at_bound}/{n} | {lbs} | {statistics.mean(times):.2f}, {max(times):.2f} | "
                + ", ".join(f"{k} x{c}" for k, c in sorted(fvals.items(), reverse=True))
                + f" | {feq}/{n} | {flt}/{n} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
