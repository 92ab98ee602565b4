"""Fast exact batch evaluation: clear denominators once, then integer matrix products.

:meth:`exactnet.network.Network.evaluate_batch` multiplies ``fmpq_mat`` matrices and
adds biases entry by entry in Python. This module computes the same numbers with
``fmpz_mat`` (integer) products only:

* each layer is stored once as ``W_l = Wz_l / dW_l`` and ``b_l = bz_l / db_l`` with
  integer ``Wz_l, bz_l`` and positive integers ``dW_l, db_l`` (least common
  denominators);
* the batch of points is ``H_0 = Hz_0 / d_0`` (one common denominator);
* layer by layer, with ``D = lcm(dW_l * d_(l-1), db_l)``,
  ``Zz = Wz_l Hz_(l-1) * (D / (dW_l d_(l-1))) + bz_l 1^T * (D / db_l)`` so that
  ``Z_l = Zz / D`` exactly. Since ``D > 0``, ``relu(Z_l) = relu(Zz) / D``: the sign
  test is on integers.

Only the last step divides (one ``fmpq`` per output entry, reduced). The result is
identical to ``Network.evaluate`` (tests check this against it); nothing is rounded.
"""

from __future__ import annotations

from itertools import chain
from math import lcm
from typing import Iterable, Sequence

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat

from .errors import ShapeError
from .network import Network
from .qq import common_denominator, to_q

__all__ = ["ClearedNetwork", "evaluate_batch_fast"]

_EXACT_TYPES = {fmpq, fmpz, int}


class ClearedNetwork:
    """A network with denominators cleared per layer, ready for fast batch evaluation."""

    __slots__ = ("network", "_layers", "_hom")

    def __init__(self, net: Network) -> None:
        self.network = net
        self._layers: list[tuple[fmpz_mat, int, fmpz_mat, int]] = []
        self._hom: list[tuple[fmpz_mat, int]] | None = None
        for layer in net.layers:
            dW = common_denominator(v for row in layer.weights for v in row)
            db = common_denominator(layer.biases)
            Wz = fmpz_mat([[int(v.p) * (dW // int(v.q)) for v in row] for row in layer.weights])
            bz = fmpz_mat([[int(v.p) * (db // int(v.q))] for v in layer.biases])
            self._layers.append((Wz, dW, bz, db))

    def evaluate_batch(self, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
        """Exact outputs at many points (same result as ``Network.evaluate_batch``)."""
        n0 = self.network.input_dim
        pts = [list(x) for x in xs]
        kinds = set(map(type, chain.from_iterable(pts)))
        if not kinds <= _EXACT_TYPES:  # anything else (str, Fraction, float, bool) goes through to_q
            pts = [[to_q(v) for v in x] for x in pts]
        for x in pts:
            if len(x) != n0:
                raise ShapeError(f"point has {len(x)} coordinates, the network takes {n0}")
        if not pts:
            return []
        k = len(pts)
        # H is n0 x k (points as columns); numer_denom clears the common denominator in C
        Hz, dz = fmpq_mat(pts).transpose().numer_denom()
        H, d = Hz, int(dz)
        ones = fmpz_mat(1, k, [1] * k)
        L = len(self._layers)
        for idx, (Wz, dW, bz, db) in enumerate(self._layers, start=1):
            D = lcm(dW * d, db)
            Z = Wz * H
            f = D // (dW * d)
            if f != 1:
                Z = Z * fmpz(f)
            g = D // db
            B = bz * ones
            if g != 1:
                B = B * fmpz(g)
            Z = Z + B
            d = D
            if idx < L:
                rows = Z.tolist()
                zero = fmpz(0)
                H = fmpz_mat([[v if v > 0 else zero for v in r] for r in rows])
            else:
                H = Z
        den = fmpz(d)
        cols = H.transpose().tolist()
        return [[fmpq(v, den) for v in col] for col in cols]

    def integer_preactivations(self, pts: Sequence[Sequence[fmpq]]) -> list[tuple[list[list[fmpz]], list[int]]]:
        """Pre-activations of every layer at the points ``pts`` (a nonempty list), as integers: per
        layer ``(rows, dens)`` with ``z_l(pts[k])[i] = rows[i][k] / dens[k]``, ``dens[k] > 0``.

        Homogeneous integer columns, one denominator per point (a common denominator of a large
        batch of unrelated rationals would be huge): column ``(hz; e)`` stands for ``hz / e``; with
        the layer matrix ``M_l = c_l [W_l | b_l]`` (:meth:`homogeneous_layers`),
        ``z_l = (M_l (hz; e)) / (c_l e)``, and ``relu`` keeps the sign of the numerator.
        """
        cols = []
        for x in pts:
            e = common_denominator(x)
            cols.append([int(v.p) * (e // int(v.q)) for v in x] + [e])
        H = fmpz_mat(cols).transpose()
        dens = [c[-1] for c in cols]
        layers = self.homogeneous_layers()
        out = []
        zero = fmpz(0)
        for idx, (Mz, c) in enumerate(layers, start=1):
            rows = (Mz * H).tolist()
            dens = [c * e for e in dens]
            out.append((rows, dens))
            if idx < len(layers):
                H = fmpz_mat([[v if v > 0 else zero for v in r] for r in rows] + [dens])
        return out

    def preactivations_batch(self, pts: Sequence[Sequence[fmpq]]) -> list[list[list[fmpq]]]:
        """``Network.preactivations(x)`` for every ``x`` of ``pts`` (the same exact rationals), from
        :meth:`integer_preactivations`."""
        out: list[list[list[fmpq]]] = [[] for _ in pts]
        if pts:
            for rows, dens in self.integer_preactivations(pts):
                for k, e in enumerate(dens):
                    out[k].append([fmpq(r[k], e) for r in rows])
        return out

    def homogeneous_layers(self) -> list[tuple[fmpz_mat, int]]:
        """Per layer ``(c [W | b], c)``: an integer matrix, ``c`` the least common denominator of the layer."""
        if self._hom is None:
            hom = []
            for Wz, dW, bz, db in self._layers:
                c = lcm(dW, db)
                fw, fb = c // dW, c // db
                rows = [[int(v) * fw for v in r] + [int(b[0]) * fb] for r, b in zip(Wz.tolist(), bz.tolist())]
                hom.append((fmpz_mat(rows), c))
            self._hom = hom
        return self._hom


def evaluate_batch_fast(net: Network | ClearedNetwork, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
    """Exact outputs of ``net`` at the points ``xs`` using integer matrix products."""
    cn = net if isinstance(net, ClearedNetwork) else ClearedNetwork(net)
    return cn.evaluate_batch(xs)
