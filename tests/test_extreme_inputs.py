"""Extreme inputs for pictures, reports and canonical forms.

* coordinates beyond the float range (a bias of 10^400, a weight of 1/10^400, a box of
  +-10^309): ``plot`` and ``report`` draw them in an exactly chosen rescaled frame instead of
  failing with ``OverflowError``; the report's tables stay exact, and a picture that cannot be
  drawn leaves a note instead of failing the page;
* very deep networks (1,000+ layers): the canonical form is computed without recursion, and
  agrees with the former recursive definition (kept here as the oracle) on seeded networks of
  several architectures, with and without tied neurons and zero rows, including the count of
  orderings tried (so :class:`LimitError` is raised in the same cases).
"""

import json
import math
import random
import sys

import pytest
from flint import fmpq

from exactnet import symmetry
from exactnet.cli import main
from exactnet.errors import LimitError, ValueRangeError
from exactnet.examples import example
from exactnet.network import Network
from exactnet.qq import q_str
from exactnet.randnet import random_network
from exactnet.regions import compute_regions

PNG = b"\x89PNG\r\n\x1a\n"
BIG = 10 ** 400


def _net_json(layers):
    return {"format": "exactnet-network/1",
            "layers": [{"weights": [[str(v) for v in r] for r in W], "biases": [str(v) for v in b]} for W, b in layers]}


def far_vertex():
    """A vertex at x1 = -10^400 (the review's farvertex.json)."""
    return [([[1, 0], [0, 1], [1, 1]], [BIG, 0, 0]), ([[1, 1, 1]], [0])]


def tiny_weight():
    """A weight 1/10^400: the bent hyperplane x1 = -10^400."""
    return [([[fmpq(1, BIG), 0], [0, 1], [1, 1]], [1, 0, 0]), ([[1, 1, 1]], [0])]


def _write(tmp_path, name, layers):
    p = tmp_path / name
    p.write_text(json.dumps(_net_json(layers)))
    return p


# --- pictures beyond the float range ------------------------------------------------------------

@pytest.mark.parametrize("layers", [far_vertex(), tiny_weight()], ids=["far-vertex", "tiny-weight"])
def test_plot_and_report_of_coordinates_beyond_float_range(tmp_path, layers):
    pytest.importorskip("matplotlib")
    net = _write(tmp_path, "net.json", layers)
    png, page = tmp_path / "p.png", tmp_path / "r.html"
    assert main(["plot", str(net), "-o", str(png)]) == 0
    assert png.read_bytes().startswith(PNG)
    assert main(["report", str(net), "-o", str(page)]) == 0
    text = page.read_text()
    assert "data:image/png;base64," in text  # the arrangement is drawn
    W, b = layers[0]
    for v in [c for r in W for c in r] + b:  # the tables stay exact: every parameter in full
        assert q_str(fmpq(v)) in text


def test_plot_with_a_box_beyond_float_range(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "p.png"
    box = f"-{10 ** 309},{10 ** 309}"
    assert main(["plot", str(_write(tmp_path, "c.json", [(L.weights, L.biases) for L in example("C").layers])),
                 "-o", str(png), "--box", box]) == 0
    assert png.read_bytes().startswith(PNG)


def test_drawn_vertices_are_the_exact_vertices_in_the_frame():
    """The marks drawn are the images of the exact vertices under the frame, all finite, inside
    the drawn box; the axis labels name the frame."""
    pytest.importorskip("matplotlib")
    from exactnet import plotting

    plt = plotting._plt()
    net = Network.from_lists(far_vertex())
    box = plotting.arrangement_box(net)
    fig, ax = plt.subplots()
    try:
        plotting._draw_arrangement(ax, net, box)
        fr = plotting._Frame(*box)
        marks = [ln for ln in ax.lines if ln.get_marker() == "o"]
        assert len(marks) == 1
        drawn = sorted(zip(marks[0].get_xdata(), marks[0].get_ydata()))
        exact = compute_regions(net).vertex_set()
        assert drawn == sorted((fr(v[0]), fr(v[1])) for v in exact)
        lo, hi = ax.get_xlim()
        assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
        assert all(lo < c < hi for p in drawn for c in p)
        assert len({c for p in drawn for c in p}) == len({c for v in exact for c in v})  # not collapsed
        assert str(fr.exp) in ax.get_xlabel()
    finally:
        plt.close(fig)


def test_graph_of_f_with_values_beyond_float_range():
    pytest.importorskip("matplotlib")
    from exactnet.plotting import plot_arrangement

    one = Network.from_lists([([[1], [-1], [2]], [0, 1, -3]), ([[BIG, 1, -1]], [0])])
    assert plot_arrangement(one).startswith(PNG)
    assert plot_arrangement(one, box=(-BIG, BIG)).startswith(PNG)


def test_frame_keeps_every_box_drawable():
    """Boxes from 10^-500 to 10^500 wide, near 0 or far from it: the drawn ends are finite,
    apart, and within 10^8 of 0; ordinary boxes are drawn as they are."""
    pytest.importorskip("matplotlib")
    from exactnet.plotting import _Frame

    for lo, hi in [(-5, 5), (fmpq(-1, 3), fmpq(7, 2)), (-10 ** 20, 10 ** 20), (0, fmpq(1, 10 ** 6))]:
        fr = _Frame(fmpq(lo), fmpq(hi))
        assert (fr.offset, fr.exp) == (0, 0) and fr.label("x1") == "x1"
    rng = random.Random(5)
    for _ in range(300):
        e = rng.randint(-500, 500)
        width = fmpq(rng.randint(1, 999), rng.randint(1, 999)) * (fmpq(10) ** e if e >= 0 else fmpq(1, 10 ** -e))
        centre = rng.choice([fmpq(0), width * rng.randint(-3, 3), fmpq(rng.randint(-9, 9)) * 10 ** rng.randint(0, 600)])
        lo, hi = centre - width / 2, centre + width / 2
        fr = _Frame(lo, hi)
        a, b = fr(lo), fr(hi)
        assert math.isfinite(a) and math.isfinite(b)
        assert b - a > 1e-10 * max(abs(a), abs(b))  # the box does not collapse to a point
        if (fr.offset, fr.exp) == (0, 0):  # drawn as it is: only ordinary sizes
            assert 1e-101 < b - a and max(abs(a), abs(b)) < 1e101
        else:
            assert abs(a) < 1e8 and abs(b) < 1e8 and 0.5 < b - a
        assert fr((lo + hi) / 2) == pytest.approx((a + b) / 2, abs=1e-9 * (b - a))  # affine
    for q in (fmpq(BIG), fmpq(-1, BIG), fmpq(0)):  # a degenerate range (one value) is drawable too
        v = _Frame(q, q)(q)
        assert math.isfinite(v) and (v != 0 or q == 0)


def test_report_notes_a_picture_that_cannot_be_drawn(monkeypatch):
    """The exact tables are kept and the failure is a note, not an error of the whole page."""
    pytest.importorskip("matplotlib")
    from exactnet import plotting
    from exactnet.report import build_report

    def refuse(*a, **k):
        raise ValueRangeError("coordinates beyond the drawable range")

    monkeypatch.setattr(plotting, "plot_arrangement", refuse)
    text = build_report(example("C"))
    assert "not drawn: coordinates beyond the drawable range" in text
    assert "alt='dependency graph'" in text  # the other picture is still there
    assert "<h2>Network</h2>" in text and "<h2>Depth</h2>" in text


# --- canonical forms of deep networks ------------------------------------------------------------

def recursive_canon_from(rows, l, L, counter):
    """The former recursive ``symmetry._canon_from`` (the oracle for the traversal): the same
    per-layer step (``symmetry._layer_orders``, normalisation and tie classes), completed by
    recursion instead of the explicit stack."""
    if l >= L:
        return rows
    W, b, W2, b2, orders = symmetry._layer_orders(rows, l, L, counter)
    best = None
    for order in orders:
        done = recursive_canon_from(symmetry._permuted(rows, l, order, W, b, W2, b2), l + 1, L, counter)
        s = symmetry._serial(done)
        if best is None or s < best[0]:
            best = (s, done)
    return best[1]


def _both(net):
    """(rows, orderings counted) or "limit", from the iterative and the recursive version."""
    out = []
    for fn in (symmetry._canon_from, recursive_canon_from):
        c = symmetry._Counter()
        try:
            rows = fn(symmetry._rows(net), 1, net.depth, c)
            out.append(([[list(r) for r in W] for W, _ in rows], [list(b) for _, b in rows], c.n))
        except LimitError:
            out.append("limit")
    return out


def tied_network(rng, arch, pool):
    """Parameters from a tiny pool: many tied neurons (and zero incoming rows when 0 is in it)."""
    return Network.from_lists([([[rng.choice(pool) for _ in range(a)] for _ in range(b)],
                                [rng.choice(pool) for _ in range(b)]) for a, b in zip(arch, arch[1:])])


def test_iterative_canonical_form_matches_the_recursive_one():
    rng = random.Random(11)
    nets = [random_network(arch, seed=s) for arch in ((2, 3, 1), (1, 4, 4, 1), (3, 2, 2, 2, 1), (2, 3, 3, 3, 3, 2))
            for s in range(25)]
    for arch, pool in [((1, 3, 3, 1), (-1, 1)), ((1, 3, 3, 3, 1), (-1, 0, 1)), ((2, 3, 2, 3, 1), (0, 1)),
                       ((1, 4, 4, 2), (-1, 1, 2)), ((1, 2, 2, 2, 2, 2, 1), (-1, 0, 1))]:
        nets += [tied_network(rng, arch, pool) for _ in range(40)]
    nets = [n for n in nets if not symmetry.has_zero_rows(n)]  # (those take symmetry._canon_silent)
    ties = 0
    for net in nets:
        new, old = _both(net)
        assert new == old
        ties += old != "limit" and old[2] > net.depth - 1
    assert ties > 50  # the enumeration of tie classes was exercised, not only the sorted path
    # past TIE_LIMIT both give up: eight identical neurons in an early layer (8! = TIE_LIMIT orders)
    same = Network.from_lists([([[1]] * 8, [0] * 8), ([[1] * 8] * 2, [0, 1]), ([[1, 1]], [0])])
    assert _both(same) == ["limit", "limit"]


def _deep(layers, seed):
    return random_network(",".join(["2"] * layers), seed=seed)


def test_canonical_form_of_a_1000_layer_network_matches_the_recursive_one():
    net = _deep(1000, 7)
    assert not symmetry.has_zero_rows(net)  # (networks with zero rows take symmetry._canon_silent)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 5000))  # the recursive oracle needs it
    try:
        new, old = _both(net)
    finally:
        sys.setrecursionlimit(old_limit)
    assert new == old


def test_canon_of_very_deep_networks(tmp_path):
    """Any depth works at the ordinary recursion limit; the form is an orbit invariant there too."""
    path, out = tmp_path / "deep.json", tmp_path / "c.json"
    assert main(["random", "--arch", ",".join(["2"] * 1000), "-o", str(path)]) == 0
    assert main(["canon", str(path), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["layers"]
    net = _deep(2500, 7)
    assert not symmetry.has_zero_rows(net)  # where the canonical form is a complete invariant
    c = symmetry.canonical_form(net)
    # an orbit element built directly (swap the two neurons of every hidden layer, scale them)
    rows = symmetry._rows(net)
    rng = random.Random(0)
    for l in range(1, net.depth):
        s = [fmpq(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(2)]
        W, b = rows[l - 1]
        rows[l - 1] = ([[v * s[j] for v in W[1 - j]] for j in range(2)], [b[1 - j] * s[j] for j in range(2)])
        W2, b2 = rows[l]
        rows[l] = ([[r[1 - j] / s[j] for j in range(2)] for r in W2], b2)
    moved = symmetry._build(rows, net)
    assert moved != net
    assert symmetry.canonical_form(moved) == c
    assert symmetry.canonical_form(c) == c


def test_regions_of_a_1d_network_with_a_bias_beyond_float_range():
    """In 1-D the region engine's float proposals are skipped for a constraint that does not fit a
    float; its negation (the other side of a split) must skip them too (it raised TypeError). The
    cells are those of a brute-force oracle: the sign pattern between consecutive breakpoints."""
    big = 10**400
    net = Network.from_lists([([[1], [-1], [2]], [big, 1, -3]), ([[1, 1, 1]], [0])])
    rc = compute_regions(net)
    # breakpoints -big, 1, 3/2: four intervals, each with its own pattern
    pts = [fmpq(-2 * big), fmpq(0), fmpq(5, 4), fmpq(2)]
    want = sorted(tuple(int(v > 0) for v in net.preactivations([x])[0]) for x in pts)
    got = sorted(tuple(b for layer in c.pattern for b in layer) for c in rc.cells)
    assert got == want
