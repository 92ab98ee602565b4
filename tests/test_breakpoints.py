"""Weighted breakpoint complex: jumps, balancing, invisible faces, linear regions."""

from __future__ import annotations

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.breakpoints import breakpoint_complex
from exactnet.examples import example
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.regions import compute_regions

Q0 = fmpq(0)


def _dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Q0)


@given(st.integers(0, 10**6), st.sampled_from([(2, 3, 3, 1), (2, 4, 2, 2), (2, 2, 2, 2, 1), (3, 3, 2, 1), (1, 3, 2, 1)]))
@settings(max_examples=15)
def test_jumps_are_gradient_differences_and_balance(seed, arch):
    net = random_network(arch, seed=seed)
    rc = compute_regions(net)
    bc = breakpoint_complex(rc)
    n, m = arch[0], arch[-1]
    for f in bc.faces:
        minus, plus = rc.cells[f.cells[0]], rc.cells[f.cells[1]]
        for o in range(m):
            for j in range(n):
                assert plus.gradient[o, j] - minus.gradient[o, j] == f.jump[o] * f.normal[j]
        assert _dot(f.normal, f.point) + f.offset == 0
        # the face point is in both closed cells
        for c in (minus, plus):
            assert all(_dot(k.normal, f.point) + k.offset >= 0 for k in c.constraints)
        # and f is continuous there
        assert net.evaluate(f.point) == [
            _dot([plus.gradient[o, j] for j in range(n)], f.point) + plus.offset[o] for o in range(m)
        ]
        assert f.visible == any(f.jump)
    if n == 2:
        res = bc.check_balancing()
        assert res["failed"] == []
        assert res["checked"] == len([v for v in rc.vertex_set()])


def test_example_c_jumps_at_p():
    rc = compute_regions(example("C"))
    bc = rc.breakpoints()
    p = (fmpq(-46, 735), fmpq(187, 735))
    at = [f for f in bc.faces if f.vertices and p in f.vertices]
    assert len(at) == 4
    # theory.md section 5: jumps 1/2, 1, 3/2, 1 on the primitive directions below
    dirs = {(2, 1): fmpq(1, 2), (1, 4): fmpq(1), (-2, -1): fmpq(3, 2), (1, -3): fmpq(1)}
    got = {}
    for f in at:
        a, b = f.normal
        u = (-b, a)
        if _dot(u, (f.point[0] - p[0], f.point[1] - p[1])) < 0:
            u = (b, -a)
        # rescale u to the primitive integer direction of the theory and the weight with it
        from math import gcd

        den = 1
        for x in u:
            den = den * int(x.q) // gcd(den, int(x.q))
        ui = [int(x * den) for x in u]
        g = gcd(*ui)
        prim = tuple(v // g for v in ui)
        got[prim] = f.jump[0] * fmpq(g, den)
    assert got == dirs


def test_invisible_faces_and_linear_regions():
    # f = relu(x) - relu(x) + relu(y): the line x = 0 is invisible; 2 linear regions
    net = Network.from_lists([([[1, 0], [1, 0], [0, 1]], [0, 0, 0]), ([[1, -1, 1]], [0])])
    rc = compute_regions(net)
    bc = rc.breakpoints()
    assert len(rc.cells) == 4
    assert bc.linear_regions() == 2
    inv = bc.invisible_faces()
    assert inv and all(f.normal == (1, 0) for f in inv)
    assert all(f.normal == (0, 1) for f in bc.visible_faces())


def test_vector_output_jump():
    net = Network.from_lists([([[1, -1]], [1]), ([[2], [-3]], [0, 1])])
    bc = compute_regions(net).breakpoints()
    assert len(bc.faces) == 1
    f = bc.faces[0]
    assert f.jump == (fmpq(2), fmpq(-3))


def test_neighbours_filled():
    rc = compute_regions(random_network((2, 3, 3, 1), seed=4))
    bc = rc.breakpoints()
    pairs = {frozenset(f.cells) for f in bc.faces}
    for i, c in enumerate(rc.cells):
        for k in c.constraints:
            assert k.neighbour is not None
            assert frozenset((i, k.neighbour)) in pairs


@pytest.mark.parametrize("seed", range(3))
def test_box_faces_3d(seed):
    rc = compute_regions(random_network((3, 3, 2, 1), seed=seed), box=(-2, 2))
    bc = rc.breakpoints()
    # every interior facet has a neighbour; box sides have none
    for c in rc.cells:
        for k in c.constraints:
            assert (k.neighbour is None) == (k.neuron is None)
    assert bc.linear_regions() <= len(rc.cells)


# ------------------------------------------------------------ balancing in dimension >= 3
def _faces_at_origin_2d(net2):
    """Independent planar check: faces of the sliced network's complex meeting at (0, 0)."""
    rc2 = compute_regions(net2)
    bc2 = rc2.breakpoints()
    o = (fmpq(0), fmpq(0))
    at = [f for f in bc2.faces if o in (f.vertices or ())]
    bal = bc2.check_balancing()
    return len(at), o in bal["failed"], bal


@pytest.mark.parametrize("arch,box,seed", [((3, 3, 3, 1), None, 0), ((3, 4, 3, 2), (-2, 2), 0), ((4, 3, 3, 1), None, 1),
                                           ((3, 2, 2, 2, 1), None, 0)])
def test_balancing_codim2_nd_against_planar_slices(arch, box, seed):
    from exactnet.regions import slice_network

    net = random_network(arch, seed=seed)
    rc = compute_regions(net, box=box)
    res = rc.breakpoints().check_balancing()
    assert res["dimension_supported"] and res["checked"] > 0 and res["failed"] == []
    for q, b1, b2, nfaces in res["points"][:12]:
        p1 = [x + d for x, d in zip(q, b1)]
        p2 = [x + d for x, d in zip(q, b2)]
        k, bad, _ = _faces_at_origin_2d(slice_network(net, q, p1, p2))
        # the normal plane through q cuts exactly the faces at the codimension-2 cell
        assert k == nfaces and not bad


def test_balancing_nd_detects_a_wrong_jump():
    import dataclasses

    net = random_network((3, 3, 3, 1), seed=0)
    rc = compute_regions(net)
    bc = rc.breakpoints()
    assert bc.check_balancing()["failed"] == []
    i = next(k for k, f in enumerate(bc.faces) if f.visible)
    f = bc.faces[i]
    bc.faces[i] = dataclasses.replace(f, jump=tuple(j * 2 for j in f.jump))
    assert bc.check_balancing()["failed"] != []
