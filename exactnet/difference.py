"""The difference network ``h = f - c g`` of two ReLU networks, as one ReLU network.

Construction (proved in ``proofs/lemmas/equivalent.md``; the certificate checker rebuilds
it the same way). Let ``H = max(L_f, L_g) - 1`` be the larger number of hidden layers.
Each network is first *padded* to ``H`` hidden layers without changing its function:

* a network with ``1 <= k < H`` hidden layers keeps them; its last hidden values are
  nonnegative, so layers ``k+1..H`` carry them with identity neurons (``relu(t) = t`` for
  ``t >= 0``), and its output layer reads the last carried layer;
* an affine network (no hidden layer, ``z = W x + b``, ``m`` outputs) gets hidden layer 1
  ``relu(W x + b), relu(-W x - b)`` (``2m`` neurons), carried by identities to layer ``H``,
  and output layer ``[I, -I]`` with bias 0 (``relu(t) - relu(-t) = t``).

The padded hidden layers are put side by side: layer 1 stacks both first-layer rows (both
read ``x``), deeper layers are block diagonal; the output layer is ``[V_f, -c V_g]`` with
bias ``d_f - c d_g``. When both networks are affine (``H = 0``) the difference is the
affine layer ``W_f - c W_g``, ``b_f - c b_g``.
"""

from __future__ import annotations

from flint import fmpq

from .errors import ShapeError
from .network import Layer, Network
from .qq import to_q

__all__ = ["pad_network", "difference_network"]

Q0 = fmpq(0)
Q1 = fmpq(1)


def _identity(n: int) -> Layer:
    rows = tuple(tuple(Q1 if i == j else Q0 for j in range(n)) for i in range(n))
    return Layer(rows, tuple(Q0 for _ in range(n)))


def pad_network(net: Network, hidden: int) -> Network:
    """``net`` with exactly ``hidden`` hidden layers and the same function (see module doc)."""
    k = net.depth - 1
    if hidden < k:
        raise ShapeError(f"cannot pad {k} hidden layers down to {hidden}")
    if hidden == k:
        return net
    layers = list(net.layers)
    if k == 0:
        out = layers[0]
        m = out.n_out
        first = Layer(
            tuple(out.weights) + tuple(tuple(-w for w in r) for r in out.weights),
            tuple(out.biases) + tuple(-b for b in out.biases),
        )
        read = Layer(
            tuple(tuple(Q1 if j == i else (-Q1 if j == i + m else Q0) for j in range(2 * m)) for i in range(m)),
            tuple(Q0 for _ in range(m)),
        )
        hid = [first] + [_identity(2 * m) for _ in range(hidden - 1)]
        return Network(hid + [read])
    width = layers[-2].n_out
    return Network(layers[:-1] + [_identity(width) for _ in range(hidden - k)] + [layers[-1]])


def _block_diag(a: Layer, b: Layer) -> Layer:
    na, nb = a.n_in, b.n_in
    rows = tuple(tuple(r) + (Q0,) * nb for r in a.weights) + tuple((Q0,) * na + tuple(r) for r in b.weights)
    return Layer(rows, tuple(a.biases) + tuple(b.biases))


def difference_network(f: Network, g: Network, scale: object = 1) -> Network:
    """One ReLU network computing ``f(x) - scale * g(x)`` exactly on all of ``R^n0``."""
    if f.input_dim != g.input_dim or f.output_dim != g.output_dim:
        raise ShapeError(
            f"networks need the same input and output widths: {f.architecture} vs {g.architecture}"
        )
    c = to_q(scale)
    H = max(f.depth, g.depth) - 1
    if H == 0:
        (lf,), (lg,) = f.layers, g.layers
        rows = tuple(tuple(a - c * b for a, b in zip(ra, rb)) for ra, rb in zip(lf.weights, lg.weights))
        return Network([Layer(rows, tuple(a - c * b for a, b in zip(lf.biases, lg.biases)))])
    pf, pg = pad_network(f, H), pad_network(g, H)
    first_f, first_g = pf.layers[0], pg.layers[0]
    layers = [Layer(tuple(first_f.weights) + tuple(first_g.weights), tuple(first_f.biases) + tuple(first_g.biases))]
    for l in range(1, H):
        layers.append(_block_diag(pf.layers[l], pg.layers[l]))
    of, og = pf.layers[-1], pg.layers[-1]
    rows = tuple(tuple(ra) + tuple(-c * v for v in rb) for ra, rb in zip(of.weights, og.weights))
    layers.append(Layer(rows, tuple(a - c * b for a, b in zip(of.biases, og.biases))))
    return Network(layers)
