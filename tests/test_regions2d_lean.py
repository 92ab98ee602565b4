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


def _eager_cells(net, box, vertices=True):
    qbox = None if box is None else (fmpq(box[0]), fmpq(box[1]))
    leaves, ints = regions2d.compute_cells_2d(net, qbox, None, None, None, time.monotonic())
    return regions2d.cells_2d(
        leaves, ints, qbox, vertices, None, None, time.monotonic(), regions._mk_cell, regions._mk_constraint_rec
    )


@pytest.mark.parametrize("arch, box, kw", _NETS + [((2, 3, 1), None, {}), ((2, 3), (-1, 1), {})])
@pytest.mark.parametrize("vertices", [True, False])
def test_lazy_point_and_corners_equal_the_eager_cells(arch, box, kw, vertices):
    """The planar cells' ``interior_point``, ``constraints``, ``vertices`` and ``corners``,
    computed when first asked (``regions._LazyCell``), are the values of the eager
    construction, the instance dict then holds the fields in declaration order, the type is
    ``Cell``, and nothing else sees the lazy state."""
    import copy
    import dataclasses

    net = random_network(arch, seed=12, **kw)
    names = list(regions.Cell.__dataclass_fields__)
    ref = _eager_cells(net, box, vertices)
    for c in ref:
        assert type(c) is regions.Cell and list(vars(c)) == names
    rc = compute_regions(net, box=box, vertices=vertices)
    assert len(rc.cells) == len(ref)
    lazy = [c for c in rc.cells if "_lazy" in vars(c)]
    assert lazy and all(type(c) is regions._LazyCell and list(vars(c)) == names + ["_lazy"] for c in lazy)
    for i, (c, r) in enumerate(zip(rc.cells, ref)):
        if i % 4 == 0:
            assert c.corners == r.corners  # first access: corners
        elif i % 4 == 1:
            assert c.vertices == r.vertices
        elif i % 4 == 2:
            assert c.constraints == r.constraints
            assert all(type(k) is regions.Constraint and list(vars(k)) == list(vars(q)) for k, q in zip(c.constraints, r.constraints))
        assert c.interior_point == r.interior_point
        assert type(c) is regions.Cell and list(vars(c)) == names
        assert c == r and repr(c) == repr(r)
        assert c.forced is vars(c)["forced"] and c.forced == r.forced
    # a copy sees the computed fields, never the finisher (a Cell does not pickle: its
    # gradient, an fmpq_mat, does not)
    rc2 = compute_regions(net, box=box, vertices=vertices)
    for c, r in zip(rc2.cells, ref):
        d = copy.copy(c)
        assert "_lazy" not in vars(d) and list(vars(d)) == names and d == r
        assert list(vars(c)) == names
    rc3 = compute_regions(net, box=box, vertices=vertices)
    for c, r in zip(rc3.cells, ref):
        d = dataclasses.replace(c, constraints=())
        assert d.interior_point == r.interior_point and d.corners == r.corners
    with pytest.raises(AttributeError):
        rc3.cells[0].no_such_field
    assert regions.Cell((), (), (), None, (), None, True).corners == ()  # the default stays
