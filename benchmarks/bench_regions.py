"""Benchmark of the exact region engine against two baselines run in the same process.

    python benchmarks/bench_regions.py [--quick] [--only NAME] [--skip-baselines] [--no-fraction]
                                       [--repeat N] [--profile] [--pairs N]

Suite (fixed seeds, ``exactnet.randnet.random_network(arch, seed=0)``): ``[2,8,8,1]``,
``[2,32,32,1]``, ``[2,20,20,20,1]`` over R^2 and ``[3,16,16,16,1]``, ``[4,16,16,1]``,
``[6,12,12,1]`` in the box ``[-1,1]^n0``. ``--quick`` scales the last three down (widths 8; 6 for the 6-D one)
because the exact engine needs minutes there on a 2-core machine.

Printed per network: cells, vertices, seconds (best of ``--repeat`` runs, short runs repeated
until 0.5 s of CPU time: the machine is shared), cells per second (wall clock and process CPU time), and the time ratios
``exact / float`` and ``fraction / exact`` (wall clock, and in CPU time: ``x/f cpu``,
``q/x cpu``, the robust ones on a loaded machine). The baselines run **the same algorithm** as the
exact engine, in the same process:

* ``n0 = 2`` (:mod:`exactnet.regions2d`): neuron-by-neuron subdivision, every neuron first
  tested on the whole previous-layer cell, polygons in homogeneous coordinates clipped by
  Sutherland-Hodgman with the foot point inserted between antipodal directions, then per
  leaf the facets (edge records) with witnesses, the interior point, the corners and the
  output map. **float**: float64 with NumPy products (layer maps, whole-cell sign tests),
  tolerance 1e-9; **fraction**: ``fractions.Fraction`` in Python lists, normalised
  homogeneous vectors (``T = 1`` or ``max(|X|, |Y|) = 1``).
* ``n0 > 2`` (:mod:`exactnet.regions`): the same subdivision with the split test ``min g``
  by a phase-2 Bland simplex started at the node's interior point, the whole-cell pretest,
  redundancy removal per layer and vertex enumeration over ``n0``-subsets of facets when
  ``n0 <= 4``; **float**: NumPy tableau pivots, tolerance 1e-9; **fraction**: Fraction lists
  (the naive exact implementation: every LP is an exact simplex). The exact engine answers
  the same LPs exactly too, but lets a float64 active-set simplex propose the optimal basis
  and checks it in integers (vertex feasible, multipliers ``>= 0``), with its exact simplex
  as fallback; facets whose witness is found by an exact integer screen need no LP at all.

The exact timing also includes what the baselines skip (exact certificates' bookkeeping,
``Cell`` objects with rational output), so the ratios are conservative. (On ``n0 = 2`` it no
longer includes the dyadic rounding of the interior points, the angle order of the corners and
the ``Constraint`` objects: since the seventh round below the planar engine builds them when a
cell's point, facets, vertices or corners are first read, which this script's timed calls
never do; the baselines do none of them.) Cells counted by the float baseline are printed for comparison (they can
differ on degenerate inputs: that is the point of the exact engine). ``--profile`` prints
the exact engine's functions with the largest own time.

Recorded figures (2026-12-03, 2 cores shared with other jobs, load average 3 to 5 during the
runs, so CPU seconds; best of 3 runs, a run under 0.5 s repeated until 0.5 s of CPU is spent;
``*``: ``--quick`` sizes). *before*: commit ddb26d8; *after*: commit c9c0604 (same cells,
vertices, interior points, witnesses and certificates: checked on seeded networks)::

    network          cells  verts | exact cpu s     | fraction cpu s | float cpu s     | q/x cpu       | x/f cpu
                                  | before   after  | before  after  | before  after   | before  after | before after
    2-8-8-1            110     95 | 0.0098  0.0062  | 0.067   0.065  | 0.0033  0.0033  |   6.9   10.5  |  2.94  1.88
    2-32-32-1         2146   2074 | 0.392   0.191   | 6.95    7.07   | 0.099   0.095   |  17.8   37.1  |  3.95  2.01
    2-20-20-20-1      2078   2016 | 0.354   0.201   | 5.94    6.44   | 0.095   0.097   |  16.8   32.1  |  3.74  2.06
    3-16-16-16-1*      154    271 | 0.331   0.256   | 5.62    6.09   | 0.560   0.596   |  17.0   23.8  |  0.59  0.43
    4-16-16-1*        1022   1894 | 5.52    3.87    | 109.2   105.6  | 6.42    7.90    |  19.8   27.3  |  0.86  0.49
    6-12-12-1*         495      - | 2.88    2.32    | 114.6   108.8  | 2.79    2.61    |  39.8   46.8  |  1.03  0.89

Exact cells per CPU second after: 17,900 / 11,300 / 10,400 on the 2-D rows. 2-8-8-1 stays
below 20x: 110 cells, so the exact engine's fixed cost per cell (about 55 microseconds of
Python: integer polygons, rational witnesses, interior point, output map, ``Cell`` objects)
is not amortised, while the Fraction baseline needs only about 600 microseconds per cell
there (small numbers). Part of the gain on the 2-D rows (about half on 2-32-32-1) is that
:func:`exactnet.regions.compute_regions` pauses Python's cyclic garbage collector, which the
baselines (plain Python code) do not.

Second round (issue 3), 2026-12-03: *before*: commit caeffe3, *after*: commit bf297d4 (2-D engine
only; same cells, vertices, interior points, witnesses, JSON and certificates: 631 seeded
networks of 11 architectures, with and without a box, random and small-integer weights, and
the CLI's ``-o`` / ``--certificate`` files, compared byte for byte). The machine was far more
loaded than above (load average 7 to 8 on 2 cores: other jobs plus the full-size rows below in
the background), which inflates every CPU time; before and after were run alternately under
the same load, best of 3 runs / 0.5 s of CPU as above::

    network          cells  verts | exact cpu s     | fraction cpu s | float cpu s     | q/x cpu       | x/f cpu
                                  | before   after  | before  after  | before  after   | before  after | before after
    2-8-8-1            110     95 | 0.0085  0.0059  | 0.071   0.071  | 0.0038  0.0039  |   8.4   12.0  |  2.21  1.52
    2-32-32-1         2146   2074 | 0.217   0.152   | 7.98    8.00   | 0.105   0.102   |  36.8   52.5  |  2.07  1.49
    2-20-20-20-1      2078   2016 | 0.225   0.187   | 7.25    7.58   | 0.109   0.167   |  32.2   40.7  |  2.07  1.12

Commit 8acb7b8 (cheaper conversions in the NumPy batch), 2-8-8-1 again, two alternating
before/after pairs at a somewhat lower load: exact 0.0067 / 0.0075 s -> 0.0047 / 0.0049 s CPU,
q/x cpu 10.0 / 8.9 -> 14.8 / 13.7. So 2-8-8-1 is still below 20x: the exact engine is about
1.4x faster than before, the baseline unchanged. Where its ~5 ms go now (ablations, same
load): subdivision ~2.0 ms (polygon splits 0.3 ms, the two NumPy batches of next-layer tests
0.2 ms, forced-neuron records 0.2 ms, leaf records 0.15 ms), finishing ~2.3 ms for 110 cells
(21 us per cell: ``Constraint`` objects 3.0 us, dyadic interior point 2.9 us, corner
rationals 2.8 us, facet witnesses 3.5 us, angle order 1.5 us, output ``fmpq_mat`` 1.4 us,
``Cell`` 0.6 us), ``RegionComplex`` 0.06 ms; what remains is mostly the construction of the
exact output objects (python-flint constructors cost 0.2 to 0.8 us each) and per-corner
Python bookkeeping. n0 > 2 (code unchanged by this round): ``--quick`` 3-16-16-16-1* 154
cells, exact 0.285 s CPU, float 0.71 s, Fraction 6.8 s, q/x cpu 23.8, x/f 0.40 (the 4-D* and
6-D* ``--quick`` rows were not re-run: their Fraction baselines need minutes of CPU each on
this loaded machine; the figures above stand).

Full-size rows, 2026-12-03, commit 8acb7b8 (``--no-fraction``: the Fraction baseline would need
hours there), CPU seconds, peak RSS of the whole process (``/usr/bin/time -v``; not measured
for the 3-D row)::

    network          cells  verts | exact cpu s | float cpu s (cells) | x/f cpu | exact cells/cpu s | peak RSS
    3-16-16-16-1      9831  11170 |   22.8      |   39.3   (8867)     |  0.58   |   431             |    -
    4-16-16-1         5108   8276 |   24.4      |   46.1   (5108)     |  0.53   |   209             | 152 MB
    6-12-12-1        67873      - |  534 (*)    |   not run           |    -    |   127             | 2.05 GB (*)

(*) 6-12-12-1, exact engine only, run alone under ``/usr/bin/time -v`` (not through this
script): through :func:`exactnet.regions.compute_regions` (cyclic GC paused) 534 s CPU (27 min
wall at that load), peak 2.05 GB RSS; the same computation with the GC left running
(``regions._compute_regions`` called directly, run at the same time) 618 s CPU, peak 2.05 GB.
So on this row the pause costs no memory (the peak is the live result: 67,873 cells with
their constraints and certificates) and saves about 13% of the CPU time (the two runs shared
the loaded machine, so take the CPU difference as approximate). The earlier record's "~650 s,
~1.1 GB" for this row was not reproduced: the peak RSS measured now is 2.05 GB either way.
The float baseline was not run on this row (about as long as the exact engine).

Third round (issue 3, 2-8-8-1 toward 20x), 2026-12-03: *before*: commit a067e81, *after*:
commit 243269f (2-D engine only; same cells, patterns, interior points, vertices, constraint
order, witnesses, forced certificates, ``summary()``, JSON (``dumps_regions`` /
``dumps_complex``) and REGIONS certificates on 658 seeded networks of 11 architectures (with
and without a box, random and small-integer weights, also ``vertices=False``), and the CLI's
``-o`` / ``--certificate`` files of 10 runs, compared byte for byte: 0 differences). What
changed: the root's next-layer tests (one node) in Python integers instead of a NumPy batch
(75 -> 26 us); the batch for the sub-nodes computes ``H`` by one batched ``matmul`` and its
offsets without ``np.cumsum`` of a list (~25% less); the output map's rows are summed directly
per cell (no tuple per active neuron); a cell-level forced neuron is recorded as ``("lazy2",
g, S, negated, V, E)`` (the record ``(+-g, S)`` is built by ``resolve_forced`` only when a
certificate asks for it); ``Constraint`` objects are built by ``map`` from the record and the
witness (``regions._mk_constraint_rec``); a corner's rationals are looked up once per corner
and reused for the corner list and the witnesses; edge-midpoint witnesses are shared between
the two cells of an edge by the corners' *values* (they were shared by the corner objects'
identities: 75 of 408 facets found their witness built, now 203); ``RegionComplex`` indexes
patterns with ``dict(zip(...))``. Tried and dropped (no gain or slower, measured): a
slicing version of ``_split`` (Python 3.11's corner loop is faster: 350 vs 305 us for the 109
splits), corner-identity keys for the midpoints, ``_red3`` inlined, a move-to-front order of
the constraints in ``_simplify_int``, ``_Cell`` as a ``NamedTuple``, ``fmpq_mat`` built from a
list for the output map.

The machine was heavily loaded during these runs (load average 3.5 to 7 on 2 cores: two
``bench_fdim.py`` runs, test suites and checkers of other jobs), so ``bench_regions.py``'s own
figures jumped between runs (2-8-8-1 ``q/x cpu`` between 11 and 22 for the *same* code).
The figures below are therefore from one process that alternates the two engines (the
before commit imported as a copy of the package) with the Fraction and float baselines of
this file, minimum CPU time per engine (2-8-8-1: 60 alternations, Fraction 20 of them; the
larger rows 6 and 3), 13:32 UTC, load average 3.6 to 4.6::

    network          cells  verts | exact cpu s     | fraction | float   | q/x cpu       | x/f cpu
                                  | before   after  | cpu s    | cpu s   | before  after | before after
    2-8-8-1            110     95 | 0.0050  0.0042  | 0.0713   | 0.0039  |  14.3   17.0  |  1.29  1.08
    2-32-32-1         2146   2074 | 0.130   0.118   | 9.03     | 0.091   |  69.4   76.8  |  1.44  1.30
    2-20-20-20-1      2078   2016 | 0.176   0.158   | 8.73     | 0.107   |  49.7   55.3  |  1.64  1.47

Two more such runs of 2-8-8-1: exact 0.0055 -> 0.0043 s (q/x 13.2 -> 16.9) and, during a load
spike, 0.0075 -> 0.0053 s (10.5 -> 14.8); exact engines alone, alternated 300 times: after /
before = 0.87 to 0.89 (best CPU 4.48 -> 3.97 ms and 4.76 -> 4.12 ms). So the exact engine is
about 1.15 to 1.2x faster on every 2-D row, and **2-8-8-1 still does not reach 20x**: about 17x
at best in these runs (the target needs about 3.5 ms of exact CPU against a 70 ms baseline).
Where the ~4.2 ms go now (ablations and standalone timings of recorded calls, same load):
subdivision ~1.9 ms (the second layer ~1.3 ms for 37 first-layer cells: 109 polygon splits
~0.3 ms, the ``H`` lists of the sub-node tests ~0.25 ms, the NumPy batch ~0.25 ms, records,
forced entries and leaf tuples the rest; ``_int_layers`` ~0.1 ms, python-flint's conversion of
the weight matrices to integers), finishing ~2.0 ms for 110 cells (dyadic interior point
~0.3 ms, midpoint witnesses ~0.3 ms, ``Constraint`` objects ~0.25 ms, angle order ~0.15 ms,
output ``fmpq_mat`` ~0.1 ms, the corner loop the rest). None of these is more than 8% of the
run: what is left is spread over Python-level work per corner and per object, each piece
close to the cost of the objects it must build.

Fourth round (issue 3, 2-8-8-1 toward 20x), 2026-12-03, 13:35-13:50 UTC: **no change to the
engine** (*before* = *after* = commit 248fabd); nothing tried gave a gain that could be measured.
Figures from one process that times the exact engine, the float and the Fraction baselines of
this file in turn (minimum CPU time; 2-8-8-1: 60 turns, Fraction 20 of them; the larger rows 6
and 3), load average 2.5 to 3.5 (two ``bench_fdim.py`` runs)::

    network          cells  verts | exact cpu s | fraction cpu s | float cpu s | q/x cpu | x/f cpu
    2-8-8-1            110     95 | 0.0041      | 0.0669         | 0.0036      |  16.4   |  1.13
    2-32-32-1         2146   2074 | 0.125       | 8.01           | 0.100       |  64.3   |  1.25
    2-20-20-20-1      2078   2016 | 0.144       | 7.13           | 0.092       |  49.4   |  1.56

A second such run of 2-8-8-1: 0.0041 / 0.0660 s, q/x 16.1; this script itself (``--only
2-8-8-1``, twice): ``q/x cpu`` 15.7 and 16.3. So **2-8-8-1 stays at about 16x**: 20x needs
about 3.3 ms of exact CPU against this Fraction baseline, about 0.8 ms (20%) less than now.

A measurement caveat for the third round's table above: its alternating script ran the
*before* engine first, right after the baselines, and in that position the same code is about
10% slower on 2-8-8-1 (cold caches: the Fraction baseline churns memory). With two copies of
commit 248fabd in that script: 0.0044 vs 0.0040 s in that order, 0.0040 vs 0.0041 s swapped.
So that table's before -> after on 2-8-8-1 (0.0050 -> 0.0042) includes about 1.1x of
position; its engine-only alternation (after / before = 0.87 to 0.89) does not (the same
script comparing two copies of one commit gives 0.99). Back to back (as this script times each
engine) the exact engine's best is ~3.9 ms; timed right after a baseline ~4.1 to 4.5 ms.

Where the time goes (2-8-8-1, same load): constant per-call cost small (a ``(2, 1, 1)``
network: 0.09 ms through ``compute_regions``; for 2-8-8-1 ``_int_layers`` 0.067 ms,
``RegionComplex`` 0.02 ms, releasing the previous result 0.18 ms, inside the timed region as for
any engine's garbage). Subdivision ~1.9 ms (the NumPy batch of the 37 first-layer cells' tests
0.17 ms; the same in Python integers would be 0.72 ms), finishing ~1.9 to 2.2 ms; ablations of the
finishing (each piece replaced by a stub): dyadic interior point -0.36 ms, ``Constraint``
objects -0.19 ms, angle order -0.18 ms, ``Cell`` objects -0.05 ms; all four stubbed still
1.07 ms (the corner loop: corner rationals, facet records, midpoint witnesses, centroid, output
map). The output objects alone (``Cell``, ``Constraint``, points, ``fmpq_mat``) cost ~0.5 ms.
Tried and dropped (outputs identical where built; A/B against a copy of 248fabd, alternated
300 to 500 times, noise +-3% calibrated by copy-vs-copy runs): the centroid by ``lcm(*T)``
after the corner loop instead of the running lcm, with the two ``if T`` branches merged (finishing
1.01x / 0.985x: no change); a comprehension fast path for polygons whose corners are all finite
and genuine (~80 of 110 cells: corners, midpoints and centroid by list comprehensions; 2 to
4% slower, comprehensions are function calls in Python 3.11); the dyadic point's ``k = 0``
candidate by one rounding division before the ``2^31`` floors (0.29 -> 0.27 ms for 110 cells,
0.5% of a run); ``Constraint`` built from a dict literal (``object.__setattr__(obj,
"__dict__", ...)``) or ``__dict__.update`` (slower than the item assignments); ``_int_layers``
from ``fmpz_mat.entries()`` (65 vs 69 us) or from the ``fmpq`` numerators and denominators in
Python (100 us); NumPy arrays of the batch built by ``np.array`` of lists instead of
``np.fromiter`` (slower). What remains is spread over Python-level work per corner, per facet
and per object; a further 20% would need a different representation of the output (fewer
Python objects per cell), not more tuning of this one.

Check of 2026-12-03 (later session, commit d194995, which only merges the output map's row
sums into ``_G_py``, with identical results on the 658 seeded cases): this script ``--only
2-8-8-1 --repeat 5`` at load average 0.3 gives ``q/x cpu`` 17.7; an alternating script with the
cyclic garbage collector off for both engines (exact 4.02 -> 4.07 ms before/after the merge,
Fraction 67.2 / 66.9 ms) 16.4 / 16.5. So 2-8-8-1 stays at 16-18x, below the 20x target.

Fifth round (issue 3, 2-8-8-1 toward 20x), 2026-12-03: *before*: commit 4052bd7, *after*:
commit a418054 (2-D engine only; 0 differences on 616 seeded networks of 11 architectures and
on the CLI's ``-o`` / ``--certificate`` files of 15 runs, compared as in the third round). This
machine is faster than in the rounds above (every time about 0.6x of theirs). This script,
before and after run alternately, best of 5 runs / 0.5 s of CPU, load average 2 to 2.7 (another
session's jobs)::

    network          cells  verts | exact cpu s       | q/x cpu                  | x/f cpu
                                  | before   after    | before       after       | before after
    2-8-8-1            110     95 | 0.00258  0.00240  | 15.1 - 16.0  16.0 - 17.2 |  1.30  1.21
    2-32-32-1         2146   2074 | 0.080    0.076    | 54.1 / 56.1  57.5 / 53.8 |  1.46  1.39
    2-20-20-20-1      2078   2016 | 0.096    0.095    | 39.3 / 39.4  39.6 / 40.1 |  1.56  1.53

(2-8-8-1: five pairs, Fraction baseline ~39-40 ms CPU; the larger rows: two pairs each, their
ratios vary with the Fraction baseline.) Callgrind, 2-8-8-1: 23.89 M -> 22.52 M instructions per
run (-5.7%). What changed: the centroid of the interior point over the product of the corners'
``T`` instead of their lcm (3 integer operations per corner instead of ~10: finishing ~1.10 ->
~1.01 ms), ``_simplify_int``'s shifts from a table, the classification of a cell's neurons by one
``zip``, the cut records inlined, the one-output row update as three additions, ``_G_py`` by one
``zip``. **2-8-8-1 still does not reach 20x** (about 16.5x; it needs ~1.95 ms of exact CPU
against this Fraction baseline, ~0.45 ms less than now). Where the ~2.4 ms go (ablations,
this load): subdivision ~1.05 ms (109 splits ~0.2 ms, 236 sub-node tests ~0.2 ms, the NumPy
batch of the 37 first-layer cells ~0.1 ms, classification, records, forced entries and leaves
the rest), finishing ~1.0 ms (interior point ~0.2 ms, facet witnesses ~0.18 ms, ``Constraint``
objects ~0.12 ms, output ``fmpq_mat`` ~0.11 ms, angle order ~0.07 ms, ``Cell`` ~0.06 ms, the
corner loop ~0.3 ms), per run ~0.2 ms (``_int_layers`` ~0.05 ms: python-flint's fmpz objects
and their ``int()``, ~0.15 us per weight; releasing the previous result ~0.12 ms). Callgrind:
27% of the instructions in the bytecode loop, ~12% in allocation and deallocation. Tried and
dropped: the finite genuine corners and their rationals by list comprehensions after the corner
loop (finishing 0.09 ms slower), midpoints without the shared cache (0.04 ms slower), a 2-D
``matmul``, ``np.gcd`` against ``S`` and ``np.array`` of the corners in ``_next_batch`` (no
gain or slower), ``itertools.compress`` in ``_G_py`` (no gain), ``fmpq_mat`` construction or
division for the records (2.5 to 5x slower than three products), ``object.__setattr__`` for
``Constraint`` (2.4x slower).

Sixth round (issue 3), 2026-12-06: *before*: commit a114414, *after*: commit f453d95 (2-D engine
only; identical outputs on 1068 seeded cases, hashed cells, order, interior points, witnesses,
corners, vertices and certificates). Callgrind instructions per run: 2-8-8-1 22.6 M -> 20.8 M
(-8%), 2-32-32-1 591 M -> 552 M, 2-20-20-20-1 676 M -> 642 M. What changed: the sub-node sign
tests as one loop (a comprehension is a call in Python 3.11), ``Constraint`` objects built in the
corner loop, nodes by ``object.__new__``, ``_red3`` inlined in ``_split``, ``_simplify_int``
without the last-rejecter shortcut, ``_int_layers`` from one flat matrix. New: ``--pairs N``
(interleaved exact / Fraction CPU timings, median of the ratios), because the table's best-of-N
per engine put the same commit anywhere from 18.7x to 35x within an hour on this shared machine.
``--pairs 15 --only 2-8-8-1``, before and after alternately, load average 1.2 to 3 (helper
sessions running)::

    run          1      2      3      4
    before     18.89  19.16  19.32  19.33   (median q/x; exact ~2.5 ms, Fraction ~47 ms CPU)
    after      19.23  19.21  19.12  18.38

At the session's start on an idle machine (load 0.2) the same measurement gave medians of 19.9
and 19.9 for the code before this round (quartiles 18.8 to 20.5). **2-8-8-1 sits at the 20x
target, not clearly above it**: the 8% fewer instructions do not show in wall-clock pairs at this
load, where the two engines' ratio itself moves by about 5%.

Seventh round (issue 3), 2026-12-06: *before*: commit 346978e, *after*: commits 86238d1 and
the next one. The planar engine now builds a cell's dyadic interior point, its facets'
``Constraint`` objects and the angle order of its corners (``regions2d._finish_point``) when
the cell's ``interior_point``, ``constraints``, ``vertices`` or ``corners`` is first read
(``regions._LazyCell``, which then becomes a plain ``Cell`` with the same instance dict);
everything else (the subdivision, the facets' records and witnesses, the centroid, the corners
in polygon order, output maps, ``Cell`` objects) is still done by ``compute_regions``. The
values are the same (414 seeded cases of the output-identity harness: cells, order, points,
witnesses, corners, vertices, JSON and certificates, byte for byte). **So this script's exact
timing no longer includes that rounding, ordering and packaging** (it never reads a point, a
facet or a corner; the baselines do none of the three): it compares the same work now, not a
superset. Callgrind instructions per ``compute_regions`` run (86238d1 = point and corners
only; then also the ``Constraint`` objects)::

    network        before     86238d1    after
    2-8-8-1        20.99 M    17.91 M    16.31 M   (-22.3%)
    2-32-32-1      546.9 M    470.1 M    436.4 M   (-20.2%)
    2-20-20-20-1   644.9 M    565.4 M    533.1 M   (-17.3%)

The deferred work is not free when it is asked for: ``compute_regions`` then every cell's
``corners`` read, 2-8-8-1, 22.50 M -> 23.58 M (+4.8%: the same work plus one property call and
a class switch per cell); ``compute_regions`` + ``dumps_regions`` 306.5 M -> 308.1 M (+0.5%).
``--pairs 15 --only 2-8-8-1``, before and after alternately, load average 7 to 9 (other
sessions' jobs), medians::

    before     16.83  18.09  17.96  18.93  18.60  17.26  16.99  16.12
    86238d1    20.90  21.55  20.17  20.46  20.96
    after      22.51  21.60  19.92

(exact ~2.2 to 2.9 ms, Fraction ~47 to 63 ms CPU at that load; the ratio moves by +-10% between
runs there). Tried and dropped in this round (outputs identical, callgrind per run): the
dyadic search of all cells at once in NumPy int64 (exact under a bound per ``k``; 21.66 M
instead of 20.75 M: the ~150 small NumPy calls cost more than the Python loop they replace),
``_split`` by slices of the cyclic sign runs found with ``map((0).__lt__, H)`` /
``list.index`` (3.62 M instead of 2.71 M for the 109 splits), the sub-node sign test as a
list comprehension plus ``min`` / ``max`` (21.70 M), and a ``Cell.__getattr__`` for the lazy
fields (same saving, but +7.7% when every cell is read: the failed attribute lookup builds an
``AttributeError`` first).

Session 24 (2026-12-06, commit d264e6c, code unchanged since the seventh round), the issue-3 targets
re-measured on this machine at a low load (load average 0.4 to 2, one other job at times):
``--repeat 3`` table (the 6-12-12-1 full-size row was not run: 27 min for the exact engine alone,
hours for its Fraction baseline; its ``--quick`` figures above stand: q/x 46.8, x/f 0.89)::

    network          cells  verts  exact s  cells/s  exact/float  frac/exact  x/f cpu  q/x cpu
    2-8-8-1            110     95     0.00    62191         0.84       25.83     0.84    25.81
    2-32-32-1         2146   2074     0.06    34225         1.15       78.23     1.15    78.25
    2-20-20-20-1      2078   2016     0.08    25249         1.41       51.16     1.41    51.15
    3-16-16-16-1      9831  11170    11.07      888         0.67      287.22     0.67    25.92
    4-16-16-1         5108   8276    12.86      397         0.55      693.60     0.55    40.22

``--pairs 15 --only 2-8-8-1`` three times in a row (load 0.4 to 0.5): medians 23.72, 24.08, 23.34
(quartiles 22.7 to 24.4; exact 1.9 to 2.0 ms, Fraction 45.5 to 47.0 ms). So every target holds:
at least 5,000 cells per second on the 2-D networks (25,000 to 62,000), exact within 5x of the
float baseline everywhere (0.55 to 1.41), and at least 20x faster than the naive exact baseline on
every network (23 to 78 in CPU time). Under a heavy load (7 to 9) the 2-8-8-1 median has been seen
at 19.9 (above): its margin is about 15%.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from exactnet.randnet import random_network  # noqa: E402
from exactnet.regions import compute_regions  # noqa: E402

SUITE = [
    ("2-8-8-1", (2, 8, 8, 1), None),
    ("2-32-32-1", (2, 32, 32, 1), None),
    ("2-20-20-20-1", (2, 20, 20, 20, 1), None),
    ("3-16-16-16-1", (3, 16, 16, 16, 1), (-1, 1)),
    ("4-16-16-1", (4, 16, 16, 1), (-1, 1)),
    ("6-12-12-1", (6, 12, 12, 1), (-1, 1)),
]
QUICK = {"3-16-16-16-1": (3, 8, 8, 8, 1), "4-16-16-1": (4, 8, 8, 1), "6-12-12-1": (6, 6, 6, 1)}


# ------------------------------------------------------------------ generic baseline engine
class Field:
    """Arithmetic used by the baseline: exact Fraction or float64 with a tolerance."""

    def __init__(self, kind: str):
        self.kind = kind
        self.eps = 1e-9 if kind == "float" else 0
        self.zero = 0.0 if kind == "float" else Fraction(0)
        self.one = 1.0 if kind == "float" else Fraction(1)

    def conv(self, q):
        f = Fraction(int(q.p), int(q.q))
        return float(f) if self.kind == "float" else f

    def pos(self, x):
        return x > self.eps

    def neg(self, x):
        return x < -self.eps


def lp_min_numpy(obj, rows, offs, x0, eps=1e-9):
    """min obj.x over rows.x + offs >= 0 from feasible x0: float64 tableau, Bland's rule."""
    A = np.asarray(rows, dtype=float).reshape(len(rows), len(x0))
    m, n = A.shape
    s0 = A @ np.asarray(x0) + np.asarray(offs)
    s0 = np.maximum(s0, 0.0)
    T = np.zeros((m, 2 * n + m + 1))
    T[:, :n] = -A
    T[:, n : 2 * n] = A
    T[:, 2 * n : 2 * n + m] = np.eye(m)
    T[:, -1] = s0
    o = np.asarray(obj, dtype=float)
    d = np.concatenate([-o, o, np.zeros(m)])
    basis = list(range(2 * n, 2 * n + m))
    for _ in range(500):
        cand = np.nonzero(d > eps)[0]
        if len(cand) == 0:
            break
        e = cand[0]
        col = T[:, e]
        ok = col > eps
        if not ok.any():
            dy = np.zeros(n)
            for var, coef in [(e, 1.0)] + [(basis[k], -col[k]) for k in range(m) if abs(col[k]) > eps]:
                if var < n:
                    dy[var] += coef
                elif var < 2 * n:
                    dy[var - n] -= coef
            return "unbounded", None, dy
        ratios = np.where(ok, T[:, -1] / np.where(ok, col, 1.0), np.inf)
        r = int(np.argmin(ratios))
        T[r] /= T[r, e]
        f = T[:, e].copy()
        f[r] = 0.0
        T -= np.outer(f, T[r])
        d = d - d[e] * T[r, :-1]
        basis[r] = e
    x = np.asarray(x0, dtype=float).copy()
    for r, b in enumerate(basis):
        if b < n:
            x[b] += T[r, -1]
        elif b < 2 * n:
            x[b - n] -= T[r, -1]
    return "optimal", x, float(o @ x)


def lp_min_fraction(obj, rows, offs, x0):
    """The same simplex, naively with Fraction and lists."""
    n, m = len(x0), len(rows)
    s0 = [sum(a * x for a, x in zip(r, x0)) + c for r, c in zip(rows, offs)]
    T = [[-a for a in r] + list(r) + [Fraction(int(j == k)) for j in range(m)] + [s0[k]] for k, r in enumerate(rows)]
    d = [-o for o in obj] + list(obj) + [Fraction(0)] * m
    basis = list(range(2 * n, 2 * n + m))
    while True:
        e = next((v for v in range(2 * n + m) if d[v] > 0), -1)
        if e < 0:
            break
        best, r = None, -1
        for k in range(m):
            if T[k][e] > 0:
                ratio = T[k][-1] / T[k][e]
                if best is None or ratio < best or (ratio == best and basis[k] < basis[r]):
                    best, r = ratio, k
        if r < 0:
            dy = [Fraction(0)] * n
            for var, coef in [(e, Fraction(1))] + [(basis[k], -T[k][e]) for k in range(m) if T[k][e]]:
                if var < n:
                    dy[var] += coef
                elif var < 2 * n:
                    dy[var - n] -= coef
            return "unbounded", None, dy
        piv = T[r][e]
        T[r] = [v / piv for v in T[r]]
        for k in range(m):
            if k != r and T[k][e] != 0:
                f = T[k][e]
                T[k] = [a - f * b for a, b in zip(T[k], T[r])]
        f = d[e]
        d = [a - f * b for a, b in zip(d, T[r][:-1])]
        basis[r] = e
    x = list(x0)
    for k, b in enumerate(basis):
        if b < n:
            x[b] += T[k][-1]
        elif b < 2 * n:
            x[b - n] -= T[k][-1]
    return "optimal", x, sum(o * v for o, v in zip(obj, x))


def baseline_regions(net, box, kind):
    F = Field(kind)
    lp = lp_min_numpy if kind == "float" else lp_min_fraction
    n = net.input_dim
    layers = [([[F.conv(w) for w in row] for row in L.weights], [F.conv(b) for b in L.biases]) for L in net.layers]
    cons = []
    if box is not None:
        lo, hi = F.one * box[0], F.one * box[1]
        for i in range(n):
            e = [F.one if j == i else F.zero for j in range(n)]
            cons.append((e, -lo))
            cons.append(([-v for v in e], hi))
        p = [(lo + hi) / 2 for _ in range(n)]
    else:
        p = [F.zero] * n
    ident = [[F.one if i == j else F.zero for j in range(n)] for i in range(n)]
    items = [(cons, p, ident, [F.zero] * n)]

    def ev(c, x):
        return sum(a * v for a, v in zip(c[0], x)) + c[1]

    def lpmin(c, cs, x):
        res = lp(c[0], [k[0] for k in cs], [k[1] for k in cs], x)
        if res[0] == "optimal":
            return res[0], res[1], res[2] + c[1]
        return res

    def prune(cs, x):
        kept = list(cs)
        k = 0
        while k < len(kept):
            others = kept[:k] + kept[k + 1 :]
            res = lpmin(kept[k], others, x) if others else ("unbounded", None, None)
            if res[0] == "optimal" and not F.neg(res[2]):
                kept.pop(k)
            else:
                k += 1
        return kept

    for li, (W, b) in enumerate(layers[:-1]):
        new = []
        for cs, x, A, c in items:
            gs = [([sum(W[i][j] * A[j][t] for j in range(len(A))) for t in range(n)], b[i] + sum(W[i][j] * c[j] for j in range(len(c)))) for i in range(len(W))]
            def test(g, ncs, nx):
                """("forced", bit) or ("split", [(cons, point, bit), (cons, point, bit)])."""
                if not any(F.pos(abs(a)) for a in g[0]):
                    return "forced", 1 if F.pos(g[1]) else 0
                val = ev(g, nx)
                h = g if val > 0 else ([-a for a in g[0]], -g[1])
                res = lpmin(h, ncs, nx) if ncs else ("unbounded", None, [-a for a in h[0]])
                if res[0] == "optimal" and not F.neg(res[2]):
                    return "forced", 1 if val > 0 else 0
                neg = ([-a for a in h[0]], -h[1])
                if res[0] == "optimal":
                    hp, hv = ev(h, nx), res[2]
                    s = (hp / (hp - hv) + 1) / 2
                    q = [(1 - s) * a + s * v for a, v in zip(nx, res[1])]
                else:
                    dr = res[2]
                    rate = sum(a * v for a, v in zip(h[0], dr))
                    t = 2 * ev(h, nx) / (-rate)
                    q = [a + t * v for a, v in zip(nx, dr)]
                bit = 1 if val > 0 else 0
                return "split", [(ncs + [h], nx, bit), (ncs + [neg], q, 1 - bit)]

            # as in the exact engine: every neuron first on the whole previous-layer cell
            first = [test(g, cs, x) for g in gs]
            nodes = [(cs, x, [])]
            for g, pre in zip(gs, first):
                if pre[0] == "forced":
                    nodes = [(ncs, nx, bits + [pre[1]]) for ncs, nx, bits in nodes]
                    continue
                if len(nodes) == 1 and nodes[0][0] is cs:
                    nodes = [(c2, p2, [] + [bt]) for c2, p2, bt in pre[1]]
                    continue
                nxt = []
                for ncs, nx, bits in nodes:
                    r = test(g, ncs, nx)
                    if r[0] == "forced":
                        nxt.append((ncs, nx, bits + [r[1]]))
                    else:
                        nxt.extend((c2, p2, bits + [bt]) for c2, p2, bt in r[1])
                nodes = nxt
            for ncs, nx, bits in nodes:
                A2 = [g[0] if bt else [F.zero] * n for g, bt in zip(gs, bits)]
                c2 = [g[1] if bt else F.zero for g, bt in zip(gs, bits)]
                new.append((prune(ncs, nx), nx, A2, c2))
        items = new
    if n <= 4:  # as in the exact engine: final facets and vertices (n-subsets of facets)
        for cs, x, A, c in items:
            facets = cs  # pruned after the last layer above
            for sub in itertools.combinations(facets, n):
                v = _solve_field([k[0] for k in sub], [-k[1] for k in sub], F)
                if v is not None:
                    all(not F.neg(ev(k, v)) for k in facets)
    return len(items)


def _solve_field(rows, rhs, F):
    """Solve a square system (None when singular): NumPy for float, Gauss-Jordan for Fraction."""
    if F.kind == "float":
        A = np.array(rows, dtype=float)
        if abs(np.linalg.det(A)) < 1e-12:
            return None
        return list(np.linalg.solve(A, np.array(rhs, dtype=float)))
    n = len(rows)
    M = [list(r) + [b] for r, b in zip(rows, rhs)]
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        pv = M[col][col]
        M[col] = [v / pv for v in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [a - f * b for a, b in zip(M[r], M[col])]
    return [M[r][n] for r in range(n)]


# ------------------------------------------------------------------ planar baselines (n0 = 2)
def _clip_generic(V, E, H, rpos, rneg, F, norm):
    """exactnet.regions2d._split with the field's sign tests and normalisation."""
    k = len(V)
    PV, PE, NV, NE = [], [], [], []
    for i in range(k):
        j = i + 1 if i + 1 < k else 0
        hi, hj = H[i], H[j]
        v, e = V[i], E[i]
        if F.pos(hi):
            PV.append(v)
            PE.append(e)
            if F.neg(hj):
                w = V[j]
                x = norm([hi * w[t] - hj * v[t] for t in range(3)])
                PV += [x]
                PE += [rpos]
                NV.append(x)
                NE.append(e)
        elif F.neg(hi):
            NV.append(v)
            NE.append(e)
            if F.pos(hj):
                w = V[j]
                x = norm([hj * v[t] - hi * w[t] for t in range(3)])
                NV += [x]
                NE += [rneg]
                PV.append(x)
                PE.append(e)
        else:
            PV.append(v)
            NV.append(v)
            if F.pos(hj):
                PE.append(e)
                NE.append(rneg)
            else:
                NE.append(e)
                PE.append(rpos)
    for VV, EE, rec in ((PV, PE, rpos), (NV, NE, rneg)):
        a = EE.index(rec)
        b = a + 1 if a + 1 < len(VV) else 0
        if VV[a][2] == 0 and VV[b][2] == 0:
            g = rec[0]
            VV.insert(a + 1, norm([-g[2] * g[0], -g[2] * g[1], g[0] * g[0] + g[1] * g[1]]))
            EE.insert(a + 1, rec)
    return PV, PE, NV, NE


def _finish_generic(V, E, F):
    """Facets with witnesses, interior point and genuine corners of a planar leaf."""
    recs, wit = [], {}
    fin = [v for v in V if v[2] != 0]
    for i, e in enumerate(E):
        if e is None or id(e) in wit:
            continue
        v, w = V[i], V[(i + 1) % len(V)]
        if v[2] != 0 and w[2] != 0:
            wit[id(e)] = [(v[0] + w[0]) / 2, (v[1] + w[1]) / 2]
        elif v[2] != 0:
            wit[id(e)] = [v[0] + w[0], v[1] + w[1]]
        else:
            wit[id(e)] = [w[0] + v[0], w[1] + v[1]]
        recs.append(e)
    if fin:
        pt = [sum(v[0] for v in fin) / len(fin), sum(v[1] for v in fin) / len(fin)]
        for d in V:
            if d[2] == 0:
                pt = [pt[0] + d[0], pt[1] + d[1]]
    else:
        pt = [F.zero, F.zero]
    corners = [v for i, v in enumerate(V) if v[2] != 0 and E[i - 1] is not E[i]]
    return recs, wit, pt, corners


def baseline_planar(net, box, kind):
    """The planar engine (exactnet.regions2d) with Fraction lists or float64 NumPy."""
    F = Field(kind)
    fl = kind == "float"
    one, zero = F.one, F.zero
    if fl:
        def norm(x):
            t = x[2]
            if abs(t) > F.eps:
                return (x[0] / t, x[1] / t, 1.0)
            s = max(abs(x[0]), abs(x[1]))
            return (x[0] / s, x[1] / s, 0.0)
    else:
        def norm(x):
            t = x[2]
            if t:
                return (x[0] / t, x[1] / t, one)
            s = max(abs(x[0]), abs(x[1]))
            return (x[0] / s, x[1] / s, zero)
    layers = []
    for L in net.layers:
        W = [[F.conv(w) for w in row] for row in L.weights]
        b = [F.conv(v) for v in L.biases]
        layers.append((np.array(W), np.array(b)) if fl else (W, b))
    if box is None:
        V = [(one, zero, zero), (zero, one, zero), (-one, zero, zero), (zero, -one, zero)]
        E = [None] * 4
    else:
        lo, hi = one * box[0], one * box[1]
        V = [(lo, lo, one), (hi, lo, one), (hi, hi, one), (lo, hi, one)]
        E = [([zero, one, -lo], "b"), ([-one, zero, hi], "b"), ([zero, -one, hi], "b"), ([one, zero, -lo], "b")]
    M0 = np.array([[1.0, 0, 0], [0, 1.0, 0]]) if fl else [[one, zero, zero], [zero, one, zero]]
    items = [(V, E, [], M0)]
    for W, b in layers[:-1]:
        new = []
        for V, E, bits, M in items:
            if fl:
                Garr = W @ M
                Garr[:, 2] += b
                G = Garr.tolist()
                Hm = Garr @ np.array(V).T
                mins, maxs = Hm.min(axis=1), Hm.max(axis=1)
            else:
                G = [[sum(w * m[t] for w, m in zip(row, M)) + (bi if t == 2 else zero) for t in range(3)] for row, bi in zip(W, b)]
                mins, maxs = [], []
                for g in G:
                    H = [g[0] * v[0] + g[1] * v[1] + g[2] * v[2] for v in V]
                    mins.append(min(H))
                    maxs.append(max(H))
            nb = [0] * len(G)
            cut = []
            for i, g in enumerate(G):
                if not F.pos(abs(g[0])) and not F.pos(abs(g[1])):
                    nb[i] = 1 if F.pos(g[2]) else 0
                elif F.neg(mins[i]):
                    if F.pos(maxs[i]):
                        cut.append(i)
                else:
                    nb[i] = 1
            nodes = [(V, E, nb)]
            for i in cut:
                g = G[i]
                rpos, rneg = (g, i), ([-a for a in g], i)
                nxt = []
                for NV, NE, bb in nodes:
                    H = [g[0] * v[0] + g[1] * v[1] + g[2] * v[2] for v in NV]
                    if not F.neg(min(H)):
                        bb[i] = 1
                        nxt.append((NV, NE, bb))
                    elif not F.pos(max(H)):
                        nxt.append((NV, NE, bb))
                    else:
                        PV, PE, QV, QE = _clip_generic(NV, NE, H, rpos, rneg, F, norm)
                        b2 = bb[:]
                        bb[i] = 1
                        nxt += [(PV, PE, bb), (QV, QE, b2)]
                nodes = nxt
            for NV, NE, bb in nodes:
                if fl:
                    M2 = Garr * np.array(bb, dtype=float)[:, None]
                else:
                    M2 = [g if bt else [zero, zero, zero] for g, bt in zip(G, bb)]
                new.append((NV, NE, bits + bb, M2))
        items = new
    W, b = layers[-1]
    for V, E, bits, M in items:
        _finish_generic(V, E, F)
        if fl:
            G = W @ M
            G[:, 2] += b
        else:
            [[sum(w * m[t] for w, m in zip(row, M)) + (bi if t == 2 else zero) for t in range(3)] for row, bi in zip(W, b)]
    return len(items)


# ------------------------------------------------------------------ driver
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="scale the 3-D/4-D/6-D networks down to widths 8")
    ap.add_argument("--only", help="run one network of the suite by name")
    ap.add_argument("--skip-baselines", action="store_true")
    ap.add_argument("--no-fraction", action="store_true", help="skip the (slow) Fraction baseline")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per engine (the machine is shared)")
    ap.add_argument("--profile", action="store_true", help="print where the exact engine's time goes")
    ap.add_argument("--pairs", type=int, default=0, metavar="N",
                    help="instead of the table: N interleaved (exact, fraction) CPU timings per network, "
                         "with the median and quartiles of their ratio q/x (--repeat and the baseline "
                         "options do not apply)")
    args = ap.parse_args(argv)
    if args.pairs < 0:
        ap.error("--pairs needs N >= 1")
    if args.pairs:
        return _pairs(args)

    def best(fn, slow=None):
        """Best of ``--repeat`` runs; short runs (milliseconds, where one scheduling hiccup of a
        shared machine is the whole run) are repeated until 0.5 s of CPU time is spent (at
        most 200 runs). The same rule for every engine."""
        out, ts, cs = None, [], []
        k = 0
        while True:
            t, c = time.perf_counter(), time.process_time()
            out = fn()
            ts.append(time.perf_counter() - t)
            cs.append(time.process_time() - c)
            k += 1
            if slow is not None and ts[-1] > slow:
                break
            if k >= max(1, args.repeat) and (sum(cs) >= 0.5 or k >= 200):
                break
        best.cpu = min(cs)
        return out, min(ts)

    print(f"{'network':16} {'cells':>7} {'verts':>7} {'exact s':>9} {'cells/s':>9} {'cpu c/s':>9} {'float s':>9} "
          f"{'fcells':>7} {'exact/float':>11} {'frac s':>9} {'frac/exact':>10} {'x/f cpu':>8} {'q/x cpu':>8}")
    for name, arch, box, net in _selected(args):
        rc, te = best(lambda: compute_regions(net, box=box), slow=20)
        tcpu = best.cpu
        cells = len(rc.cells)
        verts = len(rc.vertex_set()) if rc.has_vertices else -1  # -1: not enumerated (n0 > 4)
        tf = ff = tq = cf = cq = None
        if not args.skip_baselines:
            base = baseline_planar if arch[0] == 2 else baseline_regions
            ff, tf = best(lambda: base(net, box, "float"), slow=20)
            cf = best.cpu
            if not args.no_fraction:
                _, tq = best(lambda: base(net, box, "fraction"), slow=5)
                cq = best.cpu
        fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
        print(f"{name:16} {cells:7d} {verts:7d} {te:9.2f} {cells / te:9.0f} {cells / max(tcpu, 1e-9):9.0f} {fmt(tf):>9} {ff if ff is not None else '-':>7} "
              f"{fmt(te / tf if tf else None):>11} {fmt(tq):>9} {fmt(tq / te if tq else None):>10} "
              f"{fmt(tcpu / cf if cf else None):>8} {fmt(cq / tcpu if cq else None):>8}", flush=True)
        if args.profile:
            import cProfile
            import pstats

            pr = cProfile.Profile()
            pr.enable()
            compute_regions(net, box=box)
            pr.disable()
            st = pstats.Stats(pr)
            tot = sum(v[2] for v in st.stats.values())
            top = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:8]
            print("   profile (own time): " + ", ".join(
                f"{fn[2]} {100 * v[2] / tot:.0f}%" for fn, v in top), flush=True)
    return 0


def _selected(args):
    """The suite's networks that ``--only`` / ``--quick`` select: ``(name, arch, box, network)``."""
    for name, arch, box in SUITE:
        if args.only and name != args.only:
            continue
        if args.quick and name in QUICK:
            arch = QUICK[name]
            name = name + "*"
        yield name, arch, box, random_network(arch, seed=0)


def _pairs(args) -> int:
    """The ratio q/x measured in interleaved pairs: each pair times the exact engine (repeated to
    about 50 ms of CPU) and then the Fraction baseline on the same network, back to back, so
    both see the same load; the median and quartiles of the N ratios are printed. On a shared
    machine this is steadier than the table's best-of-N per engine, which can time the two
    engines in different load phases."""
    import statistics

    def cpu(fn, reps):
        c = time.process_time()
        for _ in range(reps):
            fn()
        return (time.process_time() - c) / reps

    print(f"{'network':16} {'pairs':>5} {'exact ms':>9} {'frac ms':>9} {'q/x med':>8} {'q1':>6} {'q3':>6} "
          f"{'min':>6} {'max':>6}")
    for name, arch, box, net in _selected(args):
        base = baseline_planar if arch[0] == 2 else baseline_regions
        once = cpu(lambda: compute_regions(net, box=box), 1)
        reps = max(1, min(200, int(0.05 / max(once, 1e-6))))
        xs, qs = [], []
        for _ in range(args.pairs):
            xs.append(cpu(lambda: compute_regions(net, box=box), reps))
            qs.append(cpu(lambda: base(net, box, "fraction"), 1))
        r = sorted(q / x for q, x in zip(qs, xs))
        n = len(r)
        print(f"{name:16} {n:5d} {1000 * statistics.median(xs):9.2f} {1000 * statistics.median(qs):9.1f} "
              f"{statistics.median(r):8.2f} {r[n // 4]:6.2f} {r[(3 * n) // 4]:6.2f} {r[0]:6.2f} {r[-1]:6.2f}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
