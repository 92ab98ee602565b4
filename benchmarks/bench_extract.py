"""Benchmark ladder of issue 8: exact parameter extraction from an exact oracle.

Usage: ``python benchmarks/bench_extract.py [--only 784,32,1] [--seed S]``

Victims are seeded networks with dyadic weights ``p / 2^k`` (``p`` a nonzero integer in
``[-9, 9]``, ``k`` in ``0..3``), drawn here from ``random.Random(seed)`` so that no weight is
zero (a zero outgoing weight makes a neuron invisible and the network not identifiable;
:func:`exactnet.randnet.random_network` draws zeros with probability 1/19). The oracle
is a :class:`exactnet.oracle.NetworkOracle`; success is checked *exactly* afterwards with
the victim's weights (canonical forms, test side). Deep architectures are listed with the
extractor's honest answer (not implemented yet).

Published float attacks, for comparison (published numbers, not re-run here):
Carlini, Jagielski, Mironov, "Cryptanalytic Extraction of Neural Network Models",
CRYPTO 2020 (arXiv 2003.04884, abstract): "a 100,000 parameter neural network trained on the
MNIST digit recognition task with 2^21.5 queries in under an hour, such that the extracted model
agrees with the oracle on all inputs up to a worst-case error of 2^-25, or a model with 4,000
parameters in 2^18.5 queries with worst-case error of 2^-40.4" (float64; the 100,000-parameter
model is 784-128-1). The exact extractor's target here is at most 2^19 queries, with zero error.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flint import fmpq  # noqa: E402

from exactnet.errors import ExactnetError  # noqa: E402
from exactnet.extract import compare_with_victim, extract  # noqa: E402
from exactnet.network import Network  # noqa: E402
from exactnet.oracle import NetworkOracle  # noqa: E402

LADDER = [(10, 10, 10, 1), (40, 20, 10, 10, 1), (80, 40, 20, 1), (784, 32, 1), (784, 128, 1)]
PUBLISHED = {(784, 128, 1): "2^21.5 queries, worst-case error 2^-25 (Carlini et al. 2020, float64, published)"}


def dyadic_network(arch, seed: int) -> Network:
    rng = random.Random(seed)

    def q() -> fmpq:
        p = 0
        while p == 0:
            p = rng.randint(-9, 9)
        return fmpq(p, 2 ** rng.randint(0, 3))

    layers = []
    for l in range(1, len(arch)):
        layers.append(([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])]))
    return Network.from_lists(layers, name=f"victim-{'-'.join(map(str, arch))}-seed{seed}")


def run(arch, seed: int) -> dict:
    victim = dyadic_network(arch, seed)
    oracle = NetworkOracle(victim)
    t0 = time.perf_counter()
    try:
        res = extract(oracle, arch, seed=seed)
    except ExactnetError as e:
        return {"arch": arch, "queries": oracle.queries, "seconds": time.perf_counter() - t0,
                "result": f"{type(e).__name__}: {str(e)[:70]}", "timing": {}}
    cmp = compare_with_victim(res.network, victim)
    ok = cmp.get("same_orbit") is True
    return {"arch": arch, "queries": res.queries, "seconds": res.seconds, "oracle_seconds": res.oracle_seconds,
            "result": ("EXACT (same orbit)" if ok else f"status {res.status}, same_orbit={cmp.get('same_orbit')}"),
            "timing": res.timing}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None, help="one architecture, e.g. 784,32,1")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ladder = [tuple(int(v) for v in args.only.split(","))] if args.only else LADDER
    print(f"{'architecture':<18} {'queries':>9} {'log2':>6} {'seconds':>8} {'oracle s':>8}  result")
    for arch in ladder:
        r = run(arch, args.seed)
        name = "-".join(map(str, arch))
        lq = math.log2(r["queries"]) if r["queries"] else 0.0
        print(f"{name:<18} {r['queries']:>9} {lq:>6.2f} {r['seconds']:>8.2f} {r.get('oracle_seconds', 0):>8.2f}  {r['result']}")
        if r["timing"]:
            print(f"{'':<18} time split: " + ", ".join(f"{k} {v:.2f} s" for k, v in r["timing"].items()))
        if arch in PUBLISHED:
            print(f"{'':<18} published float attack: {PUBLISHED[arch]}; target here <= 2^19 = 524288 queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
