"""Continuous families in the fibre: NOT-LOCALLY-IDENTIFIABLE certificates (producer side).

A network ``theta`` is not locally identifiable when arbitrarily close to it there are
networks computing the same function outside its orbit (permutations and positive scalings of
hidden neurons). This module looks for a segment ``theta + t*Delta`` (``0 <= t <= T``) kept in
the fibre by one of the mechanisms of ``proofs/lemmas/not_locally_identifiable.md``:

* ``active``: a structurally active neuron (row ``0``/``>= 0`` weights, bias ``>= 0``): shift
  its bias, compensate in the next layer's bias;
* ``dead``: a structurally dead neuron (weights ``0``/``<= 0``, bias ``<= 0``): its row (down)
  and outgoing column are free;
* ``unused``: zero outgoing column: its incoming row is free;
* ``proportional``: two positively proportional neurons of one layer: redistribute their
  outgoing weights;
* ``opposite``: an invisible opposite pair (``r_J = -lambda r_I``, ``C_I + lambda C_J = 0``):
  shift both biases, compensate in the next layer;

and an orbit invariant that changes with ``t`` (``preactivation``: two witness points where
the moved pre-activation ``g + t u`` has ``g, u`` independent; ``contribution``: one witness
point where the last-layer contribution ``C_I(t) z_I(t)`` moves; ``ratio K``: witness points
where ``W_(l+1)[K,I](t) z_I(t)(x) / z_(l+1,K)(y)`` moves, any layer). Candidates are proposed here;
the independent checker ``proofs/check.py`` decides (:func:`find_family` returns only families
whose certificate it verified).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from flint import fmpq

from .errors import UndecidedError
from .network import Network
from .qq import Q0, Q1, q_str, to_q

__all__ = ["KIND", "ContinuousFamily", "candidates", "find_family", "checker_knows_kind",
           "not_locally_identifiable_body"]

KIND = "NOT-LOCALLY-IDENTIFIABLE"


@dataclass(frozen=True)
class ContinuousFamily:
    """``theta + t*delta`` for ``0 <= t <= T`` in the fibre of ``network`` (see the lemma)."""

    network: Network
    mechanism: str
    layer: int
    neurons: tuple[int, ...]
    T: fmpq
    delta: tuple[fmpq, ...]
    invariant: str
    witnesses: tuple[tuple[fmpq, ...], ...]
    certificate: str | None = None

    def member(self, t: object) -> Network:
        """The family member ``theta + t*delta`` (``0 <= t <= T`` for the certified range)."""
        t = to_q(t)
        return Network.unflatten(self.network.architecture,
                                 [p + t * d for p, d in zip(self.network.flatten(), self.delta)])

    def body_lines(self) -> list[str]:
        return not_locally_identifiable_body(self)

    def describe(self) -> str:
        who = " ".join(str(i) for i in self.neurons)
        return f"{self.mechanism} (layer {self.layer}, neuron(s) {who}), invariant {self.invariant}"

    def to_json(self) -> dict:
        return {"mechanism": self.mechanism, "layer": self.layer, "neurons": list(self.neurons),
                "T": q_str(self.T), "delta": [q_str(v) for v in self.delta], "invariant": self.invariant,
                "witnesses": [[q_str(v) for v in x] for x in self.witnesses]}


def not_locally_identifiable_body(fam: ContinuousFamily) -> list[str]:
    """Body lines of the certificate (``proofs/spec-1.0-not-locally-identifiable.md``)."""
    lines = [f"mechanism {fam.mechanism} {fam.layer} " + " ".join(str(i) for i in fam.neurons),
             f"interval {q_str(fam.T)}", "delta " + " ".join(q_str(v) for v in fam.delta),
             f"invariant {fam.invariant}"]  # "ratio K" carries its neuron
    return lines + ["witness " + " ".join(q_str(v) for v in x) for x in fam.witnesses]


def _ratio(u, v):
    k = next((k for k, x in enumerate(u) if x != 0), None)
    if k is None:
        return None
    lam = v[k] / u[k]
    return lam if all(y == lam * x for x, y in zip(u, v)) else None


def _directions(net: Network, l: int):
    """(mechanism, neurons, {flat index: value}) proposals for hidden layer ``l``."""
    W, b, V, c = net.weights(l), net.biases(l), net.weights(l + 1), net.biases(l + 1)
    idx = net.parameter_index
    rows = [list(w) + [bi] for w, bi in zip(W, b)]
    cols = [[V[o][i] for o in range(len(V))] for i in range(len(W))]
    for i, r in enumerate(rows):
        w, bi = r[:-1], r[-1]
        if not any(cols[i]):
            for j in list(range(len(w))) + [None]:
                yield "unused", (i,), {idx(l, i, j): Q1}
        if (all(x == 0 for x in w) if l == 1 else all(x <= 0 for x in w)) and bi <= 0:
            yield "dead", (i,), {idx(l, i, None): -Q1}
            for j in range(len(w) if l > 1 else 0):
                yield "dead", (i,), {idx(l, i, j): -Q1}
            for o in range(len(V)):
                yield "dead", (i,), {idx(l + 1, o, i): Q1}
        if (all(x == 0 for x in w) if l == 1 else all(x >= 0 for x in w)) and bi >= 0:
            d = {idx(l, i, None): Q1}
            d.update({idx(l + 1, o, None): -V[o][i] for o in range(len(V))})
            yield "active", (i,), d
    for i, j in itertools.permutations(range(len(W)), 2):
        lam = _ratio(rows[i], rows[j])
        if lam is not None and lam > 0:
            for o in range(len(V)):
                yield "proportional", (i, j), {idx(l + 1, o, i): Q1, idx(l + 1, o, j): -1 / lam}
        elif lam is not None and lam < 0 and all(x - lam * y == 0 for x, y in zip(cols[i], cols[j])):
            d = {idx(l, i, None): Q1, idx(l, j, None): lam}
            d.update({idx(l + 1, o, None): -cols[i][o] for o in range(len(V))})
            yield "opposite", (i, j), d


def _points(n: int) -> list[list[fmpq]]:
    pts = [[Q0] * n]
    for k in range(n):
        for s in (1, -1, 2, -3):
            pts.append([fmpq(s) if t == k else Q0 for t in range(n)])
    pts += [[fmpq(((7 * k + 3 * t) % 11) - 5, 1 + (k + t) % 3) for t in range(n)] for k in range(6)]
    return pts


def _gu(net: Network, l: int, i: int, delta: list[fmpq], x):
    pre = net.preactivations(x)
    h = list(x) if l == 1 else [v if v > 0 else Q0 for v in pre[l - 2]]
    u = delta[net.parameter_index(l, i, None)]
    u += sum((delta[net.parameter_index(l, i, j)] * h[j] for j in range(len(h))), Q0)
    return pre[l - 1][i], u


def _witnesses(net: Network, l: int, i: int, delta: list[fmpq]):
    """(invariant, witness points) certifying that the family leaves the orbit, or None."""
    seen = []
    contribution = l == net.depth - 1
    if contribution:
        C = [row[i] for row in net.weights(l + 1)]
        dC = [delta[net.parameter_index(l + 1, o, i)] for o in range(len(C))]
    found = None
    for x in _points(net.input_dim):
        g, u = _gu(net, l, i, delta, x)
        for y, h, v in seen:
            if h * u - g * v != 0:
                return "preactivation", (tuple(y), tuple(x))
        seen.append((x, g, u))
        if found is None and contribution and (any(c * u + e * g != 0 for c, e in zip(C, dC))
                                               or any(e * u != 0 for e in dC)):
            found = ("contribution", (tuple(x),))
    return found or _ratio_witnesses(net, l, i, delta, [(x, g, u) for x, g, u in seen])


def _ratio_witnesses(net: Network, l: int, i: int, delta: list[fmpq], seen):
    """("ratio K", (x, y)): W[K,I](t) z_I(t)(x) / z_(l+1,K)(y) moves with t (any hidden layer)."""
    W = net.weights(l + 1)
    for K in range(len(W)):
        e = delta[net.parameter_index(l + 1, K, i)]
        x = next((x for x, g, u in seen if W[K][i] * u + e * g != 0 or e * u != 0), None)
        y = next((y for y, _, _ in seen if net.preactivations(y)[l][K] != 0), None)
        if x is not None and y is not None:
            return f"ratio {K}", (tuple(x), tuple(y))
    return None


def candidates(net: Network):
    """Every proposed family (unchecked), mechanisms in the order of the module docstring."""
    D = net.num_parameters
    for l in range(1, net.depth):
        for mech, neurons, d in _directions(net, l):
            delta = [Q0] * D
            for k, v in d.items():
                delta[k] = to_q(v)
            found = _witnesses(net, l, neurons[0], delta)
            if found is not None:
                yield ContinuousFamily(net, mech, l, neurons, Q1, tuple(delta), found[0], found[1])


def checker_knows_kind() -> bool:
    """True when both the certificate writer and the checker framework accept the kind."""
    from . import certificate

    return KIND in certificate.KINDS and KIND in getattr(certificate.load_checker(), "KINDS", ())


def find_family(net: Network, max_candidates: int = 200) -> ContinuousFamily | None:
    """The first proposed family whose certificate ``proofs/check.py`` verifies, or None.

    Raises :class:`UndecidedError` when the checker framework does not know the kind yet."""
    from .certificate import check_certificate_text, write_certificate

    if not checker_knows_kind():
        raise UndecidedError(f"the certificate kind {KIND} is not registered in the checker framework "
                             "(proofs/check.py KINDS, exactnet/certificate.py KINDS)")
    for fam in itertools.islice(candidates(net), max_candidates):
        text = write_certificate(KIND, net, fam.body_lines())
        res = check_certificate_text(text, net)
        if res.verified:
            return ContinuousFamily(**{**fam.__dict__, "certificate": text})
    return None
