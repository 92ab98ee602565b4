"""The planar engine's leaner paths (issue 3, third round) against the code they replace:
the same objects and the same values, not merely equally valid ones."""

from __future__ import annotations

import time

import pytest
from flint import fmpq

from exactnet import regions, regions2d
from exactnet.randnet import random_network
from exactnet.regions import compute_regions

_NETS = [
    ((2, 6, 6, 1), None, {}),
    ((2, 5, 5, 3), (-1, 1), {}),
    ((2, 4, 4, 4, 2), None, {"max_num": 1, "max_den": 1}),
    ((2, 5, 5, 1), (-1, 1), {"max_num": 2, "max_den": 1}),
]


def test_constraint_from_record_equals_the_dataclass_constructor():
    net = random_network((2, 4, 4, 1), seed=4)
    qbox = (fmpq(-1), fmpq(1))
    leaves, _ = regions2d.compute_cells_2d(net, qbox, None, None, None, time.monotonic())
    recs = {id(r): r for leaf in leaves for r in leaf.E if r is not None}
    assert any(r[6] is not None for r in recs.values()) and any(r[5] is not None for r in recs.values())
    w = (fmpq(1, 3), fmpq(-2))
    for r in recs.values():
        c = regions._mk_constraint_rec(r, w)
        ref = regions.Constraint(r[7], r[8], r[5], None, w, r[6])
        assert type(c) is regions.Constraint and c == ref and repr(c) == repr(ref)
        assert list(vars(c)) == list(vars(ref))  # same field order in the instance dict


@pytest.mark.parametrize("arch, box, kw", _NETS)
def test_lazy_forced_entries_resolve_as_records(arch, box, kw):
    """A cell-level forced entry ``("lazy2", g, S, negated, V, E)`` resolves exactly as the
    record entry ``("lazy2", (+-g, S, tag), V, E)`` it stands for."""
    rc = compute_regions(random_network(arch, seed=6, **kw), box=box)
    seen = 0
    for cell in rc.cells:
        for tag, entry in cell.forced.items():
            if entry and entry[0] == "lazy2" and len(entry) == 6:
                _, g, S, neg, V, E = entry
                s = -1 if neg else 1
                rec = (s * g[0], s * g[1], s * g[2], S, tag)
                assert regions2d.resolve_forced(entry) == regions2d.resolve_forced(("lazy2", rec, V, E))
                seen += 1
    assert seen


@pytest.mark.parametrize("arch, box, kw", _NETS)
def test_output_rows_equal_the_layer_product(arch, box, kw):
    """:func:`regions2d._G_py` (the output map summed over the active neurons) against
    ``[d W | d b] [M; 0 0 D]`` (:func:`regions2d._layer_G`) on every leaf's parent map."""
    net = random_network(arch, seed=8, **kw)
    qbox = None if box is None else (fmpq(box[0]), fmpq(box[1]))
    leaves, ints = regions2d.compute_cells_2d(net, qbox, None, None, None, time.monotonic())
    Wout = ints[-1][0]
    for leaf in leaves:
        got = [x for r in regions2d._G_py(Wout, leaf.Gr, leaf.nb, leaf.D) for x in r]
        G, _, _, _ = regions2d._layer_G(ints[-1], regions2d.leaf_M(leaf), leaf.D)
        assert list(got) == [x for r in G for x in r]
        assert list(leaf.out) == list(got)  # leaf.out: the same rows, accumulated along the cuts
