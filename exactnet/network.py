"""The exact ReLU network: parameters, evaluation, gradients and Jacobians.

A :class:`Network` of architecture ``(n0, n1, ..., nL)`` holds ``L`` affine
layers ``(W_l, b_l)`` with ``W_l`` an ``n_l x n_(l-1)`` ``fmpq_mat`` and ``b_l``
a tuple of ``fmpq``. Hidden layers ``1..L-1`` apply ReLU; the last layer is
affine. ``z_l = W_l h_(l-1) + b_l``, ``h_l = relu(z_l)``, ``f(x) = z_L``.

Networks are immutable and hashable by value. Everything is exact.

Parameter order (used by :meth:`Network.flatten`, :meth:`Network.unflatten`
and :meth:`Network.parameter_jacobian`): for ``l = 1..L``, the entries of
``W_l`` row by row, then the entries of ``b_l``.

Activation patterns use ``1`` for a strictly positive pre-activation and ``0``
otherwise; :meth:`Network.signs` gives the exact sign (-1, 0, 1) so that callers
can insist on points off every bent hyperplane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from flint import fmpq, fmpq_mat

from .errors import ShapeError
from .qq import Q0, to_q

if TYPE_CHECKING:  # pragma: no cover
    from .fasteval import ClearedNetwork

__all__ = ["Network", "Layer", "relu"]


def relu(q: fmpq) -> fmpq:
    """ReLU of one exact rational."""
    return q if q > 0 else Q0


@dataclass(frozen=True)
class Layer:
    """One affine layer: ``weights`` (n_out x n_in) and ``biases`` (n_out)."""

    weights: tuple[tuple[fmpq, ...], ...]
    biases: tuple[fmpq, ...]

    @property
    def n_in(self) -> int:
        return len(self.weights[0]) if self.weights else 0

    @property
    def n_out(self) -> int:
        return len(self.biases)

    def matrix(self) -> fmpq_mat:
        """The weights as an ``fmpq_mat``."""
        return fmpq_mat(self.n_out, self.n_in, [w for row in self.weights for w in row])


class Network:
    """An exact ReLU network (immutable).

    >>> net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])])
    >>> net.architecture
    (2, 2, 1)
    >>> [str(v) for v in net.evaluate([fmpq(1, 2), fmpq(-3)])]
    ['1/2']
    """

    __slots__ = ("_layers", "_arch", "name", "metadata", "_hash", "_cleared")

    def __init__(
        self,
        layers: Sequence[Layer],
        name: str | None = None,
        metadata: dict | None = None,
    ) -> None:
        layers = tuple(layers)
        if not layers:
            raise ShapeError("a network needs at least one layer")
        arch = [layers[0].n_in]
        for k, layer in enumerate(layers, start=1):
            if layer.n_out == 0:
                raise ShapeError(f"layer {k} has no neurons")
            if len(layer.weights) != layer.n_out:
                raise ShapeError(
                    f"layer {k}: {len(layer.weights)} weight rows but {layer.n_out} biases"
                )
            for r, row in enumerate(layer.weights):
                if len(row) != arch[-1]:
                    raise ShapeError(
                        f"layer {k}, row {r + 1}: {len(row)} weights, expected {arch[-1]} "
                        f"(the width of the layer before)"
                    )
            arch.append(layer.n_out)
        if arch[0] == 0:
            raise ShapeError("the input width must be at least 1")
        self._layers = layers
        self._arch = tuple(arch)
        self.name = name
        self.metadata = dict(metadata or {})
        self._hash: int | None = None
        self._cleared = None

    # ----------------------------------------------------------------- build
    @classmethod
    def from_lists(
        cls,
        layers: Iterable[tuple[Sequence[Sequence[object]], Sequence[object]]],
        name: str | None = None,
        metadata: dict | None = None,
    ) -> "Network":
        """Build from ``[(weights_rows, biases), ...]`` of ints, Fractions, fmpq or strings."""
        out = []
        for k, (w, b) in enumerate(layers, start=1):
            rows = tuple(tuple(to_q(v) for v in row) for row in w)
            bias = tuple(to_q(v) for v in b)
            out.append(Layer(rows, bias))
        return cls(out, name=name, metadata=metadata)

    @classmethod
    def unflatten(cls, architecture: Sequence[int], params: Sequence[object]) -> "Network":
        """Inverse of :meth:`flatten` for the given architecture."""
        arch = tuple(int(a) for a in architecture)
        if len(arch) < 2:
            raise ShapeError("an architecture needs an input width and at least one layer")
        need = sum(arch[l] * (arch[l - 1] + 1) for l in range(1, len(arch)))
        if len(params) != need:
            raise ShapeError(f"architecture {arch} has {need} parameters, got {len(params)}")
        it = iter(to_q(p) for p in params)
        layers = []
        for l in range(1, len(arch)):
            rows = tuple(tuple(next(it) for _ in range(arch[l - 1])) for _ in range(arch[l]))
            bias = tuple(next(it) for _ in range(arch[l]))
            layers.append(Layer(rows, bias))
        return cls(layers)

    # ------------------------------------------------------------ accessors
    @property
    def layers(self) -> tuple[Layer, ...]:
        return self._layers

    @property
    def architecture(self) -> tuple[int, ...]:
        return self._arch

    @property
    def depth(self) -> int:
        """Number of affine layers L (hidden layers plus the output layer)."""
        return len(self._layers)

    @property
    def input_dim(self) -> int:
        return self._arch[0]

    @property
    def output_dim(self) -> int:
        return self._arch[-1]

    @property
    def hidden_widths(self) -> tuple[int, ...]:
        return self._arch[1:-1]

    @property
    def num_parameters(self) -> int:
        """D: the number of weights and biases."""
        a = self._arch
        return sum(a[l] * (a[l - 1] + 1) for l in range(1, len(a)))

    @property
    def num_hidden(self) -> int:
        """N: the number of hidden neurons."""
        return sum(self._arch[1:-1])

    def weights(self, l: int) -> tuple[tuple[fmpq, ...], ...]:
        """Rows of ``W_l`` (``l`` from 1)."""
        return self._layers[l - 1].weights

    def biases(self, l: int) -> tuple[fmpq, ...]:
        return self._layers[l - 1].biases

    def weight_matrix(self, l: int) -> fmpq_mat:
        return self._layers[l - 1].matrix()

    def hidden_neurons(self) -> list[tuple[int, int]]:
        """All hidden neurons as ``(layer, index)``, layer from 1, index from 0."""
        return [(l, i) for l in range(1, self.depth) for i in range(self._arch[l])]

    def flatten(self) -> list[fmpq]:
        """All parameters in the documented order (W_1 rows, b_1, W_2 rows, b_2, ...)."""
        out: list[fmpq] = []
        for layer in self._layers:
            for row in layer.weights:
                out.extend(row)
            out.extend(layer.biases)
        return out

    def parameter_index(self, l: int, i: int, j: int | None) -> int:
        """Position in :meth:`flatten` of ``W_l[i, j]`` (or of ``b_l[i]`` when ``j`` is None)."""
        a = self._arch
        off = sum(a[k] * (a[k - 1] + 1) for k in range(1, l))
        if j is None:
            return off + a[l] * a[l - 1] + i
        return off + i * a[l - 1] + j

    def replace_layer(self, l: int, weights: Sequence[Sequence[object]], biases: Sequence[object]) -> "Network":
        """A copy with layer ``l`` replaced (shapes must still chain)."""
        new = list(self._layers)
        new[l - 1] = Layer(tuple(tuple(to_q(v) for v in r) for r in weights), tuple(to_q(v) for v in biases))
        return Network(new, name=self.name, metadata=self.metadata)

    # ------------------------------------------------------------ equality
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Network) and self._layers == other._layers

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple((tuple(map(str, self.flatten())), self._arch)))
        return self._hash

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return f"<Network{nm} architecture={self._arch}>"

    # ----------------------------------------------------------- evaluation
    def _check_point(self, x: Sequence[object]) -> list[fmpq]:
        pt = [to_q(v) for v in x]
        if len(pt) != self.input_dim:
            raise ShapeError(f"point has {len(pt)} coordinates, the network takes {self.input_dim}")
        return pt

    def preactivations(self, x: Sequence[object]) -> list[list[fmpq]]:
        """Pre-activations ``z_l`` of every layer at ``x`` (hidden layers, then the output)."""
        h = self._check_point(x)
        zs: list[list[fmpq]] = []
        L = self.depth
        for k, layer in enumerate(self._layers, start=1):
            z = []
            for row, bias in zip(layer.weights, layer.biases):
                acc = bias
                for w, v in zip(row, h):
                    if w and v:
                        acc += w * v
                z.append(acc)
            zs.append(z)
            h = [relu(v) for v in z] if k < L else z
        return zs

    def preactivations_batch(self, xs: Iterable[Sequence[object]]) -> list[list[list[fmpq]]]:
        """:meth:`preactivations` at many points (integer matrix products, :mod:`exactnet.fasteval`;
        the same exact values)."""
        pts = [self._check_point(x) for x in xs]
        return self.cleared_network().preactivations_batch(pts)

    def cleared_network(self) -> ClearedNetwork:
        """The network with denominators cleared per layer (:mod:`exactnet.fasteval`), built once."""
        if self._cleared is None:
            from .fasteval import ClearedNetwork

            self._cleared = ClearedNetwork(self)
        return self._cleared

    def evaluate(self, x: Sequence[object]) -> list[fmpq]:
        """Exact output ``f(x)`` (a list of length ``n_L``)."""
        return self.preactivations(x)[-1]

    def evaluate_batch(self, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
        """Exact outputs at many points: integer matrix products after clearing denominators.

        The cleared integer layers are computed once per network and cached
        (:mod:`exactnet.fasteval`); :meth:`evaluate_batch_reference` is the plain
        ``fmpq_mat`` version the tests compare against.
        """
        pts = [self._check_point(x) for x in xs]
        return self.cleared_network().evaluate_batch(pts) if pts else []

    def evaluate_batch_reference(self, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
        """Exact outputs at many points, using ``fmpq_mat`` products layer by layer."""
        pts = [self._check_point(x) for x in xs]
        if not pts:
            return []
        H = fmpq_mat(pts).transpose()  # n0 x k
        k = len(pts)
        L = self.depth
        for idx, layer in enumerate(self._layers, start=1):
            Z = layer.matrix() * H
            rows = Z.tolist()
            for i, b in enumerate(layer.biases):
                if b:
                    rows[i] = [v + b for v in rows[i]]
            if idx < L:
                rows = [[v if v > 0 else Q0 for v in r] for r in rows]
            H = fmpq_mat(rows) if rows else fmpq_mat(0, k)
        return [list(col) for col in zip(*H.tolist())]

    def signs(self, x: Sequence[object]) -> tuple[tuple[int, ...], ...]:
        """Exact sign (-1, 0, 1) of every hidden pre-activation at ``x``."""
        zs = self.preactivations(x)[:-1]
        return tuple(tuple((v > 0) - (v < 0) for v in z) for z in zs)

    def pattern(self, x: Sequence[object]) -> tuple[tuple[int, ...], ...]:
        """Activation pattern at ``x``: 1 where the pre-activation is > 0, else 0."""
        return tuple(tuple(1 if s > 0 else 0 for s in layer) for layer in self.signs(x))

    def is_generic_point(self, x: Sequence[object]) -> bool:
        """True when no hidden pre-activation vanishes at ``x``."""
        return all(s != 0 for layer in self.signs(x) for s in layer)

    # ------------------------------------------------------------ derivatives
    def local_affine(self, pattern: Sequence[Sequence[int]]) -> tuple[fmpq_mat, list[fmpq]]:
        """The affine map ``x -> A x + c`` that ``f`` equals on the region of ``pattern``."""
        n0 = self.input_dim
        A = fmpq_mat(n0, n0, [1 if i == j else 0 for i in range(n0) for j in range(n0)])
        c = [Q0] * n0
        L = self.depth
        for k, layer in enumerate(self._layers, start=1):
            W = layer.matrix()
            A = W * A
            cm = W * fmpq_mat(len(c), 1, c) if c else fmpq_mat(layer.n_out, 1)
            c = [cm[i, 0] + layer.biases[i] for i in range(layer.n_out)]
            if k < L:
                pat = pattern[k - 1]
                rows = A.tolist()
                for i, on in enumerate(pat):
                    if not on:
                        rows[i] = [Q0] * n0
                        c[i] = Q0
                A = fmpq_mat(rows)
        return A, c

    def gradient(self, x: Sequence[object]) -> fmpq_mat:
        """Jacobian of ``f`` with respect to the input at ``x`` (``n_L x n_0``).

        The activation pattern at ``x`` is frozen (pre-activations equal to 0 count
        as inactive); at points off every bent hyperplane this is the true derivative.
        """
        return self.local_affine(self.pattern(x))[0]

    def parameter_jacobian(self, x: Sequence[object]) -> fmpq_mat:
        """Jacobian of ``f(x)`` with respect to all D parameters (``n_L x D``), pattern frozen.

        Columns follow :meth:`flatten`. Exact: ``d f / d W_l[i,j] = c_(l,i) * h_(l-1)[j]``
        and ``d f / d b_l[i] = c_(l,i)`` where ``c_(l,i)`` is the downstream sensitivity.
        """
        zs = self.preactivations(x)
        pt = self._check_point(x)
        L = self.depth
        hs = [pt] + [[relu(v) for v in z] for z in zs[:-1]]  # h_0 .. h_(L-1)
        m = self.output_dim
        # sens[l] : m x n_l matrix, d f / d z_l
        sens: list[list[list[fmpq]]] = [None] * (L + 1)  # type: ignore[list-item]
        sens[L] = [[fmpq(1) if i == j else Q0 for j in range(m)] for i in range(m)]
        for l in range(L, 1, -1):
            W = self._layers[l - 1].weights
            prev = zs[l - 2]
            n_prev = len(prev)
            s = [[Q0] * n_prev for _ in range(m)]
            for o in range(m):
                so = sens[l][o]
                for j in range(n_prev):
                    if prev[j] > 0:
                        acc = Q0
                        for i, wi in enumerate(W):
                            if so[i] and wi[j]:
                                acc += so[i] * wi[j]
                        s[o][j] = acc
            sens[l - 1] = s
        D = self.num_parameters
        J = [[Q0] * D for _ in range(m)]
        col = 0
        for l in range(1, L + 1):
            h = hs[l - 1]
            n_out = self._arch[l]
            n_in = self._arch[l - 1]
            for o in range(m):
                so = sens[l][o]
                c = col
                for i in range(n_out):
                    if so[i]:
                        for j in range(n_in):
                            if h[j]:
                                J[o][c + j] = so[i] * h[j]
                    c += n_in
                for i in range(n_out):
                    J[o][c + i] = so[i]
            col += n_out * n_in + n_out
        return fmpq_mat(J)
