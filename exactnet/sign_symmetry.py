"""Hidden symmetries of deep networks from sign facts that hold on the whole input space.

A hidden neuron ``(l, i)`` with ``l >= 2`` can be *dead* (pre-activation ``z <= 0`` on all of
``R^n0``) or *stably active* (``z >= 0`` on all of ``R^n0``) without any structural reason
that the rules of :mod:`exactnet.symmetry_rules` read off the signs of its weights: its
inputs are ReLU outputs, and what they can reach decides. Trained networks have such
neurons often (the "dead ReLU"). Either kind gives an explicit ``theta'`` of the fibre:

* dead: the neuron's output is 0 everywhere, so its outgoing column is free; ``theta'`` adds
  1 to ``W_(l+1)[0, i]`` (the move of the structural rule ``dead``);
* stably active: ``relu(z + 1) = relu(z) + 1`` wherever ``z >= 0``, so ``theta'`` adds 1 to
  ``b_l[i]`` and subtracts ``W_(l+1)[:, i]`` from ``b_(l+1)`` (the move of rule ``active``).

A third fact gives a third move: a neuron ``(l, i)``, ``l >= 2``, and a neuron ``(l-1, j)`` that
are *never active together* (no input has ``z_(l,i) > 0`` and ``z_(l-1,j) > 0``). Then ``theta'``
subtracts 1 from ``W_l[i, j]``: where ``z_(l-1,j) <= 0`` the weight multiplies ``h_(l-1,j) = 0``;
where ``z_(l-1,j) > 0`` it lowers ``z_(l,i) <= 0`` further, and ``relu`` stays 0. So ``f`` is
unchanged (lowering, not raising: a higher weight could switch ``(l, i)`` on).

**How it is found, and what proves it.** Sampled points (:func:`exactnet.fdim.sample_batch`:
Gaussian points of several spreads and points on random lines; exact integer
pre-activations) *propose* the neurons of layers ``>= 2`` that never change sign there, and the
pairs never active together there. :func:`exactnet.fdim.prove_constant_signs` and
:func:`exactnet.fdim.prove_never_coactive` prove or refute each proposal (branch and bound
over activation phases, every leaf closed by exact LP multipliers; a float LP only proposes
them). For a proved fact the ``theta'`` above is built, dropped if it lies in the orbit
(:func:`exactnet.symmetry.same_orbit`), and otherwise proved to compute ``f`` by a common
complex of ``f - f'`` on all of ``R^n0`` (:func:`exactnet.equivalence.equivalent_body`), which
is the body of the HIDDEN-SYMMETRY certificate (``equivalence complex``). The independent
checker verifies that complex cell by cell; it never trusts the LP step, which only chooses
the neuron or pair. The complex is bounded by ``max_cells`` and ``timeout``: past them the fact is
reported with the reason and no verdict (:attr:`SignSymmetry.error`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ExactnetError
from .fdim import neuron_label
from .network import Network
from .symmetry_rules import sign_move

__all__ = ["SignSymmetry", "preactivation_signs", "constant_sign_candidates", "never_coactive_candidates",
           "find_sign_symmetry", "MECHANISMS"]

#: Mechanism names (the same as the structural rules ``dead`` and ``active``).
MECHANISMS = {"dead": "dead-neuron", "active": "stably-active-neuron", "pair": "never-coactive-pair"}


@dataclass
class SignSymmetry:
    """A neuron ``(layer, index)`` proved ``kind`` ("dead", "active", or "pair": never active together
    with neuron ``partner`` of layer ``layer - 1``) on all of ``R^n0``, its ``theta'`` (``other``)
    and, when the common complex was built, the certificate ``body``."""

    layer: int
    index: int
    kind: str
    other: Network
    partner: int | None = None
    body: list[str] | None = None
    error: str | None = None

    @property
    def mechanism(self) -> str:
        return MECHANISMS[self.kind]

    @property
    def name(self) -> str:
        return neuron_label(self.layer, self.index)

    def describe(self) -> str:
        """The fact and the move, in words."""
        if self.kind == "dead":
            return f"neuron {self.name} is dead on the whole input space, so its outgoing weights are free"
        if self.kind == "active":
            return (f"neuron {self.name} is stably active on the whole input space, so a bias shift is "
                    "absorbed by the next layer")
        return (f"neurons {neuron_label(self.layer - 1, self.partner)} and {self.name} are never active together, so "
                f"lowering the weight between them changes nothing")


def preactivation_signs(net: Network, points) -> list[list[list[int]]]:
    """``signs[l-1][i][k]``: the sign (-1, 0, 1) of ``z_(l,i)`` at ``points[k]``, exactly (integer
    pre-activations over positive denominators)."""
    if not points:
        return [[[] for _ in range(n)] for n in net.architecture[1:-1]]
    return [[[(v > 0) - (v < 0) for v in row] for row in rows]
            for rows, _ in net.cleared_network().integer_preactivations(points)[:-1]]


def constant_sign_candidates(net: Network, signs) -> tuple[list, list]:
    """Neurons of layers ``>= 2`` never positive / never negative at the points of ``signs``."""
    hidden = [(l, i) for l in range(2, net.depth) for i in range(net.architecture[l])]
    return ([(l, i) for l, i in hidden if max(signs[l - 1][i], default=-1) <= 0],
            [(l, i) for l, i in hidden if min(signs[l - 1][i], default=1) >= 0])


def never_coactive_candidates(net: Network, signs) -> list:
    """Pairs ``((l, i), (l-1, j))``, ``l >= 2``, ``W_l[i, j] != 0``, never both positive at the points."""
    return [((l, i), (l - 1, j)) for l in range(2, net.depth) for i in range(net.architecture[l])
            for j in range(net.architecture[l - 1]) if net.weights(l)[i][j] != 0
            and not any(a > 0 and c > 0 for a, c in zip(signs[l - 1][i], signs[l - 2][j]))]


def _moved(net: Network, l: int, i: int, kind: str, j: int | None = None) -> Network:
    """``theta'`` for a dead or stably active neuron ``(l, i)`` (the structural rules' moves), or for a
    pair never active together (``W_l[i, j]`` lowered by 1)."""
    if kind != "pair":
        return sign_move(net, l, i, kind)
    W = [list(r) for r in net.weights(l)]
    W[i][j] -= 1
    return net.replace_layer(l, W, net.biases(l))


def find_sign_symmetry(net: Network, budget: float = 5.0, max_cells: int = 20000,
                       timeout: float | None = 60.0, seed: int = 0) -> SignSymmetry | None:
    """The first fact (dead or stably active neurons in layer order, then pairs never active
    together) proved on ``R^n0`` whose move leaves the orbit, with its certificate body; None when
    there is none.

    ``budget``: CPU seconds for the LP proofs; ``max_cells`` / ``timeout``: bounds of the common
    complex (past them the result has ``error`` set and no ``body``).
    """
    if net.depth < 3:
        return None
    from .equivalence import equivalent_body
    from .fdim import prove_constant_signs, prove_never_coactive, sample_batch, sign_facts
    from .symmetry import same_orbit

    points = sample_batch(net, 0, min(2 * net.num_parameters, 512), seed=seed)
    points += sample_batch(net, 1, 64, seed=seed)
    signs = preactivation_signs(net, points)
    cand_dead, cand_active = constant_sign_candidates(net, signs)
    pdead, pact, _ = prove_constant_signs(net, cand_dead, cand_active, budget=budget)
    dead, active = sign_facts(net, pdead, pact)[:2]

    def attempt(moves):
        for (l, i), kind, j in moves:
            other = _moved(net, l, i, kind, j)
            try:
                if same_orbit(net, other):
                    continue
            except ExactnetError:
                continue
            found = SignSymmetry(l, i, kind, other, partner=j)
            try:
                found.body = equivalent_body(net, other, timeout=timeout, max_cells=max_cells)
            except ExactnetError as e:  # the other moves' complexes are as large: stop here
                found.error = f"the common complex of f and f' was not built ({e})"
            return found
        return None

    hit = attempt(sorted([(k, "dead", None) for k in dead if k[0] >= 2]
                         + [(k, "active", None) for k in active if k[0] >= 2]))
    if hit is None:
        pairs = [p for p in never_coactive_candidates(net, signs) if not {p[0], p[1]} & (dead | active)]
        proved = prove_never_coactive(net, pairs, dead, active, budget=budget)[0] if pairs else ()
        hit = attempt(sorted((a, "pair", b[1]) for a, b in proved))
    return hit
