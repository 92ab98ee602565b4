"""Benchmark (issue 5): exact functional dimension of deep ``(w, w, ..., w, 1)`` networks vs a float estimate.

Architectures ``(w, w, ..., w, 1)``: input width ``w``, ``L - 1`` hidden layers of width ``w``,
one output; ``L = depth`` affine layers (``Network.depth``) in 4, 5, 6 and ``w`` in 5, 10, 15.
Networks: ``exactnet.randnet.random_network(arch, seed)`` (weights ``p/q``, ``|p| <= 9``,
``q <= 5``), seeds ``0..count-1``.

Exact column: :func:`exactnet.fdim.functional_dimension`: sampled points (Gaussian of several
spreads and random lines), Jacobian rows modulo a prime below 2^31 (numpy int64), rank by
``nmod_mat`` (a proved lower bound: a nonzero minor mod p is a nonzero rational minor); the
proved upper bound is ``D`` minus the rank of the structural kernel (scalings, dead /
irrelevant / stably active neurons, plus facts proved by exact LP branch and bound: deep
dead or stably active neurons, adjacent pairs never both active, last-layer pairs with the
same activation where an input is active). "exact" = the two bounds meet. For the widths in
``--regions-widths`` (default 5) the region complex is tried (``--regions-timeout``) only
when they do not. Certificates: for the widths in ``--certify-widths`` every
LOCALLY-IDENTIFIABLE result is written as a certificate and checked by ``proofs/check.py``.

Float column: ``numpy.linalg.matrix_rank`` (default tolerance) of the float64 Jacobian at
``2 D`` standard Gaussian points (seed = network seed), the usual numerical estimate.
"float wrong": the float estimate differs from the proved exact value; "float > lb": it is
above our proved lower bound (never seen: it would show that our sample missed a region).

Certificates for the wider rows (2026-12-03, commit a790e6d: without the minor hint above
``D - N = 64`` the checker finds the rank modulo ``2^61 - 1`` instead of an exact ``(D-N) x (D-N)``
determinant), ``--depths 4 --widths 10,15 --certify-widths 10,15 --count 20``, load about 2 (a
second job on the other core), same ranks as the table below::

    | 10,10,10,10,1 (4) | 341 | 311 | 20 | 19 / 0 | 1 | 303.1 | 303.1 | 296.7 | 15/19 | 0/1 | 9/9 (6.25) | 2.24 (8.09) |
    | 15,15,15,15,1 (4) | 736 | 691 | 20 | 19 / 0 | 1 | 678.8 | 678.8 | 669.1 | 17/19 | 0/1 | 7/7 (56.73) | 5.82 (17.84) |

Every LOCALLY-IDENTIFIABLE network of these rows now has a checked certificate (9 and 7 of them;
the others have rank below ``D - N``). Before, the width-10 check took minutes per certificate
(390 s for a ``D - N = 337`` determinant of a ``(4,16,16,1)`` network) and the width-15
determinants had more than the checker's 4,000 digits (``E_LIMIT``).

Session 25 (2026-12-06, commit a4f85db against 470c451): the exact multipliers of a branch-and-bound leaf
(``fdim._exact_multipliers``) are read from the diagonal pivots without converting the reduced matrix to lists,
1.5x faster per check (before, ``fmpq_mat.rref`` and the conversion took 57% of a hard proof's CPU). The
width-15 depth-6 row, seeds 0-19, each network in its own process, old and new alternating, load about 2:
**609.7 -> 588.7 CPU s** in all, the same values and upper bounds on all 20; seed 19 stays 1108..1116 at the
default budget (186.7 -> 179.3 CPU s; two more of its facts are proved, 29 -> 27 open). Its open facts need
trees of about 10,000 nodes each (one pair, run alone: 10,779 nodes, 20-25 CPU s); interval bounds on a box,
float bound tightening and other branching orders did not shrink them (measured, not kept).

Latest run (2026-12-06, session 19, same machine): the default ``--lp-budget`` is now **30** CPU s
per phase (was 10; commit 03c03dc). All nine rows at 30 (commit ddbcdc7 code, ``--lp-budget 30``,
two processes, ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``; the machine was heavily loaded for part
of the run by another job, so its wall-clock times are not comparable and are not quoted): the same
value as at 10 on 177 of the 180 networks, and the three intervals at 10 become: width 10 depth 6
seed 12 **487 exact**, width 15 depth 6 seed 17 **1109 exact**, seed 19 1108..1116 (was 1108..1119).
**179 of 180 exact at the new default.** In their own processes (``big.py``: ``functional_dimension``
as this script calls it): seed 12 at 30 and 60: 487 in 103.0 and 106.4 CPU s; seed 17 at 30, 60 and
300: 1109 in 99.2, 88.7, 86.4 CPU s; **seed 19 at 300: exactly 1108**, in 1098 CPU s. The width-15
depth-6 row at ``--lp-budget 300``: **20 / 20 exact** (mean rank 1116.8 = mean proved upper bound).
So every network of the suite has an exact functional dimension within a large enough budget; the
default trades the last one (18 CPU minutes) for time.

Timing of the new default, commit 03c03dc, the two depth-6 rows in two processes (single-threaded
NumPy), load 2 to 4 (other test jobs on the machine), s/net mean (max), wall clock::

    | arch (depth L)          | exact at 30 | s/net at 30    | s/net at 10 (session 18, quiet) |
    | 10,10,10,10,10,10,1 (6) | 20 / 20     | 15.04 (127.55) | 9.15 (63.98)                    |
    | 15,15,15,15,15,15,1 (6) | 19 / 20     | 35.56 (181.24) | 26.47 (87.42)                   |

The networks whose facts are all decided within 10 s take the same time (the budget is a bound, not
a cost); the ones that used to stop at 10 s per phase now go on to their answer (width 10 seed 12:
127.6 s under this load for the exact 487, against 64.0 s for the interval; width 15 seed 17: 94.3 s
for the exact 1109; seed 19: 181.2 s for 1108..1116, the one interval left at the default).

Latest run (2026-12-06, the same machine as the next entry), *before* = commit 37af6ae, *after* =
commit f505920: an LP-fact phase also gets the CPU seconds that the phases before it left unused
(``fdim._PhaseBudget``; every phase still gets at least ``--lp-budget``, all phases together at most
``--lp-budget`` times their number, as before). The depth-6 rows of widths 10 and 15 (the only
rows with intervals), ``--count 20 --max-seconds-per-config 100000``, before and after at the same
time, one process each, with ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` (otherwise NumPy's
threads oversubscribe the 2 cores and the wall-clock times below mean little). s/net mean (max)::

    | arch (depth L)          | exact before | exact after | s/net before   | s/net after    |
    | 10,10,10,10,10,10,1 (6) | 19 / 20      | 19 / 20     | 7.25 (27.36)   | 9.15 (63.98)   |
    | 15,15,15,15,15,15,1 (6) | 17 / 20      | 18 / 20     | 24.10 (79.50)  | 26.47 (87.42)  |

Width 15 depth 6 seed 2 is now exactly 1079 (66.1 -> 64.8 s): its column-relation candidate gets
the seconds the first phases left. The three intervals that stay (width 10 seed 12, 487..489;
width 15 seeds 17, 1108..1109, and 19, 1108..1119) spend more of the same total bound: 27.4 ->
64.0, 66.0 -> 87.4 and 79.5 -> 86.2 s; seed 0 (exact either way) 45.6 -> 60.9 s; every other
network within noise, with the same values. The other seven rows (widths 5, 10, 15, depths 4 and
5; width 5 depth 6), run at the same time as each other in two processes: the same exact values on
all 140 networks; width 10 depth 5 run alone at f505920 takes 1.38 s/net (seed 17: 3.78 s), against
1.34 (3.52) before. **On this machine now 177 of 180 exact** (before 176).

Tried and not kept: a float MIP (HiGHS, big-M encoding of every relu on the box
``|x_i| <= 100``, interval bounds) proposing refutations at the last pass of a hard proof. At depth 6
the big-M constants reach about 1e12, and the MIP's "optimal" points were not network points (seed
17's open pair: the MIP claimed both neurons at least 1, the exact evaluation at its point gave -19
for one); in the branch and bound it refuted one pair, but spent the
budget of the others (seed 17 stayed 1108..1109, with one more fact open).

Earlier runs (2026-12-05/06, another machine than the runs below: slower, so a 10 CPU s budget
decides less), *before* = commit 080af2f, *after* = commit 11bf622: the phase branch and bound's
node LPs solve once (columns boxed in the float model only), the second and third passes go on
from the trees the pass before left open, and the exact checks of a tree's leaves wait until
every leaf closes in floats. Same options as below (``--count 20``, LP budget 10 CPU s per phase,
width 5 with ``--regions-timeout 300``), two processes on the 2 cores, the width-15 process of
*after* with ``--max-seconds-per-config 100000`` (*before*'s hit the default 600 s cap after 19
networks of the depth-6 row: seed 19 is missing there; in its own process at 080af2f it is
1108..1140, 94.6 CPU s). s/net mean (max), wall clock::

    | arch (depth L)          | exact before | exact after | s/net before   | s/net after    |
    | 5,5,5,5,1 (4)           | 20 / 20      | 20 / 20     | 0.20 (0.45)    | 0.19 (0.46)    |
    | 10,10,10,10,1 (4)       | 20 / 20      | 20 / 20     | 0.74 (1.47)    | 0.68 (1.28)    |
    | 15,15,15,15,1 (4)       | 20 / 20      | 20 / 20     | 2.56 (8.10)    | 2.33 (8.54)    |
    | 5,5,5,5,5,1 (5)         | 20 / 20      | 20 / 20     | 0.77 (8.03)    | 0.83 (9.80)    |
    | 10,10,10,10,10,1 (5)    | 20 / 20      | 20 / 20     | 2.92 (19.45)   | 2.98 (18.99)   |
    | 15,15,15,15,15,1 (5)    | 20 / 20      | 20 / 20     | 7.72 (23.26)   | 7.31 (23.61)   |
    | 5,5,5,5,5,5,1 (6)       | 20 / 20      | 20 / 20     | 5.46 (36.14)   | 5.26 (34.01)   |
    | 10,10,10,10,10,10,1 (6) | 19 / 20      | 19 / 20     | 12.55 (62.25)  | 7.20 (26.70)   |
    | 15,15,15,15,15,15,1 (6) | 18 / 19 (+1) | 17 / 20     | 25.57 (85.08)  | 30.40 (107.74) |

Same ranks and upper bounds wherever both are exact. **Before 177 of 180 exact on this machine,
after 176.** The intervals: width 10 depth 6 seed 12, 487..489 in both (its two column relations
still need more than 10 s; its time 62.3 -> 26.7 s); width 15 depth 6 seed 17, 1108..1109 in
both; seed 19, 1108..1140 -> 1108..1119 ((5,2) is proved dead now; in its own process at ec320b8
109 -> 55 facts left open); seed 2, exactly 1079 before and 1078..1079 after. Seed 2 is chance, not the method: its last column-relation
candidate comes from the null space of the sample, which the LP witnesses change; before, the two
candidates were refuted (points that lift the rank to 1079), after, the one candidate is refuted only
after 14.3 CPU s (at ``--lp-budget 30`` seed 2 is exactly 1079, 101.6 CPU s). The width-15 depth-6 row
is slower per network after because seed 19 now spends its budget proving facts (and seed 2 its
budget on that candidate); six seed-19 proofs alone take 123.5 -> 70.6 CPU s with the single
solve per node.

Run at commit 0c13a9c (2026-12-05, the machine of the earlier runs): since the re-run at 7e4289b below, the directed search
(2b) also aims at the last-hidden-layer pairs never seen of opposite signs where a neuron of the
layer below is active (the candidates of the "same activation" LP facts), and retries the goals
still open once at 4x the starts and 3x the steps. Same options (``--count 20``, no per-row cap, the
default LP budget of 10 CPU s per phase, width 5 with ``--regions-timeout 300``), two processes on
the 2 cores, no other job. **178 of 180 networks exact**::

    | arch (depth L) | D | D-N | nets | exact (reached proved bound / complex) | lower bounds | mean rank | mean proved upper | float: mean rank | float wrong (exact rows) | float > lb | certificates checked (s each) | s/net mean (max) |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|
    | 5,5,5,5,1 (4) | 96 | 81 | 20 | 20 / 0 | 0 | 75.0 | 75.0 | 66.0 | 19/20 | 0/0 | 2/2 (0.10) | 0.15 (0.37) |
    | 10,10,10,10,1 (4) | 341 | 311 | 20 | 20 / 0 | 0 | 303.1 | 303.1 | 296.7 | 16/20 | 0/0 | - | 0.59 (1.30) |
    | 15,15,15,15,1 (4) | 736 | 691 | 20 | 20 / 0 | 0 | 678.8 | 678.8 | 669.1 | 18/20 | 0/0 | - | 2.10 (7.81) |
    | 5,5,5,5,5,1 (5) | 126 | 106 | 20 | 19 / 1 | 0 | 94.5 | 94.7 | 77.0 | 19/20 | 0/0 | 1/1 (0.17) | 0.68 (7.58) |
    | 10,10,10,10,10,1 (5) | 451 | 411 | 20 | 20 / 0 | 0 | 400.8 | 400.8 | 378.7 | 19/20 | 0/0 | - | 1.94 (9.14) |
    | 15,15,15,15,15,1 (5) | 976 | 916 | 20 | 20 / 0 | 0 | 903.0 | 903.0 | 873.9 | 20/20 | 0/0 | - | 5.48 (15.75) |
    | 5,5,5,5,5,5,1 (6) | 156 | 131 | 20 | 16 / 4 | 0 | 108.0 | 108.5 | 82.5 | 20/20 | 0/0 | - | 4.86 (35.59) |
    | 10,10,10,10,10,10,1 (6) | 561 | 511 | 20 | 19 / 0 | 1 | 495.8 | 495.9 | 452.4 | 19/19 | 0/1 | - | 8.60 (38.81) |
    | 15,15,15,15,15,15,1 (6) | 1216 | 1141 | 20 | 19 / 0 | 1 | 1116.8 | 1117.5 | 1053.8 | 19/19 | 0/1 | - | 27.20 (94.60) |

Against 7e4289b: width 15 depth 6 16 -> **19 / 20** (seeds 12, 14, 17 now 1108, 1105, 1109; s/net
34.2 -> 27.2); the other rows have the same values. Time per network is lower on the width-15
rows (depth 5 7.55 -> 5.48 s) and higher on width 10 depth 6 (7.42 -> 8.60 s: seed 12, still
487..489, took 38.8 s instead of 27.9; in its own process 33.6 CPU s, against 27.0 with the first
ascent effort only and 27.3 without the new goals, so the second effort costs it about 6.6 s). Float wrong on 169 of the 178
proved values, never above a proved lower bound. The two intervals: width 10 depth 6 seed 12
(487..489: two true column relations that need 73 and 50 CPU s, see below; with ``--lp-budget 150``
exactly 487 in 181.7 CPU s) and width 15 depth 6 seed 19 (1108..1124; in its own process 67 LP
facts left open, listed by ``FdimResult.undecided``; with ``--lp-budget 60`` 1108..1117, 33 open,
331 CPU s).

Earlier the same day, commit 81f5a5f. Since the previous run: the directed search for suspects
(step 2b, ``fdim_ascent``), the branch-and-bound node LPs in one warm-started HiGHS model per
proof (``phase_lp``) with a third pass at 128x the nodes, the review's fix of the exact check (only
the node's own sides; 18ffd9a), exact checks on supports cut relative to the float vector's
largest entry, and a depth-first search that takes the child on the LP point's side first.
Same options as the previous run (``--count 20``, no per-row cap, the default LP budget of 10 CPU
s per phase for every row, width 5 with ``--regions-timeout 300``), two processes on the 2 cores
(load about 2, a third job part of the time). **173 of 180 networks exact** (previous run: 156)::

    | arch (depth L) | D | D-N | nets | exact (reached proved bound / complex) | lower bounds | mean rank | mean proved upper | float: mean rank | float wrong (exact rows) | float > lb | certificates checked (s each) | s/net mean (max) |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|
    | 5,5,5,5,1 (4) | 96 | 81 | 20 | 20 / 0 | 0 | 75.0 | 75.0 | 66.0 | 19/20 | 0/0 | 2/2 (0.12) | 0.10 (0.20) |
    | 10,10,10,10,1 (4) | 341 | 311 | 20 | 20 / 0 | 0 | 303.1 | 303.1 | 296.7 | 16/20 | 0/0 | - | 1.00 (2.68) |
    | 15,15,15,15,1 (4) | 736 | 691 | 20 | 20 / 0 | 0 | 678.8 | 678.8 | 669.1 | 18/20 | 0/0 | - | 2.21 (7.19) |
    | 5,5,5,5,5,1 (5) | 126 | 106 | 20 | 19 / 1 | 0 | 94.5 | 94.7 | 77.0 | 19/20 | 0/0 | 1/1 (0.17) | 0.48 (6.14) |
    | 10,10,10,10,10,1 (5) | 451 | 411 | 20 | 20 / 0 | 0 | 400.8 | 400.8 | 378.7 | 19/20 | 0/0 | - | 2.88 (13.79) |
    | 15,15,15,15,15,1 (5) | 976 | 916 | 20 | 20 / 0 | 0 | 903.0 | 903.0 | 873.9 | 20/20 | 0/0 | - | 7.05 (17.81) |
    | 5,5,5,5,5,5,1 (6) | 156 | 131 | 20 | 16 / 4 | 0 | 108.0 | 108.5 | 82.5 | 20/20 | 0/0 | - | 4.66 (34.88) |
    | 10,10,10,10,10,10,1 (6) | 561 | 511 | 20 | 18 / 0 | 2 | 495.8 | 495.9 | 452.4 | 18/18 | 0/2 | - | 8.66 (28.85) |
    | 15,15,15,15,15,15,1 (6) | 1216 | 1141 | 20 | 15 / 0 | 5 | 1115.8 | 1117.6 | 1053.8 | 15/15 | 0/5 | - | 38.13 (118.53) |

Against the previous run, exact networks per row: width 15 depth 5 14 -> 20, depth 6 8 -> 15,
width 10 depth 6 15 -> 18; the other rows were already all exact (width 15 depth 4 now 20 / 20
without the step-3e re-run). The float estimate is wrong on 164 of the 173 proved values and never
above a proved lower bound. Mean time per network fell on every deep row (width 15 depth 6 64.8 ->
38.1 s, depth 5 16.6 -> 7.1 s; width 10 depth 6 15.2 -> 8.7 s; width 5 depth 6 11.8 -> 4.7 s).
The seven intervals: width 10 depth 6 seeds 2 (490..491) and 12 (487..489); width 15 depth 6
seeds 10 (1089..1090), 12 (1104..1109), 14 (1101..1105), 17 (1103..1109), 19 (1105..1124).

The same day at commit dc771f6 (before the last two changes, same options and load): **172 of
180**, with width 10 depth 6 19 / 20 (seed 2 exact) and width 15 depth 6 13 / 20 (seeds 0, 4 and 7
intervals, seed 10 exact, seed 19 1102..1140). A third variant (the relative supports, the
LP-side order only in the column relations) gave 19 and 13 on those two rows. So on the last
networks of these rows the outcome of a 10 s budget moves by one or two networks between variants
whose proofs are the same: which refutation points join the sample decides whether the last thin
region is found (``(10,)*6+(1,)`` seed 2 ends 490..491 or 491 with the same proved upper bound
491). Seeds 0, 4 and 7 of width 15 depth 6 became exact with the committed order, alone as well
as here (seed 7: 1140..1141 in 43 s -> 1141 = ``D - N`` in 25 s).

Re-run at commit 7e4289b (2026-12-05, same options, two processes on the 2 cores, nothing
else running): the column relations branch only on neurons that can still change the relation's
sum, close a node without an LP once its fixed neurons make the sum zero for every completion,
and split a node whose LP stays undecided instead of giving up on the relation. **175 of 180
exact.** Rows that moved: width 10 depth 6 18 -> **19 / 20** (seed 2 now 491; s/net 7.42, max
27.93); width 15 depth 6 15 -> **16 / 20** (seed 10 now 1090; s/net 34.21, max 102.39). The other
seven rows have the same values (all exact) and s/net within load noise (width 5: 0.10, 0.60,
5.07; width 10: 0.59, 1.86; width 15: 2.39, 7.55). Float wrong on 166 of the 175 proved values,
never above a proved lower bound. The five intervals: width 10 depth 6 seed 12 (487..489), width
15 depth 6 seeds 12 (1106..1109), 14 (1101..1105), 17 (1106..1109), 19 (1105..1140). Seed 12 of
width 10 depth 6: its two open column relations are proved by the new search, but in 73 and 50 s
(200,000 nodes), beyond the 10 s budget per phase. Seed 19 of width 15 depth 6 had the proved
upper bound 1124 in the 81f5a5f run and 1140 here; re-run at 7e4289b in its own process it is
1105..1124 four times (alone, beside a second copy, after seed 18 in the same process; 74 CPU s
each) and 1106..1118 at ``--lp-budget 60`` (273 CPU s). Which facts a CPU-second budget reaches
depends on how much work a CPU second does on this shared machine; the wall-clock time of this run
(90.8 s against 72) says it did less here.

Previous run (2026-12-04, commit 25bd5a0: refutation points proposed deep inside the LP point's
activation pattern (``margin_point``: the pattern frozen, a float LP maximises the smallest
margin, exact evaluation disposes) for the never-positive / never-both-active branch and bound
and for the column relations, refutation points moved off every bent hyperplane before they
join the sample, column relations tried top layers first). ``--count 20``, no per-row cap
(``--max-seconds-per-config 100000``), the **default LP budget (10 CPU s per phase) for every
row**, width 10 depth 6 included (the third run below gave it 40). Width 5 with
``--regions-timeout 300``. Two processes on the 2 cores, plus a third job part of the time (load
2-3). **156 of 180 networks exact** (third run: 143)::

    | arch (depth L) | D | D-N | nets | exact (reached proved bound / complex) | lower bounds | mean rank | mean proved upper | float: mean rank | float wrong (exact rows) | float > lb | certificates checked (s each) | s/net mean (max) |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|
    | 5,5,5,5,1 (4) | 96 | 81 | 20 | 20 / 0 | 0 | 75.0 | 75.0 | 66.0 | 19/20 | 0/0 | 2/2 (0.23) | 0.30 (0.88) |
    | 10,10,10,10,1 (4) | 341 | 311 | 20 | 20 / 0 | 0 | 303.1 | 303.1 | 296.7 | 16/20 | 0/0 | - | 0.80 (3.42) |
    | 15,15,15,15,1 (4) | 736 | 691 | 20 | 19 / 0 | 1 | 678.8 | 678.8 | 669.1 | 17/19 | 0/1 | - | 2.77 (6.48) |
    | 5,5,5,5,5,1 (5) | 126 | 106 | 20 | 19 / 1 | 0 | 94.5 | 94.7 | 77.0 | 19/20 | 0/0 | 1/1 (0.33) | 1.76 (21.08) |
    | 10,10,10,10,10,1 (5) | 451 | 411 | 20 | 20 / 0 | 0 | 400.8 | 400.8 | 378.7 | 19/20 | 0/0 | - | 3.54 (14.51) |
    | 15,15,15,15,15,1 (5) | 976 | 916 | 20 | 14 / 0 | 6 | 902.5 | 903.1 | 873.9 | 14/14 | 0/6 | - | 16.62 (59.77) |
    | 5,5,5,5,5,5,1 (6) | 156 | 131 | 20 | 16 / 4 | 0 | 108.0 | 108.5 | 82.5 | 20/20 | 0/0 | - | 11.84 (57.71) |
    | 10,10,10,10,10,10,1 (6) | 561 | 511 | 20 | 15 / 0 | 5 | 495.5 | 496.4 | 452.4 | 15/15 | 0/5 | - | 15.16 (43.76) |
    | 15,15,15,15,15,15,1 (6) | 1216 | 1141 | 20 | 8 / 0 | 12 | 1109.0 | 1119.7 | 1053.8 | 8/8 | 0/12 | - | 64.76 (250.73) |

Against the third run, per row (exact networks): width 10 depth 4 19 -> 20, depth 5 17 -> 20,
depth 6 11 (at ``--lp-budget 40``) -> 15 (at the default 10); width 15 depth 5 12 -> 14, depth 6
5 -> 8; the other four rows were already all exact or are unchanged (width 15 depth 4: 19). The
float estimate is wrong on 147 of the 156 proved values and never above a proved lower bound.
Mean wall-clock time per network against the third run (load 2-3 here, 2-4 there, so only
roughly comparable): width 5 depth 6 20.7 -> 11.8 s, width 10 depths 4-6 4.55 -> 0.80, 15.3 -> 3.5,
43.8 (budget 40) -> 15.2 s, width 15 depths 4-6 6.4 -> 2.8, 40.3 -> 16.6, 104 -> 65 s. Width 15 depth 4, seed 19, stays
660..661: with this benchmark's sampling seed (= network seed) the sample misses one thin region;
``functional_dimension(net)`` with the sampling seeds 0-7 proves 661 in about 2 CPU s each, so the
gap is a sampling miss, not an unknown kernel direction. Commit 0aaa14b adds step (3e) (fresh
batches from other seeds, each with one walk round); re-run of two rows the same day, one process
beside a slow test run: width 15 depth 4 **20 / 20** exact (seed 19 now 661; s/net 2.72, max 7.31);
width 10 depth 6 14 / 20 (seed 16, 508..509, is not closed by it, and seed 2 fell back to 490..491
at the 10 CPU s budget under this load; it is exact alone, 491 in 30 CPU s). Commit 35bc1ab: four
fresh batches by default; width 10 depth 6 re-run beside a test run: **15 / 20** exact (seed 16 now
509; seed 2 still 490..491 under load; s/net 17.1, max 48.9). CPU-time budgets still depend a little on
the load: width 15 depth 6, seed 0, was 1136..1138 in a capped run the same morning and 1135..1139
in this one.

Third run (2026-12-03, third run that day, commit 6af8b81: the same mathematics as the second run
below, faster: sensitivities of every layer in one backward pass, the sample's rank grown
incrementally (``modrank.RowBasisModP``), pre-activations by integer matrix products). ``--count
20`` and **no per-row cap**: every row has its 20 networks. Width 5 with ``--regions-timeout 300``;
width 10 depth 6 with ``--lp-budget 40``; the others with the default LP budget (10 CPU s per
phase). Up to four processes on the 2 cores (load 2-4), so the wall-clock "s/net" are inflated
1.5-2 times. 143 of 180 networks exact::

    | arch (depth L) | D | D-N | nets | exact (reached proved bound / complex) | lower bounds | mean rank | mean proved upper | float: mean rank | float wrong (exact rows) | float > lb | certificates checked (s each) | s/net mean (max) |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|
    | 5,5,5,5,1 (4) | 96 | 81 | 20 | 20 / 0 | 0 | 75.0 | 75.0 | 66.0 | 19/20 | 0/0 | 2/2 (1.41) | 0.59 (1.52) |
    | 10,10,10,10,1 (4) | 341 | 311 | 20 | 19 / 0 | 1 | 303.1 | 303.1 | 296.7 | 15/19 | 0/1 | - | 4.55 (18.89) |
    | 15,15,15,15,1 (4) | 736 | 691 | 20 | 19 / 0 | 1 | 678.8 | 678.8 | 669.1 | 17/19 | 0/1 | - | 6.43 (19.05) |
    | 5,5,5,5,5,1 (5) | 126 | 106 | 20 | 19 / 1 | 0 | 94.5 | 94.7 | 77.0 | 19/20 | 0/0 | 1/1 (4.55) | 3.46 (35.15) |
    | 10,10,10,10,10,1 (5) | 451 | 411 | 20 | 17 / 0 | 3 | 400.6 | 400.8 | 378.7 | 16/17 | 0/3 | - | 15.32 (41.29) |
    | 15,15,15,15,15,1 (5) | 976 | 916 | 20 | 12 / 0 | 8 | 901.9 | 903.5 | 873.9 | 12/12 | 0/8 | - | 40.33 (124.36) |
    | 5,5,5,5,5,5,1 (6) | 156 | 131 | 20 | 15 / 5 | 0 | 108.0 | 109.1 | 82.5 | 20/20 | 0/0 | - | 20.70 (141.79) |
    | 10,10,10,10,10,10,1 (6), ``--lp-budget 40`` | 561 | 511 | 20 | 11 / 0 | 9 | 495.0 | 495.9 | 452.4 | 11/11 | 0/9 | - | 43.81 (128.03) |
    | 15,15,15,15,15,15,1 (6) | 1216 | 1141 | 20 | 5 / 0 | 15 | 1104.2 | 1120.6 | 1053.8 | 5/5 | 0/15 | - | 104.46 (256.46) |

Every width-5 network is exact. The seven rows the second run completed have the same number of
exact networks and the same mean rank as there (its per-network values were not kept, so this
is a comparison of the table, not of each network); width 5 depth 6 now reaches one network's
value by the complex instead of the proved bound (15 / 5 against 16 / 4: a CPU-time budget
still depends a little on the load). The width-15 depth-5 and depth-6 rows now have all 20
networks (the second run's caps stopped them at 17 and 5).
The float estimate is wrong on 134 of the 143 networks whose value is proved, and never above a
proved lower bound. Time per network against the second run (same load range): about 1.5-3x less
(width 15 depth 4: 21.8 -> 6.4 s; depth 6: 193 s on 5 networks -> 104 s on 20). One width-15
depth-6 network, seed 1, timed alone: 59.5 CPU s before these changes, 28.9 after (and 20.8 at
commit 5e72b84, which filters ``line_points`` by one batch of pre-activations; the table was not
re-run there). The width-15
depth-6 intervals are wide on some networks (seed 19: 1051..1141: no LP fact proved within the
default 10 CPU s per phase); a larger ``--lp-budget`` narrows them, at a cost.

Second run (2026-12-03, second run that day, commits 420ca96 / 401da33: crossing walk, LP budgets in
CPU seconds, deeper second branch-and-bound pass; ``--count 20``, each width its own process,
2 cores shared with other jobs at load 5-8, so the wall-clock "s/net" are inflated 2-3 times).
Width 5 with ``--regions-timeout 300``; width 10 depths 4, 5 and width 15 with the default LP
budget (10 CPU s per phase); width 10 depth 6 with ``--lp-budget 40``; per-row caps
(``--max-seconds-per-config`` 1200 / 1800 / 900) cut the width-15 depths 5 and 6 (column
"nets"). 138 of 162 networks exact (the first run that day: 104 of 173). Width 10 depth 6 was
not re-run at the default budget; one of its networks (seed 1) is 469..482 at 10 s and
exactly 470 at 40 s. Per row (widths 5, 10, 15; networks exact of networks run; mean
s/net): depth 4: 20/20 1.13 s, 19/20 8.63 s, 19/20 21.76 s; depth 5: 20/20 5.15 s, 17/20
27.25 s, 11/17 52.65 s; depth 6: 20/20 31.54 s, 11/20 63.91 s, 1/5 193.05 s. Mean ranks as in
the third run's table above on the seven rows both completed; mean proved upper bounds too,
except width 5 depth 6 (109.0 here, 109.1 there). The float
estimate was wrong on 129 of the 138 networks whose value was proved.

First run that day (commit 791dbae, before the walk and the CPU-time budgets; widths 10 and 15
with ``--max-seconds-per-config 1500``): exact 20, 16, 18 (depth 4), 15, 12, 6 (depth 5),
11, 4, 2 of 13 (depth 6) for widths 5, 10, 15.

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
    ap.add_argument("--regions-widths", default="5",
                    help="widths for which the exact region complex is tried when the sampled rank stays "
                         "below the proved upper bound (default 5)")
    ap.add_argument("--regions-timeout", type=float, default=10.0)
    ap.add_argument("--certify-widths", default="5",
                    help="widths for which every LOCALLY-IDENTIFIABLE certificate is written and checked by "
                         "proofs/check.py (default 5; the checker's pure-Python determinant is slow above)")
    ap.add_argument("--max-seconds-per-config", type=float, default=600.0,
                    help="stop a configuration early (fewer networks, reported) after this long")
    ap.add_argument("--lp-budget", type=float, default=30.0,
                    help="CPU seconds per phase of exact LP facts (functional_dimension's sign_budget, default 30)")
    ap.add_argument("--detail", action="store_true", help="also print one line per network")
    args = ap.parse_args(argv)
    depths = [int(t) for t in args.depths.split(",")]
    widths = [int(t) for t in args.widths.split(",")]
    rwidths = {int(t) for t in args.regions_widths.split(",") if t}
    cwidths = {int(t) for t in args.certify_widths.split(",") if t}
    print("| arch (depth L) | D | D-N | nets | exact (reached proved bound / complex) | lower bounds | "
          "mean rank | mean proved upper | float: mean rank | float wrong (exact rows) | float > lb | "
          "certificates checked (s each) | s/net mean (max) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    detail = []
    t_all = time.perf_counter()
    for L in depths:
        for w in widths:
            arch = (w,) * L + (1,)
            t_start = time.perf_counter()
            recs = []
            D = N = 0
            certs = []
            for seed in range(args.count):
                net = random_network(arch, seed=seed)
                D, N = net.num_parameters, net.num_hidden
                t0 = time.perf_counter()
                r = functional_dimension(net, use_regions=w in rwidths, timeout=args.regions_timeout,
                                         max_cells=100000, seed=seed, sign_budget=args.lp_budget)
                dt = time.perf_counter() - t0
                if r.locally_identifiable and w in cwidths:
                    t1 = time.perf_counter()
                    ok = _certify_and_check(net, r)
                    certs.append((ok, time.perf_counter() - t1))
                fr = float_rank(net, 2 * D, seed)
                how = "bound" if r.status == "exact" and r.rank.method == "minor=bound" else r.point_source
                recs.append((seed, r.functional_dimension, r.status, how, r.upper_bound, fr, dt))
                detail.append((arch, seed, r.functional_dimension, r.status, how, r.upper_bound, D - N, fr, dt))
                if time.perf_counter() - t_start > args.max_seconds_per_config:
                    break
            n = len(recs)
            ex_bnd = sum(1 for r in recs if r[2] == "exact" and r[3] == "bound")
            ex_reg = sum(1 for r in recs if r[2] == "exact" and r[3] != "bound")
            lb_recs = [r for r in recs if r[2] != "exact"]
            exact_recs = [r for r in recs if r[2] == "exact"]
            f_wrong = sum(1 for r in exact_recs if r[5] != r[1])
            f_gt = sum(1 for r in lb_recs if r[5] > r[1])
            times = [r[6] for r in recs]
            ctxt = (f"{sum(ok for ok, _ in certs)}/{len(certs)} ({statistics.mean(t for _, t in certs):.2f})"
                    if certs else "-")
            print(
                f"| {','.join(map(str, arch))} ({L}) | {D} | {D - N} | {n} | {ex_bnd} / {ex_reg} | {len(lb_recs)} | "
                f"{statistics.mean(r[1] for r in recs):.1f} | {statistics.mean(r[4] for r in recs):.1f} | "
                f"{statistics.mean(r[5] for r in recs):.1f} | {f_wrong}/{len(exact_recs)} | {f_gt}/{len(lb_recs)} | "
                f"{ctxt} | {statistics.mean(times):.2f} ({max(times):.2f}) |",
                flush=True,
            )
    print(f"\ntotal {time.perf_counter() - t_all:.0f} s")
    if args.detail:
        print()
        print("| arch | seed | rank | status | how | proved upper | D-N | float | s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for a, sd, rk, st, src, up, b, fr, dt in detail:
            print(f"| {','.join(map(str, a))} | {sd} | {rk} | {st} | {src} | {up} | {b} | {fr} | {dt:.2f} |")
    return 0


def _certify_and_check(net, res) -> bool:
    """Write the LOCALLY-IDENTIFIABLE certificate of ``res`` and check it with the independent checker."""
    from exactnet.certificate import check_certificate_text, write_certificate
    from exactnet.fdim import local_identifiability_body

    text = write_certificate("LOCALLY-IDENTIFIABLE", net, local_identifiability_body(net, res))
    chk = check_certificate_text(text, network=net)
    ok = getattr(chk, "verified", None)
    return bool(chk[0] if ok is None else ok)


if __name__ == "__main__":
    raise SystemExit(main())
