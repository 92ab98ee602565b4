"""Rules deep-3 and deep-n: global identifiability for three hidden layers when the input and the
first hidden layer have width 2, and for more hidden layers when the input and every hidden layer
but the last two have width 2; a wider input is reduced to width 2 by Lemma R (theorems and proofs:
``proofs/lemmas/deep3_identifiability.md``).

Architecture ``(2, 2, n2, n3, m)``. On the open quadrant ``C+`` where both first-layer neurons
are active, ``f`` equals the two-hidden-layer network :func:`collapse` (layers 1 and 2 merged
into one affine layer). The rule's hypotheses:

* bend points of ``f`` (Lemma B of ``deep_identifiability.md``, any depth), found here at the
  vertices of the exact region complex, whose covers by ``2 + n2`` lines are all tight; among
  their tight covers every *admissible* pair of lines (non-parallel, every other bend point in one
  open quadrant of the pair) is ``theta``'s first layer with the other bend points in ``C+`` and
  the other lines the second layer's, or is refuted by a kink point (an ``obstruct`` line: a kink
  where the pair would make ``f`` a function of one coordinate, or more than ``n3`` kink lines in
  one cell of the cover);
* each second-layer zero line of ``collapse(net)`` carries a bend point inside ``C+`` and is a
  line of that cover;
* the anchor, steps and jump steps of rule deep-2 for ``collapse(net)`` with every point in
  ``C+`` (:func:`exactnet.deep_identifiable.anchor_and_steps` with ``keep``), and no flip set in
  ``collapse(net)``'s layers.

The certificate body is ``rule deep-3``, the ``bend`` lines (neurons of any hidden layer of the
network as given), the ``obstruct`` lines (refuting kink points), the ``anchor`` and the ``step`` /
``jump`` lines (indices of ``collapse(net)``:
second-layer neuron ``k`` of the network is its first-layer neuron ``k``). Only a search: the
checker decides.

Wider input, architectures ``(n0, 2, ..., 2, n, n', m)`` with ``n0 > 2`` (Lemma R of the same file):
``f`` is determined by its restriction to the plane of two input coordinates on which the first
layer has rank 2 (:func:`plane_restriction`), and ``theta`` is identifiable when that restriction, a
network with input width 2, is; the body is the restriction's, in the plane's coordinates, and the
checker restricts the embedded network the same way.

Rule deep-n, architectures ``(2, 2, ..., 2, n, n', m)`` with ``L >= 1`` width-2 hidden layers before
the last two (:func:`width2_levels`; the producer names ``L = 1`` deep-3, which the checker runs the
same way): the same search level by level. ``C_i`` is the region where
every neuron of the width-2 layers ``1..i`` is active (:func:`level_forms`: their pre-activations
there as affine functions); :func:`collapse` merges the first ``L + 1`` layers (``f`` on ``C_L``); the
cover budget is ``2L + n``; at level ``i`` of a tight cover the admissible pairs are taken among the
lines not yet identified, with the bend and kink points inside ``C_(i-1)``, and an obstruction
below the last level needs local lines that are not all parallel. Body ``rule deep-n``, the same
lines.
"""

from __future__ import annotations

from itertools import combinations
from random import Random

from flint import fmpq

from .deep_identifiable import (DeepResult, Vec, _bend_ok, _covers, _dot, _forms, _hyperplane, _maps_differ, _norm,
                                _obstruction, _patch_points, _pt, _rank, _sgn, _TooBig, _zero_subset, anchor_and_steps,
                                certify_in_both_frames, moved_back)
from .network import Network
from .qq import q_str

__all__ = ["collapse", "level_forms", "width2_levels", "plane_restriction", "deep3_identifiable_body",
           "certify_deep3", "covers_architecture", "family_network", "MAX_BEND_POINTS_3"]

#: Bend points kept for the cover search (the first ones found, spread over the lines): this many, or
#: four per line of the cover budget ``2L + n`` when that is more (rule deep-n with ``L >= 3``).
MAX_BEND_POINTS_3 = 24


def width2_levels(architecture) -> int:
    """``L``: the number of hidden layers of width 2 before the last two hidden layers, when those
    layers have width 2 and the input width is at least 2 (``(n0, 2, ..., 2, n, n', m)``, ``L`` twos
    after the input), else 0. Rule deep-3 is ``L = 1``, rule deep-n any ``L >= 1``; an input wider than
    2 is reduced to a plane by :func:`plane_restriction`."""
    arch = tuple(architecture)
    L = len(arch) - 4
    return L if L >= 1 and arch[0] >= 2 and all(a == 2 for a in arch[1:L + 1]) else 0


def covers_architecture(architecture) -> bool:
    """True for the architectures rules deep-3 and deep-n are about: ``(n0, 2, ..., 2, n, n', m)``
    (at least three hidden layers; input width at least 2, every hidden layer but the last two of
    width 2)."""
    return width2_levels(architecture) >= 1


def plane_restriction(net: Network) -> Network | None:
    """Lemma R (``proofs/lemmas/deep3_identifiability.md``, "Wider input"): ``net`` restricted to the
    plane of input coordinates ``i < j``, the first pair (in ``combinations`` order) whose columns of
    the first layer have rank 2, as a network with input width 2; ``net`` itself when its input width
    is 2 and its first layer has rank 2; None when no pair has rank 2. The checker makes the same
    choice; it is the same for every permuted or rescaled copy of ``net``."""
    from .regions import slice_network

    n0, W1 = net.input_dim, net.weights(1)
    for c in combinations(range(n0), 2):
        if _rank([[r[i] for i in c] for r in W1]) == 2:
            return slice_network(net, [0] * n0, *([int(k == i) for k in range(n0)] for i in c))
    return None


def family_network(seed: int, n2: int = 2, n3: int = 2, levels: int = 1) -> Network:
    """A seeded ``(2, 2, n2, n3, 1)`` network (``levels`` twos after the input) of the family on which
    rules deep-3 and deep-n often apply (deep-3: about one in seven for ``n2 = n3 = 2``), the source of
    ``examples/identifiable_2-2-2-2-1.json`` (seed 46) and, with ``n3=3, levels=2``, of
    ``examples/identifiable_2-2-2-2-3-1.json`` (seed 20).

    First layer ``x + c1``, ``y + c2`` (``c`` in ``6..12``: the lines far from the origin); each
    second-layer neuron ``w . (t - c) + e`` with ``w`` entries in ``{+-1/2, +-1, +-2}`` and ``e`` in
    ``-3/2..3/2`` (its line in ``C+`` passes near the origin); third layer positive weights ``p/q``
    (``1 <= p <= 4``, ``q <= 2``) and negative biases ``-2..-8``; output weights ``1..3``, bias 0. Only a
    generator of candidates: whether a member is identifiable is what ``certify`` decides.

    ``levels > 1`` (rule deep-n): ``levels - 1`` more width-2 layers after the first, each
    ``t -> (t1 + e1 t2, t2 + e2 t1) + bias`` with ``e`` in ``{+-1/4, +-1/2}`` and the bias making the
    values at the origin ``d`` in ``2..4`` (its lines cross the all-active quadrant of the layer
    before at distance about ``d`` from the origin); the layers above use ``c = d``, and a row of the
    next layer parallel to an earlier one is drawn again."""
    from fractions import Fraction as F

    r = Random(seed)
    c = [F(r.randint(6, 12)), F(r.randint(6, 12))]
    chain = [([[1, 0], [0, 1]], c)]
    for _ in range(levels - 1):
        e, d = [F(r.choice([-1, 1]), r.choice([2, 4])) for _ in range(2)], [F(r.randint(2, 4)) for _ in range(2)]
        chain.append(([[1, e[0]], [e[1], 1]], [d[0] - c[0] - e[0] * c[1], d[1] - c[1] - e[1] * c[0]]))
        c = d
    W2, b2 = [], []
    while len(W2) < n2:
        w = [F(r.choice([-2, -1, 1, 2]), r.choice([1, 2])), F(r.choice([-2, -1, 1, 2]), r.choice([1, 2]))]
        if levels > 1 and any(w[0] * v[1] == w[1] * v[0] for v in W2):
            continue  # deep-n: parallel lines in this layer are redrawn
        W2.append(w)
        b2.append(-(w[0] * c[0] + w[1] * c[1]) + F(r.randint(-3, 3), 2))
    W3 = [[F(r.randint(1, 4), r.choice([1, 2])) for _ in range(n2)] for _ in range(n3)]
    b3 = [-F(r.randint(2, 8)) for _ in range(n3)]
    W4 = [[F(r.randint(1, 3)) for _ in range(n3)]]
    return Network.from_lists(chain + [(W2, b2), (W3, b3), (W4, [0])])


def level_forms(net: Network, levels: int) -> list[list[Vec]]:
    """The pre-activations of hidden layers ``1 .. levels + 1`` where every neuron of the layers before
    is active, as affine functions of the input (rows ``gradient + [constant]``), layer by layer."""
    return [[list(g) + [c] for g, c in layer] for layer in _forms(net, [1] * net.num_hidden)[:levels + 1]]


def collapse(net: Network, levels: int = 1) -> Network:
    """The two-hidden-layer network equal to ``net`` where every neuron of the first ``levels`` hidden
    layers is active: layers ``1 .. levels + 1`` merged into one affine layer (for ``levels = 1``:
    ``W2 W1``, ``W2 b1 + b2``), the other layers as they are."""
    rows = level_forms(net, levels)[-1]
    rest = [(net.weights(l), net.biases(l)) for l in range(levels + 2, net.depth + 1)]
    return Network.from_lists([([r[:-1] for r in rows], [r[-1] for r in rows])] + rest)


def _faces(net: Network):
    from .faces import complex_faces
    from .regions import compute_regions

    return complex_faces(compute_regions(net))


def _kink_points(net: Network, cf) -> list[tuple[Vec, Vec, tuple]]:
    """Points ``y`` inside edges of the region complex where exactly one hidden neuron vanishes and
    ``f`` has a kink, with the gradient of that neuron's local form (the normal of ``V(f)`` near
    ``y``) and the normalised local line."""
    V = [[fmpq(c) for c in v] for v in cf.vertices]
    pts = []
    for e in cf.edges or []:
        if e.kind == "segment":
            pts.append([(p + q) / 2 for p, q in zip(V[e.vertices[0]], V[e.vertices[1]])])
        elif e.kind == "ray":
            pts.append([p + fmpq(c) for p, c in zip(V[e.vertices[0]], e.direction)])
        else:
            pts.append([fmpq(c) for c in e.point])
    out = []
    for y in pts:
        pre = [v for layer in net.preactivations(y)[:-1] for v in layer]
        zeros = [k for k, v in enumerate(pre) if v == 0]
        if len(zeros) != 1:
            continue
        pat = [int(v > 0) for v in pre]
        if not _maps_differ(net, pat, zeros[0]):
            continue
        g, c = [f for layer in _forms(net, pat)[:-1] for f in layer][zeros[0]]
        out.append((y, list(g), _norm(list(g) + [c])))
    return out


def _refutes(y: Vec, a: tuple, b: tuple, u: tuple, normal: Vec) -> bool:
    """Mirror of the checker: the kink at ``y`` cannot be in theta' if ``{a, b}`` were its first layer
    with both neurons active on the quadrant ``u`` (lemmas/deep3_identifiability.md, Step 1)."""
    v = (_sgn(_dot(list(a), y)), _sgn(_dot(list(b), y)))
    return 0 not in v and v != u and all(v[i] != u[i] or _rank([normal, list(c[:2])]) == 2
                                         for i, c in enumerate((a, b)))


def _bend_witnesses(net: Network, cf) -> list[tuple]:
    """Lemma B witnesses ``(x, u, a, b, (layer, index))`` at the vertices of the exact region
    complex ``cf``: for each vertex ``x`` and each edge leaving it along ``-u``, a neuron vanishing on
    the edge near ``x`` with a kink there, and no kink just beyond ``x`` along ``u``."""
    V = [[fmpq(c) for c in v] for v in cf.vertices]
    out_dirs: dict[int, list[Vec]] = {i: [] for i in range(len(V))}
    for e in cf.edges or []:
        if e.kind == "segment":
            i, j = e.vertices
            out_dirs[i].append([q - p for p, q in zip(V[i], V[j])])
            out_dirs[j].append([p - q for p, q in zip(V[i], V[j])])
        elif e.kind == "ray":
            out_dirs[e.vertices[0]].append([fmpq(c) for c in e.direction])
    hidden = [(l, i) for l in range(net.depth - 1) for i in range(net.architecture[l + 1])]
    found = []
    for vi, x in enumerate(V):
        for d in out_dirs[vi]:
            u = [-c for c in d]
            for nu in hidden:
                b = fmpq(1, 2)
                for _ in range(30):
                    if _bend_ok(net, x, u, fmpq(1, 2), b, nu):
                        found.append((x, u, fmpq(1, 2), b, (nu[0] + 1, nu[1])))
                        break
                    b /= 2
                else:
                    continue
                break
    return found


def _spread_lines(bends: list, lines: list[Vec]) -> list:
    """Bends reordered round-robin over the given lines (a point on several counts for the first)."""
    queues: list[list] = [[] for _ in lines] + [[]]
    for bend in bends:
        k = next((i for i, r in enumerate(lines) if _dot(r, bend[0]) == 0), len(lines))
        queues[k].append(bend)
    return [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]


def _level_pairs(P: list[Vec], lines: list[tuple], before) -> list[tuple[tuple, tuple, tuple]]:
    """``(a, b, quadrant)`` for the pairs of ``lines`` that are not parallel and have every point of
    ``P`` inside ``before`` and off them in one open quadrant (lemmas/deep3_identifiability.md)."""
    out = []
    for a, b in combinations(lines, 2):
        if a[0] * b[1] - a[1] * b[0] == 0:
            continue
        sides = {(_sgn(_dot(list(a), x)), _sgn(_dot(list(b), x))) for x in P if before(x)}
        sides = {v for v in sides if 0 not in v}
        if len(sides) == 1:
            out.append((a, b, sides.pop()))
    return out


def deep3_identifiable_body(net: Network, seed: int = 0) -> DeepResult:
    """Try to build the body of an IDENTIFIABLE certificate with rule deep-3 (three hidden layers) or
    deep-n (more: ``L`` width-2 levels before the last two hidden layers)."""
    arch = net.architecture
    L = width2_levels(arch)
    rule = "deep-3" if L == 1 else "deep-n"
    if not L:
        return DeepResult(None, "rules deep-3 and deep-n need three or more hidden layers, input width at least 2 "
                                "and width 2 in every hidden layer but the last two")
    if arch[0] > 2:  # Lemma R: the body is the one of the restriction to a coordinate plane
        sub2 = plane_restriction(net)
        if sub2 is None:
            return DeepResult(None, "the first layer has rank below 2")
        return deep3_identifiable_body(sub2, seed)
    n2, n3 = arch[L + 1], arch[L + 2]
    if n2 > 6 or n3 > 12:
        return DeepResult(None, f"rule {rule} is limited to width 6 and 12 in the last two hidden layers")
    forms = level_forms(net, L)
    levels, ks = forms[:-1], forms[-1]
    if any(_rank([r[:-1] for r in t]) < 2 for t in levels):
        return DeepResult(None, "the two hyperplanes of a width-2 layer (all before it active) are parallel or a "
                                "row is zero")
    sub = collapse(net, L)
    S1, S2, S3 = sub.weights(1), sub.weights(2), sub.weights(3)
    if any(all(v == 0 for v in r[:-1]) for r in ks) or any(_rank([a, b]) < 2 for a, b in combinations(ks, 2)):
        return DeepResult(None, "on the all-active region two neurons of the first wide layer share a zero line, "
                                "or one is constant")
    m = sub.architecture[3]
    uT = [[S3[o][k] * S2[k][j] for o in range(m) for j in range(n2)] for k in range(n3)]
    uS = [[S2[k][j] * S1[j][i] for k in range(n3) for i in range(2)] for j in range(n2)]
    if _zero_subset(uT) or _zero_subset(uS):
        return DeepResult(None, "a flip set exists in the last two hidden layers")

    def inside(i: int):  # C_i: every neuron of the width-2 levels 1..i active
        return lambda x: all(_dot(r, x) > 0 for t in levels[:i] for r in t)

    cf = _faces(net)
    bends = _spread_lines(_bend_witnesses(net, cf), [r for t in forms for r in t])
    P: list[Vec] = []
    kept = []
    for bend in bends:
        if bend[0] not in P and len(P) < max(MAX_BEND_POINTS_3, 4 * (2 * L + n2)):
            P.append(bend[0])
        if bend[0] in P and bend not in kept:
            kept.append(bend)
    if not P:
        return DeepResult(None, "no bend points found")
    try:
        covers = _covers(P, 2 * L + n2)
    except _TooBig:
        return DeepResult(None, f"the cover search over {len(P)} bend points is too large")
    if covers is None:
        return DeepResult(None, f"the {len(P)} bend points admit a cover with a free line or fewer lines")
    own, kl = [{_norm(r) for r in t} for t in levels], {_norm(r) for r in ks}
    kinks = _kink_points(net, cf)
    refuting: list[Vec] = []
    patches: list[list[Vec]] = []
    stats = {"bends": len(P), "covers": len(covers), "admissible": 0}
    for cover in covers:
        hs = [_hyperplane(P, c) for c in cover]
        rest = list(hs)
        for i in range(L):  # level i + 1 of the proof: its pair is theta's, or refuted
            before, exception = inside(i), False
            for a, b, u in _level_pairs(P, rest, before):
                stats["admissible"] += 1
                off = [x for x in P if before(x) and _dot(list(a), x) != 0 and _dot(list(b), x) != 0]
                if {a, b} == own[i] and all(map(inside(i + 1), off)) and (i + 1 < L or set(rest) - own[i] == kl):
                    exception = True
                    continue
                y = next((y for y, g, _ in kinks if before(y) and _refutes(y, a, b, u, g)), None)
                if y is not None:
                    if y not in refuting:
                        refuting.append(y)
                    continue
                # Step 1 (b): too many local lines in one cell of the cover inside the quadrant
                cands = [(y, h) for y, _, h in kinks
                         if before(y) and (_sgn(_dot(list(a), y)), _sgn(_dot(list(b), y))) == u]
                pts = _obstruction(cands, hs, n3, i + 1 < L)
                if pts is None:
                    return DeepResult(None, f"an admissible pair at level {i + 1} other than theta's is not refuted",
                                      stats)
                if pts not in patches:
                    patches.append(pts)
            if not exception:
                break
            rest = [h for h in rest if h not in own[i]]
    if not all(any(_dot(r, x) == 0 and inside(L)(x) for x in P) for r in ks):
        return DeepResult(None, "a line of the first wide layer carries no bend point inside the all-active region",
                          stats)
    rng = Random(seed)
    lines = anchor_and_steps(sub, ks, rng, _patch_points(sub, rng), keep=inside(L))
    if lines is None:
        return DeepResult(None, "no anchor cell and steps inside the all-active region pin the layers above",
                          stats)
    body = [f"rule {rule}"]
    body += [f"bend {_pt(x)} {_pt(u)} {q_str(a)} {q_str(b)} {l} {i}" for x, u, a, b, (l, i) in kept]
    for pts in patches + ([refuting] if refuting else []):
        body.append(f"obstruct {len(pts)} " + " ".join(_pt(y) for y in pts))
    return DeepResult(body + lines, f"rule {rule} applies", {**stats, "steps": len(lines) - 1})


def certify_deep3(net: Network, seed: int = 0):
    """An IDENTIFIABLE certify result by rule deep-3 (or deep-n for more than three hidden layers), or
    an UNDECIDED one (no claim); searched on the canonical form first (moved back to ``net``'s
    indices), then on ``net`` as given, like :func:`exactnet.deep_identifiable.certify_deep`."""
    deep_n = width2_levels(net.architecture) > 1
    rule = "deep-n" if deep_n else "deep-3"
    scope = (f"{net.depth - 1} hidden layers, width 2 in every hidden layer but the last two"
             if deep_n else "three hidden layers, first width 2")
    if net.input_dim > 2:
        scope += ", the input restricted to a coordinate plane (Lemma R)"
    return certify_in_both_frames(net, deep3_identifiable_body, moved_back, rule,
                                  f"{scope}: the hypotheses of rule {rule} hold "
                                  "(proofs/lemmas/deep3_identifiability.md)", seed)
