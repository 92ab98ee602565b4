"""Shallow certification times: decide + certificate + independent check (issue 5 target < 1 s).

Run ``python benchmarks/bench_shallow.py``; prints one row per architecture (seeded random
networks from exactnet.randnet) with the verdict counts and the mean / max seconds.

Recorded on a shared 2-core machine (load about 3), before and after the bounded zero-sum witness
search (exactnet.zero_sum) that runs beyond the certifiable limits (seconds; the verdicts of the
other two rows did not change)::

                   arch        verdicts                          decide mean  decide max  check mean  total max
    before   (2, 64, 1)        HIDDEN-SYMMETRY 8, UNDECIDED 2         0.0684      0.5548      0.0215     0.5548
    after    (2, 64, 1)        HIDDEN-SYMMETRY 10                     0.0590      0.4206      0.0196     0.4365
    before  (10, 32, 3)        HIDDEN-SYMMETRY 1, IDENTIFIABLE 9      0.0139      0.0182      0.0227     0.0526
    after   (10, 32, 3)        HIDDEN-SYMMETRY 1, IDENTIFIABLE 9      0.0126      0.0165      0.0198     0.0437

Seed 0 of (2, 64, 1) is a flip set of 13 neurons found by the witness search, seed 6 a class-mode
witness for T = Q; the largest time (seed 6) is Lemma 5's LPs and the 1,024-configuration scan
before the witness search, which itself takes milliseconds.

Rows marked ``g`` (``GENERIC``: numerators and denominators up to 1000, as a user's or a trained
network's weights look, unlike the default small rationals, which almost always hold a hidden
symmetry at width 64) were added on 2026-12-03 with the ``exclude modulus`` step of rule
shallow-1 (proofs/lemmas/shallow.md, Lemma 4). Same machine (load about 3), 10 seeds each,
before (HEAD without the step) and after::

                     arch   verdicts before                  verdicts after                     total max after
      (2, 64, 1) g   UNDECIDED 10                     IDENTIFIABLE 10                    0.125
     (10, 32, 3) g   IDENTIFIABLE 10                  IDENTIFIABLE 10                    0.011
      (3, 40, 2) g   UNDECIDED 10                     IDENTIFIABLE 10                    0.058
     (1, 100, 1) g   HIDDEN-SYMMETRY 1, UNDECIDED 9   HIDDEN-SYMMETRY 1, IDENTIFIABLE 9  0.226

A step first dropped one neuron at a time (the only one whose scaled coordinate is not divisible by
``M``): that settled the first three rows, but in one input dimension it left about half of the
100 neurons. Dropping up to 16 at once when no subset of them sums to ``0`` modulo ``M`` settles
that row too. A single neuron off ``M`` is taken as soon as it is found; the residue search runs
only when there is none (scoring every prime first had doubled the times of the first rows).
"""

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactnet.cert_shallow import certificate_for  # noqa: E402
from exactnet.randnet import random_network  # noqa: E402
from exactnet.shallow import decide_shallow  # noqa: E402
from proofs.check import check_text  # noqa: E402


#: "generic" weights (rows marked g): numerators and denominators up to 1000
GENERIC = {"max_num": 1000, "max_den": 1000}


def main(seeds: int = 10) -> None:
    decide_shallow(random_network((2, 3, 1), 0))  # warm-up (scipy import)
    print(f"{'arch':>14} {'verdicts':<40} {'decide mean':>11} {'decide max':>10} {'check mean':>10} {'total max':>9}")
    rows = [(a, {}) for a in [(2, 64, 1), (10, 32, 3), (2, 16, 1), (5, 20, 2)]]
    rows += [(a, GENERIC) for a in [(2, 64, 1), (10, 32, 3), (3, 40, 2), (1, 100, 1)]]
    for arch, law in rows:
        ts, tc, tot, verdicts = [], [], [], Counter()
        for s in range(seeds):
            net = random_network(arch, s, **law)
            t0 = time.perf_counter()
            v = decide_shallow(net)
            t1 = time.perf_counter()
            if v.verdict != "UNDECIDED":
                code, line, _ = check_text(certificate_for(net, v))
                assert code == 0, line
            t2 = time.perf_counter()
            verdicts[v.verdict] += 1
            ts.append(t1 - t0)
            tc.append(t2 - t1)
            tot.append(t2 - t0)
        vs = ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items()))
        print(f"{str(arch) + (' g' if law else ''):>14} {vs:<40} {sum(ts)/len(ts):11.4f} {max(ts):10.4f} {sum(tc)/len(tc):10.4f} {max(tot):9.4f}")


if __name__ == "__main__":
    main()
