"""Exact functional equivalence of two ReLU networks of any architectures.

``equivalent(a, b)`` decides ``a(x) == b(x)`` for every ``x`` in ``R^n0`` (or in the box
``[lo, hi]^n0``). Method (``proofs/lemmas/equivalent.md``):

1. cheap exact evaluation at a few seeded random rational points: a difference there is a
   witness at once;
2. otherwise build the difference network ``h = a - b`` (:mod:`exactnet.difference`),
   shrink it with the region-free reduction steps (:func:`exactnet.reduce.cheap_reduce`:
   unused, constant, duplicate neurons, opposite pairs; same function), and compute
   its activation-region complex (:func:`exactnet.regions.compute_regions`). The two are
   equivalent iff the local affine map of ``h`` is zero on every cell. A cell with a
   nonzero map yields a witness strictly inside it (its interior point, or a step from it
   along a nonzero gradient row that stays inside the cell).

Pairs of one-hidden-layer networks (no box) use the invariant test of
:func:`exactnet.shallow.shallow_equivalent` instead (no region enumeration).

Every NOT-EQUIVALENT answer is re-checked by exact evaluation of both networks at the
witness; floats are never used. With ``scale=True`` the question is ``a = c b`` for some
rational ``c > 0``: ``c`` is read from one point where ``b`` is nonzero (the only possible
value), then ``a - c b`` is decided as above; a refutation is then the pair of points.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from flint import fmpq

from .difference import difference_network
from .errors import CertificateError, FormatError, ShapeError, UndecidedError
from .network import Network
from .qq import parse_box, q_str, to_q

__all__ = [
    "EquivalenceResult",
    "equivalent",
    "find_difference",
    "random_points",
    "equivalent_body",
    "orbit_body",
    "verify_equivalent_body",
    "not_equivalent_body",
    "parse_box",
]

Q0 = fmpq(0)
Q2 = fmpq(2)


@dataclass
class EquivalenceResult:
    """Outcome of :func:`equivalent`. On NOT-EQUIVALENT ``witness`` is a rational point with
    ``outputs = a(witness)`` and ``other_outputs = b(witness)`` (or ``scale * b``'s inputs,
    see ``scale``) differing; ``max_difference`` is the largest ``|a_i - c b_i|`` seen."""

    equivalent: bool
    witness: list | None = None
    outputs: list | None = None
    other_outputs: list | None = None
    max_difference: fmpq = Q0
    certificate_text: str | None = None
    scale: fmpq | None = None
    scale_point: list | None = None
    cells: int | None = None
    method: str = "regions"
    notes: list = field(default_factory=list)


def random_points(n: int, count: int, seed: int = 0, box=None) -> list[list[fmpq]]:
    """Seeded random rational points (in the box when given)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        if box is None:
            out.append([fmpq(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(n)])
        else:
            lo, hi = parse_box(box)
            out.append([lo + (hi - lo) * fmpq(rng.randint(1, 96), 97) for _ in range(n)])
    return out


def _diff(fa, fb, c) -> fmpq:
    return max((abs(u - c * v) for u, v in zip(fa, fb)), default=Q0)


def _cell_witness(cell) -> list[fmpq] | None:
    """A point strictly inside ``cell`` where its affine map is nonzero (None if the map is 0)."""
    A = cell.gradient.tolist()
    p = list(cell.interior_point)
    vals = [sum((a * x for a, x in zip(row, p)), Q0) + c for row, c in zip(A, cell.offset)]
    if any(vals):
        return p
    row = next((r for r in A if any(r)), None)
    if row is None:
        return None
    t = fmpq(1)
    for k in cell.constraints:
        rate = sum((a * d for a, d in zip(k.normal, row)), Q0)
        if rate < 0:
            slack = sum((a * x for a, x in zip(k.normal, p)), Q0) + k.offset
            t = min(t, slack / (-rate) / Q2)
    return [x + t * d for x, d in zip(p, row)]


def find_difference(a: Network, b: Network, c=1, box=None, timeout=None, max_cells=None, seed=0, simplify=True):
    """Decide ``a == c b``: ``(None, max_diff, cells)`` when equal, else ``(witness, max_diff, cells)``."""
    c = to_q(c)
    box = parse_box(box)
    best = Q0
    pts = random_points(a.input_dim, 8, seed, box)
    for p in pts:
        d = _diff(a.evaluate(p), b.evaluate(p), c)
        best = max(best, d)
        if d:
            return p, best, None
    from .regions import compute_regions

    from .reduce import cheap_reduce

    h = difference_network(a, b, c)
    if simplify:
        h = cheap_reduce(h)  # same function (proofs/lemmas/reduce.md)
    if h.depth == 1:
        rows = h.layers[0]
        if any(any(r) for r in rows.weights) or any(rows.biases):
            raise UndecidedError("affine difference is nonzero but no random point saw it")  # pragma: no cover
        return None, best, 0
    rc = compute_regions(h, box=box, timeout=timeout, max_cells=max_cells)
    witness = None
    for cell in rc.cells:
        w = _cell_witness(cell)
        if w is not None:
            d = _diff(a.evaluate(w), b.evaluate(w), c)
            best = max(best, d)
            if d and witness is None:
                witness = w
            if not d:
                raise UndecidedError("region engine reported a nonzero map where evaluation finds none")
    return witness, best, len(rc.cells)


def _result_points(a, b, w, c):
    return [to_q(x) for x in w], a.evaluate(w), [c * v for v in b.evaluate(w)] if c != 1 else b.evaluate(w)


def _scale_candidate(a, b, box, seed):
    for p in random_points(a.input_dim, 16, seed + 1, box):
        fa, fb = a.evaluate(p), b.evaluate(p)
        for u, v in zip(fa, fb):
            if v:
                return u / v, p
    return None, None


def equivalent(
    a: Network,
    b: Network,
    box=None,
    scale: bool = False,
    timeout: float | None = None,
    max_cells: int | None = None,
    certificate: bool = False,
    seed: int = 0,
    simplify: bool = True,
) -> EquivalenceResult:
    """Decide whether ``a`` and ``b`` compute the same function (``a = c b``, ``c > 0``, with ``scale``).

    ``simplify=False`` skips the region-free shrinking of the difference network (for tests
    and benchmarks of the region path); ``certificate=True`` also builds the certificate text
    (its EQUIVALENT body always uses the unsimplified difference network the checker rebuilds).
    ``scale=True`` answers carry no certificate: ``scale=True, certificate=True`` raises
    CertificateError. ``box`` is ``None`` or ``(lo, hi)`` for ``[lo, hi]^n0``
    (:func:`parse_box`).
    """
    if not isinstance(a, Network) or not isinstance(b, Network):
        raise FormatError(f"equivalent compares two Networks, got {type(a).__name__} and {type(b).__name__}")
    if a.input_dim != b.input_dim or a.output_dim != b.output_dim:
        raise ShapeError(f"networks need the same input and output widths: {a.architecture} vs {b.architecture}")
    box = parse_box(box)
    if scale and certificate:
        raise CertificateError("scale=True answers carry no certificate (the certificate kinds certify a = b only)")
    if not scale and box is None and simplify and a.depth == 2 and b.depth == 2:
        res = _shallow(a, b)
        if res is not None:
            if certificate:
                res.certificate_text = _certificate(a, b, None, res.equivalent, res.witness, timeout, max_cells)
            return res
    if not scale:
        w, best, cells = find_difference(a, b, 1, box, timeout, max_cells, seed, simplify)
        if w is None:
            res = EquivalenceResult(True, max_difference=best, cells=cells)
            if certificate:
                res.certificate_text = _certificate(a, b, box, True, None, timeout, max_cells)
            return res
        w, fa, fb = _result_points(a, b, w, 1)
        res = EquivalenceResult(False, w, fa, fb, best, cells=cells)
        if certificate:
            res.certificate_text = _certificate(a, b, box, False, w)
        return res
    return _equivalent_scaled(a, b, box, timeout, max_cells, seed)


def _shallow(a: Network, b: Network) -> EquivalenceResult | None:
    """The invariant test of one-hidden-layer pairs (exactnet.shallow), when available."""
    try:
        from .shallow import shallow_equivalent
    except ImportError:  # pragma: no cover - another module
        return None
    r = shallow_equivalent(a, b)
    if r.equivalent:
        return EquivalenceResult(True, method="shallow-invariants")
    w, fa, fb = _result_points(a, b, list(r.witness), 1)
    return EquivalenceResult(False, w, fa, fb, _diff(fa, fb, 1), method="shallow-invariants")


def _equivalent_scaled(a, b, box, timeout, max_cells, seed) -> EquivalenceResult:
    c, p0 = _scale_candidate(a, b, box, seed)
    for _ in range(2):
        if c is not None and c <= 0:
            # a = c' b with c' > 0 forces a_i(p0) / b_i(p0) = c' > 0
            w, fa, fb = _result_points(a, b, p0, 1)
            return EquivalenceResult(False, w, fa, fb, _diff(fa, fb, 1), scale=c, scale_point=w,
                                     notes=["the only possible scale is not positive"])
        cc = c if c is not None else fmpq(1)
        w, best, cells = find_difference(a, b, cc, box, timeout, max_cells, seed)
        if w is None:
            return EquivalenceResult(True, max_difference=best, cells=cells, scale=cc)
        fbw = b.evaluate(w)
        if c is None and any(fbw):
            c, p0 = next(u / v for u, v in zip(a.evaluate(w), fbw) if v), w
            continue
        # b(w) = 0 and a(w) != 0, or a(w) != c b(w) with c forced by p0
        w, fa, fb = _result_points(a, b, w, 1)
        return EquivalenceResult(False, w, fa, fb, best, scale=cc, cells=cells,
                                 scale_point=[to_q(x) for x in p0] if p0 is not None else None)
    raise UndecidedError("scale search did not settle")  # pragma: no cover


def _fractions(net: Network):
    from .qq import q_to_fraction

    Ws = [[[q_to_fraction(v) for v in row] for row in net.weights(l)] for l in range(1, net.depth + 1)]
    bs = [[q_to_fraction(v) for v in net.biases(l)] for l in range(1, net.depth + 1)]
    return Ws, bs


def equivalent_body(a: Network, b: Network, box=None, timeout=None, max_cells=None) -> list[str]:
    """Body lines of an EQUIVALENT certificate (a REGIONS body of ``a - b``), re-checked by the
    independent checker's rule before being returned; CertificateError if it fails."""
    h = difference_network(a, b)
    box = parse_box(box)
    if h.depth == 1:
        body = ["domain all" if box is None else f"domain box {q_str(box[0])} {q_str(box[1])}"]
    else:
        from .cert_regions import regions_certificate_body
        from .regions import compute_regions

        body = regions_certificate_body(compute_regions(h, box=box, timeout=timeout, max_cells=max_cells))
    verify_equivalent_body(a, b, body)
    return body


def orbit_body(a: Network, b: Network) -> list[str] | None:
    """An ``orbit`` EQUIVALENT body (b is a moved by permutations and positive scalings), or None."""
    from .symmetry import orbit_map

    maps = orbit_map(a, b)
    if maps is None or a.depth < 2:
        return None
    body = ["orbit"]
    for L, (perm, scales) in enumerate(maps, start=1):
        body += [f"perm {L} " + " ".join(map(str, perm)), f"scale {L} " + " ".join(q_str(c) for c in scales)]
    return body


def verify_equivalent_body(a: Network, b: Network, body: list[str]) -> int:
    """Run the checker's EQUIVALENT rule (raises CertificateError when it rejects)."""
    from .certificate import load_checker

    chk = load_checker()  # the repository's proofs/ on the path (CertificateError if absent), its check module loaded
    from proofs import kind_equivalent as ke  # which takes its CheckError and Net from that module

    CheckError, Net = chk.CheckError, chk.Net

    (Wf, bf), (Wg, bg) = _fractions(a), _fractions(b)
    try:
        return ke.verify_pair(Net.of(Wf, bf), Net.of(Wg, bg), [(k, line.split(" ")) for k, line in enumerate(body, 1)])
    except CheckError as e:
        raise CertificateError(f"{e.code}: {e.msg} (body line {e.lineno})") from None


def not_equivalent_body(a: Network, b: Network, w) -> list[str]:
    """Body lines of a NOT-EQUIVALENT certificate for the witness ``w`` (checked here)."""
    fa, fb = a.evaluate(w), b.evaluate(w)
    if fa == fb:
        raise CertificateError("internal: the witness does not separate the networks")
    return ["witness " + " ".join(q_str(x) for x in w), "value " + " ".join(q_str(x) for x in fa),
            "other-value " + " ".join(q_str(x) for x in fb)]


def _certificate(a, b, box, equal: bool, w, timeout=None, max_cells=None):
    """Certificate text, or None when the certificate writer is not available."""
    try:
        from .certificate import write_certificate
    except ImportError:
        return None
    if equal:
        return write_certificate("EQUIVALENT", a, orbit_body(a, b) or equivalent_body(a, b, box, timeout, max_cells),
                                 other=b)
    return write_certificate("NOT-EQUIVALENT", a, not_equivalent_body(a, b, w), other=b)
