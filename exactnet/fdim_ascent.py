"""Float proposals of inputs where chosen hidden pre-activations are all positive (directed search).

The functional-dimension sampler (:mod:`exactnet.fdim`) meets regions by Gaussian points,
lines and walks across nearby walls. A region where a deep neuron is active can be missed by
all three even when it is not thin at all: in a random ``(15,)*6 + (1,)`` network a
layer-5 neuron that no sampled point of spreads ``0.5 .. 1024`` activates reaches
``z = 1847`` at a corner of the unit box. Such a neuron looks dead on the sample, so its
parameters look like kernel directions, and the sampled rank stays below the truth
(the proved upper bound stays where it is, since the neuron is not dead).

Here each *goal* is a set of conditions ``s * z_(l,i)(x) > 0`` (one neuron never seen active or
never seen inactive, two neurons never seen active together, or a neuron active with two of the
next layer's neurons of opposite signs). Batched projected
subgradient ascent in float64 maximises the smallest of the goal's margins from random starts
in boxes of several radii; it moves along the input gradient of the smallest margin, which
inside one activation region is exact and constant, so the iterates cross into neighbouring
regions in the direction that helps. The best point of each goal is converted to an exact
rational and returned only if **exact** evaluation of the network satisfies every condition
of its goal: the floats only propose, and a returned point only adds Jacobian rows to the
sample (it can raise the proved lower bound, never the upper one). A goal with no confirmed
point proves nothing either way.
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq

from .network import Network

__all__ = ["ascent_points"]

#: Radii of the boxes the starts are drawn from (uniformly), in turn.
RADII = (1.0, 8.0, 64.0)


def _float_layers(net: Network):
    import numpy as np

    Ws = [np.array([[float(v) for v in row] for row in net.weights(l)]) for l in range(1, net.depth + 1)]
    bs = [np.array([float(v) for v in net.biases(l)]) for l in range(1, net.depth + 1)]
    return Ws, bs


def _exact_point(x) -> list[fmpq]:
    """The float point as exact dyadic rationals (rounded to ``2^-20``, so coordinates stay small)."""
    return [fmpq(round(float(t) * (1 << 20)), 1 << 20) for t in x]


def ascent_points(net: Network, goals: Sequence[Sequence[tuple[int, int, int]]], starts: int = 48,
                  steps: int = 80, seed: int = 0) -> list[list[fmpq]]:
    """Exact strictly generic points (no hidden pre-activation is 0), at most one per goal, each
    satisfying every condition of its goal.

    ``goals``: each a list of ``(layer, index, sign)``, meaning ``sign * z_(layer,index)(x) > 0``
    (layers ``1 .. depth-1``, indices from 0). ``starts`` random starts per goal (split over
    :data:`RADII`), ``steps`` ascent steps each. Goals without a confirmed point are skipped.
    """
    import numpy as np

    goals = [list(g) for g in goals if g]
    if not goals or net.depth < 2:
        return []
    Ws, bs = _float_layers(net)
    n0 = net.input_dim
    rng = np.random.default_rng(seed)
    G = len(goals)
    top = max(l for g in goals for l, _, _ in g)
    out: list[list[fmpq]] = []
    # starts: goal g owns rows g*starts .. (g+1)*starts-1; radius per row
    R = np.array([RADII[k % len(RADII)] for k in range(starts)] * G)
    X = rng.uniform(-1.0, 1.0, (G * starts, n0)) * R[:, None]
    owner = np.repeat(np.arange(G), starts)
    # conditions padded to K per goal by repeating the first (min over them is unchanged)
    K = max(len(g) for g in goals)
    cl = np.array([[c[0] for c in g] + [g[0][0]] * (K - len(g)) for g in goals])[owner]
    ci = np.array([[c[1] for c in g] + [g[0][1]] * (K - len(g)) for g in goals])[owner]
    cs = np.array([[c[2] for c in g] + [g[0][2]] * (K - len(g)) for g in goals], dtype=float)[owner]
    rows = np.arange(G * starts)
    best_val = np.full(G * starts, -np.inf)
    best_x = X.copy()

    def forward(X):
        Z, H = [], [X]
        for l in range(top):
            z = H[-1] @ Ws[l].T + bs[l]
            Z.append(z)
            H.append(np.maximum(z, 0.0))
        return Z

    for step in range(steps + 1):
        Z = forward(X)
        margins = np.empty((G * starts, K))
        for k in range(K):
            m = np.empty(G * starts)
            for l in range(1, top + 1):
                sel = cl[:, k] == l
                if sel.any():
                    m[sel] = Z[l - 1][sel, ci[sel, k]]
            margins[:, k] = cs[:, k] * m
        worst = margins.argmin(axis=1)
        val = margins[rows, worst]
        better = val > best_val
        best_val[better] = val[better]
        best_x[better] = X[better]
        if step == steps:
            break
        # input gradient of the worst margin: back through the masks of the layers below it
        wl = cl[rows, worst]
        wi = ci[rows, worst]
        grad = np.zeros((G * starts, n0))
        for l in range(1, top + 1):
            sel = np.nonzero(wl == l)[0]
            if not len(sel):
                continue
            g = Ws[l - 1][wi[sel]] * cs[sel, worst[sel]][:, None]
            for j in range(l - 2, -1, -1):
                g = (g * (Z[j][sel] > 0)) @ Ws[j]
            grad[sel] = g
        norm = np.linalg.norm(grad, axis=1, keepdims=True)
        norm[norm == 0] = 1.0
        lr = 0.05 * (1.0 - step / (steps + 1))
        X = np.clip(X + lr * R[:, None] * grad / norm, -R[:, None], R[:, None])
    for g, goal in enumerate(goals):
        block = slice(g * starts, (g + 1) * starts)
        order = np.argsort(-best_val[block])
        for k in order[:3]:
            if best_val[block][k] <= 0:
                break
            x = _exact_point(best_x[block][k])
            z = net.preactivations(x)
            strict = all(v != 0 for layer in z[:-1] for v in layer)  # a sample point must be strictly generic
            if strict and all(s * z[l - 1][i] > 0 for l, i, s in goal):
                out.append(x)
                break
    return out
