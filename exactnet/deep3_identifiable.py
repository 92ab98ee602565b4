"""Rule deep-3: global identifiability for three hidden layers when the input and the first
hidden layer have width 2 (theorem and proof: ``proofs/lemmas/deep3_identifiability.md``).

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

__all__ = ["collapse", "deep3_identifiable_body", "certify_deep3", "admissible_pairs",
           "covers_architecture", "family_network", "MAX_BEND_POINTS_3"]

#: Bend points kept for the cover search (the first ones found, spread over the lines).
MAX_BEND_POINTS_3 = 24


def covers_architecture(architecture) -> bool:
    """True for the architectures rule deep-3 is about: ``(2, 2, n2, n3, m)``."""
    return len(architecture) == 5 and tuple(architecture[:2]) == (2, 2)


def family_network(seed: int, n2: int = 2, n3: int = 2) -> Network:
    """A seeded ``(2, 2, n2, n3, 1)`` network of the family on which rule deep-3 often applies (about one
    in seven for ``n2 = n3 = 2``), the source of ``examples/identifiable_2-2-2-2-1.json`` (seed 46).

    First layer ``x + c1``, ``y + c2`` (``c`` in ``6..12``: the lines far from the origin); each
    second-layer neuron ``w . (t - c) + e`` with ``w`` entries in ``{+-1/2, +-1, +-2}`` and ``e`` in
    ``-3/2..3/2`` (its line in ``C+`` passes near the origin); third layer positive weights ``p/q``
    (``1 <= p <= 4``, ``q <= 2``) and negative biases ``-2..-8``; output weights ``1..3``, bias 0. Only a
    generator of candidates: whether a member is identifiable is what ``certify`` decides."""
    from fractions import Fraction as F

    r = Random(seed)
    c = [F(r.randint(6, 12)), F(r.randint(6, 12))]
    W2, b2 = [], []
    for _ in range(n2):
        w = [F(r.choice([-2, -1, 1, 2]), r.choice([1, 2])), F(r.choice([-2, -1, 1, 2]), r.choice([1, 2]))]
        W2.append(w)
        b2.append(-(w[0] * c[0] + w[1] * c[1]) + F(r.randint(-3, 3), 2))
    W3 = [[F(r.randint(1, 4), r.choice([1, 2])) for _ in range(n2)] for _ in range(n3)]
    b3 = [-F(r.randint(2, 8)) for _ in range(n3)]
    W4 = [[F(r.randint(1, 3)) for _ in range(n3)]]
    return Network.from_lists([([[1, 0], [0, 1]], c), (W2, b2), (W3, b3), (W4, [0])])


def collapse(net: Network) -> Network:
    """The two-hidden-layer network equal to ``net`` where every first-layer neuron is active:
    layers 1 and 2 merged (``W2 W1``, ``W2 b1 + b2``), the other layers as they are."""
    W1, b1, W2, b2 = net.weights(1), net.biases(1), net.weights(2), net.biases(2)
    rows = [[sum((r[j] * W1[j][i] for j in range(len(W1))), fmpq(0)) for i in range(net.input_dim)] for r in W2]
    bias = [sum((r[j] * b1[j] for j in range(len(W1))), fmpq(0)) + c for r, c in zip(W2, b2)]
    rest = [(net.weights(l), net.biases(l)) for l in range(3, net.depth + 1)]
    return Network.from_lists([(rows, bias)] + rest)


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


def admissible_pairs(P: list[Vec], covers: list[tuple]) -> list[tuple[tuple, tuple, tuple, tuple]]:
    """``(cover lines, a, b, quadrant)`` for the pairs of lines ``a``, ``b`` of a tight cover that are
    not parallel and have every point of ``P`` off them in one open quadrant (lines normalised)."""
    out = []
    for cover in covers:
        hs = [_hyperplane(P, c) for c in cover]
        for a, b in combinations(hs, 2):
            if a[0] * b[1] - a[1] * b[0] == 0:
                continue
            sides = {(_sgn(_dot(list(a), x)), _sgn(_dot(list(b), x))) for x in P}
            sides = {s for s in sides if 0 not in s}
            if len(sides) == 1:
                out.append((tuple(hs), a, b, sides.pop()))
    return out


def deep3_identifiable_body(net: Network, seed: int = 0) -> DeepResult:
    """Try to build the body of an IDENTIFIABLE certificate with rule deep-3."""
    arch = net.architecture
    if not covers_architecture(arch):
        return DeepResult(None, "rule deep-3 needs three hidden layers and input and first hidden width 2")
    n2 = arch[2]
    if n2 > 6 or arch[3] > 12:
        return DeepResult(None, "rule deep-3 is limited to second-layer width 6 and third-layer width 12")
    W1, b1 = net.weights(1), net.biases(1)
    t = [list(W1[j]) + [b1[j]] for j in range(2)]
    if _rank([r[:-1] for r in t]) < 2:
        return DeepResult(None, "the two first-layer hyperplanes are parallel or a row is zero")
    sub = collapse(net)
    S1, Sb1, S2, S3 = sub.weights(1), sub.biases(1), sub.weights(2), sub.weights(3)
    ks = [list(S1[k]) + [Sb1[k]] for k in range(n2)]
    if any(all(v == 0 for v in r[:-1]) for r in ks) or any(_rank([a, b]) < 2 for a, b in combinations(ks, 2)):
        return DeepResult(None, "on the all-active quadrant two second-layer neurons share a zero line, "
                                "or one is constant")
    m, n3 = sub.architecture[3], sub.architecture[2]
    uT = [[S3[o][k] * S2[k][j] for o in range(m) for j in range(n2)] for k in range(n3)]
    uS = [[S2[k][j] * S1[j][i] for k in range(n3) for i in range(2)] for j in range(n2)]
    if _zero_subset(uT) or _zero_subset(uS):
        return DeepResult(None, "a flip set exists in the layers above the first")

    def inside(x: Vec) -> bool:
        return all(_dot(r, x) > 0 for r in t)

    cf = _faces(net)
    bends = _spread_lines(_bend_witnesses(net, cf), t + ks)
    P: list[Vec] = []
    kept = []
    for bend in bends:
        if bend[0] not in P and len(P) < MAX_BEND_POINTS_3:
            P.append(bend[0])
        if bend[0] in P and bend not in kept:
            kept.append(bend)
    if not P:
        return DeepResult(None, "no bend points found")
    try:
        covers = _covers(P, 2 + n2)
    except _TooBig:
        return DeepResult(None, f"the cover search over {len(P)} bend points is too large")
    if covers is None:
        return DeepResult(None, f"the {len(P)} bend points admit a cover with a free line or fewer lines")
    own, kl = {_norm(r) for r in t}, {_norm(r) for r in ks}
    kinks = _kink_points(net, cf)
    refuting: list[Vec] = []
    patches: list[list[Vec]] = []
    pairs = admissible_pairs(P, covers)
    stats = {"bends": len(P), "covers": len(covers), "admissible": len(pairs)}
    for hs, a, b, u in pairs:
        off = [x for x in P if _dot(list(a), x) != 0 and _dot(list(b), x) != 0]
        if {a, b} == own and set(hs) - own == kl and all(map(inside, off)):
            continue
        y = next((y for y, g, _ in kinks if _refutes(y, a, b, u, g)), None)
        if y is not None:
            if y not in refuting:
                refuting.append(y)
            continue
        # Step 1 (b): more local lines in one cell of the cover inside the quadrant than n3 neurons make
        cands = [(y, h) for y, _, h in kinks if (_sgn(_dot(list(a), y)), _sgn(_dot(list(b), y))) == u]
        pts = _obstruction(cands, list(hs), arch[3])
        if pts is None:
            return DeepResult(None, "an admissible first layer other than theta's is not refuted", stats)
        if pts not in patches:
            patches.append(pts)
    if not all(any(_dot(r, x) == 0 and inside(x) for x in P) for r in ks):
        return DeepResult(None, "a second-layer line carries no bend point inside the all-active quadrant", stats)
    rng = Random(seed)
    lines = anchor_and_steps(sub, ks, rng, _patch_points(sub, rng), keep=inside)
    if lines is None:
        return DeepResult(None, "no anchor cell and steps inside the all-active quadrant pin the third layer",
                          stats)
    body = ["rule deep-3"]
    body += [f"bend {_pt(x)} {_pt(u)} {q_str(a)} {q_str(b)} {l} {i}" for x, u, a, b, (l, i) in kept]
    for pts in patches + ([refuting] if refuting else []):
        body.append(f"obstruct {len(pts)} " + " ".join(_pt(y) for y in pts))
    return DeepResult(body + lines, "rule deep-3 applies", {**stats, "steps": len(lines) - 1})


def certify_deep3(net: Network, seed: int = 0):
    """An IDENTIFIABLE certify result by rule deep-3, or an UNDECIDED one (no claim); searched on the
    canonical form first (moved back to ``net``'s indices), then on ``net`` as given, like
    :func:`exactnet.deep_identifiable.certify_deep`."""
    return certify_in_both_frames(
        net, deep3_identifiable_body, moved_back, "deep-3",
        "three hidden layers, input and first width 2: the hypotheses of rule deep-3 hold "
        "(proofs/lemmas/deep3_identifiability.md)", seed)
