"""The exact ReLU network: parameters, evaluation, gradients and Jacobians.

A :class:`Network` of architecture ``(n0, n1, ..., nL)`` holds ``L`` affine
layers ``(W_l, b_l)`` with ``W_l`` an ``n_l x n_(l-1)`` ``fmpq_mat`` and ``b_l``
a tuple of ``fmpq``. Hidden layers ``1..L-1`` apply ReLU; the last layer is
affine. ``z_l = W_l h_(l-1) + b_l``, ``h_l = relu(z_l)``, ``f(x) = z_L``.

Networks are immutable and hashable by value. Everything is exact: every entry
goes through :func:`exactnet.qq.to_q` when a :class:`Layer` is built (floats are
refused with :class:`~exactnet.errors.FormatError`), and layers are numbered
``1..L`` everywhere (a layer number outside that range raises
:class:`~exactnet.errors.ValueRangeError`; there is no negative indexing).
Networks pickle and deep-copy without their caches.

Parameter order (used by :meth:`Network.flatten`, :meth:`Network.unflatten`
and :meth:`Network.parameter_jacobian`): for ``l = 1..L``, the entries of
``W_l`` row by row, then the entries of ``b_l``.

Activation patterns use ``1`` for a strictly positive pre-activation and ``0``
otherwise; :meth:`Network.signs` gives the exact sign (-1, 0, 1) so that callers
can insist on points off every bent hyperplane.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from flint import fmpq, fmpq_mat

from .errors import ExactnetError, FormatError, ShapeError, ValueRangeError
from .qq import Q0, to_q

if TYPE_CHECKING:  # pragma: no cover
    from .fasteval import ClearedNetwork

__all__ = ["Network", "Layer", "relu"]


def relu(q: fmpq) -> fmpq:
    """ReLU of one exact rational."""
    return q if q > 0 else Q0


def _prefixed(e: ExactnetError, where: str) -> ExactnetError:
    """The same kind of error with ``where`` in front of its message."""
    return type(e)(f"{where}: {e}")


def _q_vector(values: object, what: str, row: int | None = None) -> tuple[fmpq, ...]:
    """``values`` as a tuple of ``fmpq`` (each entry through :func:`to_q`; floats refused).

    ``what`` (with ``row`` appended when given) names the vector in error messages.
    """
    if type(values) is tuple:
        t = values
    else:
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            if row is not None:
                what = f"{what} {row}"
            raise FormatError(f"{what} must be a sequence of numbers, got {type(values).__name__}")
        t = tuple(values)
    for v in t:
        if type(v) is not fmpq:
            break
    else:  # the common case inside the engines: already exact, nothing to convert
        return t
    if row is not None:
        what = f"{what} {row}"
    out = []
    for j, v in enumerate(t, start=1):
        try:
            out.append(to_q(v))
        except ExactnetError as e:
            raise _prefixed(e, f"{what}, entry {j}") from None
    return tuple(out)


def _index(value: object, what: str) -> int:
    """``value`` as a Python int (ints and integer-like objects such as NumPy ints; not bools)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise FormatError(f"{what} must be an integer, got {type(value).__name__} {value!r}")
    return operator.index(value)


def _check_metadata(value: object, where: str = "metadata") -> None:
    """Refuse metadata that the network file format cannot write back (JSON only)."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueRangeError(f"{where}: {value!r} cannot be written to a network file (JSON has no NaN/inf)")
        return
    if isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            _check_metadata(v, f"{where}[{k}]")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise FormatError(f"{where}: keys must be strings, got {type(k).__name__} {k!r}")
            _check_metadata(v, f"{where}[{k!r}]")
        return
    raise FormatError(
        f"{where}: a {type(value).__name__} cannot be written to a network file "
        "(metadata holds JSON values only: str, int, float, bool, None, lists, dicts; "
        "write exact numbers as strings)"
    )


@dataclass(frozen=True)
class Layer:
    """One affine layer: ``weights`` (n_out x n_in) and ``biases`` (n_out).

    Every entry is converted exactly with :func:`exactnet.qq.to_q` at construction
    (``int``, ``Fraction``, ``fmpq``, ``fmpz`` or a string such as ``"1/3"``); a
    float is refused with :class:`~exactnet.errors.FormatError`. Rows become
    tuples of ``fmpq`` (an ``fmpq_mat`` is accepted for ``weights``), so layers
    built from lists and from tuples are equal. Ragged rows raise
    :class:`~exactnet.errors.ShapeError`.
    """

    weights: tuple[tuple[fmpq, ...], ...]
    biases: tuple[fmpq, ...]

    def __post_init__(self) -> None:
        w: Any = self.weights
        if isinstance(w, fmpq_mat):
            w = w.tolist()
        if isinstance(w, (str, bytes)) or not hasattr(w, "__iter__"):
            raise FormatError(f"layer weights must be a sequence of rows, got {type(w).__name__}")
        rows = tuple([_q_vector(r, "weights row", i) for i, r in enumerate(w, start=1)])
        if rows:
            n_in = len(rows[0])
            for i, r in enumerate(rows, start=1):
                if len(r) != n_in:
                    raise ShapeError(f"ragged weights: row 1 has {n_in} entries, row {i} has {len(r)}")
        object.__setattr__(self, "weights", rows)
        object.__setattr__(self, "biases", _q_vector(self.biases, "biases"))

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

    __slots__ = ("_layers", "_arch", "_offsets", "name", "metadata", "_hash", "_cleared")

    def __init__(
        self,
        layers: Sequence[Layer],
        name: str | None = None,
        metadata: dict | None = None,
    ) -> None:
        """Check that ``layers`` chain; ``name`` is a string or None.

        ``metadata`` is a dict of JSON values (string keys; str, int, float, bool,
        None, lists, dicts) so that :func:`exactnet.netjson.dumps_network` can
        write it; anything else raises :class:`~exactnet.errors.FormatError`.
        The entries of the layers are exact (see :class:`Layer`).
        """
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise FormatError(f"a network takes a sequence of Layer objects, got {type(layers).__name__}")
        layers = tuple(layers)
        if not layers:
            raise ShapeError("a network needs at least one layer")
        for k, layer in enumerate(layers, start=1):
            if not isinstance(layer, Layer):
                raise FormatError(
                    f"layer {k} is a {type(layer).__name__}, not a Layer "
                    "(use Network.from_lists for (weights, biases) pairs)"
                )
        if name is not None and not isinstance(name, str):
            raise FormatError(f"the network name must be a string or None, got {type(name).__name__}")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise FormatError(f"metadata must be a dict or None, got {type(metadata).__name__}")
        metadata = dict(metadata or {})
        if metadata:
            _check_metadata(metadata)
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
        offsets = [0]
        for l in range(1, len(arch)):
            offsets.append(offsets[-1] + arch[l] * (arch[l - 1] + 1))
        self._offsets = tuple(offsets)  # _offsets[l - 1]: first parameter of layer l; [-1] = D
        self.name = name
        self.metadata = metadata
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
        """Build from ``[(weights_rows, biases), ...]`` of ints, Fractions, fmpq or strings.

        Floats are refused (:class:`~exactnet.errors.FormatError`); an item that is
        not a ``(weights, biases)`` pair raises FormatError too.
        """
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise FormatError(f"from_lists takes a list of (weights, biases) pairs, got {type(layers).__name__}")
        out = []
        for k, item in enumerate(layers, start=1):
            if isinstance(item, (str, bytes, dict)) or not hasattr(item, "__len__") or len(item) != 2:
                raise FormatError(f"layer {k} must be a pair (weights, biases), got {type(item).__name__}")
            w, b = item
            try:
                out.append(Layer(w, b))
            except ExactnetError as e:
                raise _prefixed(e, f"layer {k}") from None
        return cls(out, name=name, metadata=metadata)

    @classmethod
    def unflatten(cls, architecture: Sequence[int], params: Sequence[object]) -> "Network":
        """Inverse of :meth:`flatten` for the given architecture.

        ``architecture`` is a sequence of positive integers (floats and strings are
        refused, not truncated); ``params`` any iterable of exact numbers (see
        :class:`Layer`) of the right length.
        """
        if isinstance(architecture, (str, bytes)) or not hasattr(architecture, "__iter__"):
            raise FormatError(f"an architecture is a sequence of widths, got {type(architecture).__name__}")
        arch = tuple(_index(a, "an architecture width") for a in architecture)
        if len(arch) < 2:
            raise ShapeError("an architecture needs an input width and at least one layer")
        if min(arch) < 1:
            raise ValueRangeError(f"architecture {arch}: every width must be at least 1")
        need = sum(arch[l] * (arch[l - 1] + 1) for l in range(1, len(arch)))
        vals = _q_vector(params, "parameters")
        if len(vals) != need:
            raise ShapeError(f"architecture {arch} has {need} parameters, got {len(vals)}")
        it = iter(vals)
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
        return self._offsets[-1]

    @property
    def num_hidden(self) -> int:
        """N: the number of hidden neurons."""
        return sum(self._arch[1:-1])

    def _layer_number(self, l: object) -> int:
        """``l`` checked as a layer number ``1..L`` (no negative indexing)."""
        k = _index(l, "a layer number")
        if not 1 <= k <= len(self._layers):
            raise ValueRangeError(f"layer {k} does not exist: layers are numbered 1..{len(self._layers)}")
        return k

    def weights(self, l: int) -> tuple[tuple[fmpq, ...], ...]:
        """Rows of ``W_l`` (``l`` from 1 to L; anything else raises ValueRangeError)."""
        return self._layers[self._layer_number(l) - 1].weights

    def biases(self, l: int) -> tuple[fmpq, ...]:
        """``b_l`` (``l`` from 1 to L)."""
        return self._layers[self._layer_number(l) - 1].biases

    def weight_matrix(self, l: int) -> fmpq_mat:
        """``W_l`` as an ``fmpq_mat`` (``l`` from 1 to L)."""
        return self._layers[self._layer_number(l) - 1].matrix()

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
        """Position in :meth:`flatten` of ``W_l[i, j]`` (or of ``b_l[i]`` when ``j`` is None).

        ``l`` from 1 to L, ``i`` from 0 to ``n_l - 1``, ``j`` from 0 to ``n_(l-1) - 1``;
        anything else raises ValueRangeError.
        """
        a = self._arch
        if type(l) is not int or not 0 < l < len(a):
            l = self._layer_number(l)
        if type(i) is not int or not 0 <= i < a[l]:
            i = _index(i, "a neuron index")
            if not 0 <= i < a[l]:
                raise ValueRangeError(f"layer {l} has neurons 0..{a[l] - 1}, not {i}")
        off = self._offsets[l - 1]
        if j is None:
            return off + a[l] * a[l - 1] + i
        if type(j) is not int or not 0 <= j < a[l - 1]:
            j = _index(j, "an input index")
            if not 0 <= j < a[l - 1]:
                raise ValueRangeError(f"layer {l} has inputs 0..{a[l - 1] - 1}, not {j}")
        return off + i * a[l - 1] + j

    def replace_layer(self, l: int, weights: Sequence[Sequence[object]], biases: Sequence[object]) -> "Network":
        """A copy with layer ``l`` (1..L) replaced (shapes must still chain)."""
        k = self._layer_number(l)
        new = list(self._layers)
        try:
            new[k - 1] = Layer(weights, biases)
        except ExactnetError as e:
            raise _prefixed(e, f"layer {k}") from None
        return Network(new, name=self.name, metadata=self.metadata)

    # ------------------------------------------------------------ equality
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Network) and self._layers == other._layers

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple((tuple(map(str, self.flatten())), self._arch)))
        return self._hash

    def __reduce__(self) -> tuple:
        # Rebuild from the layers: caches (the hash, the cleared integer network of
        # :mod:`exactnet.fasteval`, which holds unpicklable ``fmpz_mat``) are dropped.
        return (Network, (self._layers, self.name, self.metadata))

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return f"<Network{nm} architecture={self._arch}>"

    # ----------------------------------------------------------- evaluation
    def _check_point(self, x: Sequence[object]) -> list[fmpq]:
        if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
            raise FormatError(
                f"a point must be a sequence of {self.input_dim} numbers, got {type(x).__name__}"
            )
        try:
            pt = [to_q(v) for v in x]
        except ExactnetError as e:
            for j, v in enumerate(x, start=1):
                try:
                    to_q(v)
                except ExactnetError:
                    raise _prefixed(e, f"point coordinate {j}") from None
            raise  # ``x`` was an iterator, already consumed: no position to report
        if len(pt) != self.input_dim:
            raise ShapeError(f"point has {len(pt)} coordinates, the network takes {self.input_dim}")
        return pt

    def _check_points(self, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
        if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
            raise FormatError(f"expected a sequence of points, got {type(xs).__name__}")
        return [self._check_point(x) for x in xs]

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
        pts = self._check_points(xs)
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
        pts = self._check_points(xs)
        return self.cleared_network().evaluate_batch(pts) if pts else []

    def evaluate_batch_reference(self, xs: Iterable[Sequence[object]]) -> list[list[fmpq]]:
        """Exact outputs at many points, using ``fmpq_mat`` products layer by layer."""
        pts = self._check_points(xs)
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
        """The affine map ``x -> A x + c`` that ``f`` equals on the region of ``pattern``.

        ``pattern`` has one entry per hidden layer (L - 1), each with one bit per
        neuron: ``0``/``1`` or ``False``/``True``. Wrong lengths raise ShapeError,
        other bit values ValueRangeError.
        """
        pattern = self._check_pattern(pattern)
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

    def _check_pattern(self, pattern: object) -> tuple[tuple[int, ...], ...]:
        """``pattern`` checked against the hidden widths, as tuples of 0/1."""
        widths = self._arch[1:-1]
        if isinstance(pattern, (str, bytes)) or not hasattr(pattern, "__iter__"):
            raise FormatError(f"an activation pattern is a sequence of layers of bits, got {type(pattern).__name__}")
        layers = tuple(pattern)
        if len(layers) != len(widths):
            raise ShapeError(
                f"activation pattern has {len(layers)} layers, the network has {len(widths)} hidden layers"
            )
        out = []
        for k, (bits, n) in enumerate(zip(layers, widths), start=1):
            if isinstance(bits, (str, bytes)) or not hasattr(bits, "__iter__"):
                raise FormatError(f"activation pattern, layer {k}: expected a sequence of bits, got {type(bits).__name__}")
            bits = tuple(bits)
            if len(bits) != n:
                raise ShapeError(f"activation pattern, layer {k}: {len(bits)} bits for {n} neurons")
            row = []
            for i, b in enumerate(bits):
                if b is True or b is False:
                    row.append(int(b))
                    continue
                if not hasattr(b, "__index__"):
                    raise FormatError(
                        f"activation pattern, layer {k}, neuron {i}: a bit is 0 or 1, got {type(b).__name__} {b!r}"
                    )
                v = operator.index(b)
                if v not in (0, 1):
                    raise ValueRangeError(f"activation pattern, layer {k}, neuron {i}: a bit is 0 or 1, not {v}")
                row.append(v)
            out.append(tuple(row))
        return tuple(out)

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
